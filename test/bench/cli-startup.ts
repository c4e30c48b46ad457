/**
 * `npm run bench:cli`: how long `ordinal --help` takes, side by side in one run — the installed
 * command (bin/ordinal.mjs → the bundle in dist/node, built first) against the checkout's tsx
 * path (src/cli/bin.mjs, what package.json's bin ran before), and Node alone as the floor. Two warm-up runs each, then runs
 * alternated, medians printed. Target for the installed command: ≤ 300 ms on an idle machine: the
 * load average is printed before and after (a busy machine slows every candidate, Node alone too).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const CANDIDATES = [
  { name: "node -e 0 (Node alone)", argv: ["-e", "0"] },
  { name: "bin/ordinal.mjs (bundle)", argv: ["bin/ordinal.mjs", "--help"] },
  { name: "src/cli/bin.mjs (tsx)", argv: ["src/cli/bin.mjs", "--help"] },
];

/** runMs returns the wall time of one `node ARGV…` run in milliseconds (and fails loudly on a non-zero exit). */
function runMs(argv: string[]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`node ${argv.join(" ")} exited ${r.status}: ${r.stderr.toString()}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** load returns the 1-minute load average against the cores, as `uptime` shows it. */
const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(", ")} on ${availableParallelism()} cores`;

execFileSync("npm", ["run", "--silent", "build:node"], { stdio: "inherit" });
const loadBefore = load();
for (const c of CANDIDATES) for (let i = 0; i < 2; i++) runMs(c.argv);
const times = new Map<string, number[]>(CANDIDATES.map((c) => [c.name, []]));
for (let i = 0; i < RUNS; i++) for (const c of CANDIDATES) times.get(c.name)!.push(runMs(c.argv));
console.log(`ordinal --help, median of ${RUNS} runs (after 2 warm-up runs each); before: ${loadBefore}; after: ${load()}`);
for (const c of CANDIDATES) {
  const ms = times.get(c.name)!;
  console.log(`  ${c.name.padEnd(28)} ${median(ms).toFixed(0).padStart(6)} ms   (min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)})`);
}
const [node, bundle, tsx] = CANDIDATES.map((c) => median(times.get(c.name)!));
console.log(`  the bundle is ${(tsx / bundle).toFixed(1)}× faster than tsx and adds ${(bundle - node).toFixed(0)} ms to Node's own start; target ≤ 300 ms: ${bundle <= 300 ? "met" : "NOT met (a loaded machine? compare with Node alone)"}`);
