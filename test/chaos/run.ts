/**
 * `npm run chaos` (through run.sh, which starts the control plane): one seeded chaos run, its
 * figures printed; exit 1 on any violation or a set not converged within the limit.
 * Flags: --seed N (default 1), --minutes M (the fault phase, default 30), --sets N (default 8),
 * --converge-limit S (seconds every set may take to converge after the last fault, default 300).
 */
import { parseArgs } from "node:util";
import { runChaos } from "./chaos.ts";
import { killAll } from "./faults/replicas.ts";
import { formatFigures } from "./report.ts";

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    minutes: { type: "string", default: "30" },
    sets: { type: "string", default: "8" },
    "converge-limit": { type: "string", default: "300" },
  },
});
const num = (name: string, v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${JSON.stringify(v)}`);
  return n;
};
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}
const clusterDir = process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-chaos-cluster";
const limitMs = num("converge-limit", values["converge-limit"]) * 1000;
const figures = await runChaos({
  clusterDir,
  auditLog: process.env.ORDINAL_AUDIT_LOG || undefined,
  seed: num("seed", values.seed),
  faultMs: num("minutes", values.minutes) * 60_000,
  convergeLimitMs: limitMs,
  sets: num("sets", values.sets),
  ports: { front: 29442, replicas: [29443, 29444], proxies: [29450, 29451] },
  workDir: `${clusterDir}.run`,
});
for (const l of formatFigures(figures, limitMs)) console.log(l);
console.log(`replica logs, faults.json and figures.json: ${clusterDir}.run/`);
process.exit(figures.violations.length || figures.unconverged.length ? 1 : 0);
