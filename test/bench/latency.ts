/**
 * `npm run bench:latency [-- --quick | --samples N]`: how fast Ordinal reacts compared with the
 * controller it replaces, side by side in one run on one real control plane (test/cluster:
 * kube-apiserver + kube-controller-manager 1.20.2, ports and state dir of its own):
 * kube-controller-manager's StatefulSet controller (apps/v1) and `ordinal serve` as shipped
 * (webhooks registered and called by the apiserver, default settings), the same kubelet player
 * for both (a step every 100 ms). A warm-up, then N samples (default 3, --quick 1), the order of
 * the two controllers alternating between samples; the table gives medians.
 * Also: controller time per OrderedReady step (pod Ready seen → next pod created), Lease writes
 * per minute while a scenario runs, and requests per created pod, from the apiserver's audit log.
 */
import { DIR, readAudit, startBenchCluster, type AuditEvent } from "./latency/cluster.ts";
import { median } from "./latency/measure.ts";
import { runGroup, type Controller, type Measurement, type Scenario } from "./latency/scenarios.ts";

const log = (s: string) => console.error(`[latency] ${new Date().toISOString().slice(11, 19)} ${s}`);

/** parseArgs returns the number of samples: --quick is 1, --samples N (1..9), default 3. */
function parseArgs(argv: string[]): number {
  let samples = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--quick") samples = 1;
    else if (argv[i] === "--samples" && /^[1-9]$/.test(argv[i + 1] ?? "")) samples = Number(argv[++i]);
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}: use --quick or --samples N (1..9)`);
  }
  return samples;
}

const seconds = (m: Measurement) => (m.end - m.start) / 1000;

/** Whose request an audit event is: the StatefulSet controller's own client, or Ordinal's identity. */
const isControllers = (c: Controller) => (e: AuditEvent) => (c === "upstream" ? e.userAgent.endsWith("/statefulset-controller") : e.user === "ordinal-reconciler");
const within = (ms: Measurement[]) => (e: AuditEvent) => ms.some((m) => e.at >= m.start && e.at <= m.end);
const isLeaseWrite = (e: AuditEvent) => e.resource === "leases" && ["create", "update", "patch"].includes(e.verb);

/** report prints the table of medians (markdown) and the samples behind each figure. */
function report(all: Measurement[], audit: AuditEvent[], samples: number): void {
  const pick = (c: Controller, s: Scenario, n: number) => all.filter((m) => m.controller === c && m.scenario === s && m.replicas === n);
  const rows: [string, Measurement[], Measurement[]][] = [
    ["0→5 OrderedReady scale-up", pick("upstream", "scale", 5), pick("ordinal", "scale", 5)],
    ["5-pod rolling update (recreate)", pick("upstream", "rolling", 5), pick("ordinal", "rolling", 5)],
    ["0→20 OrderedReady scale-up", pick("upstream", "scale", 20), pick("ordinal", "scale", 20)],
    ["20-pod rolling update (recreate)", pick("upstream", "rolling", 20), pick("ordinal", "rolling", 20)],
    ["5-pod in-place update (upstream: its 5-pod recreate)", pick("upstream", "rolling", 5), pick("ordinal", "inplace", 5)],
  ];
  const out: string[] = [];
  out.push(`Medians of ${samples}, seconds from the request until the status says done and every pod is Ready (kubelet step 100 ms).`, "");
  out.push("| | upstream (kube-controller-manager) | Ordinal (`ordinal serve`) | ratio |", "|---|---|---|---|");
  for (const [label, up, ord] of rows) {
    const u = median(up.map(seconds));
    const o = median(ord.map(seconds));
    out.push(`| ${label} | ${u.toFixed(2)} s | ${o.toFixed(2)} s | ${(o / u).toFixed(1)}× |`);
  }
  const steps = (c: Controller) => median(all.filter((m) => m.controller === c).flatMap((m) => m.steps));
  out.push(`| controller time per OrderedReady step (pod Ready seen → next pod created), median | ${steps("upstream").toFixed(0)} ms | ${steps("ordinal").toFixed(0)} ms | |`);
  const perPod = (c: Controller) => {
    const ms = all.filter((m) => m.controller === c && m.scenario !== "inplace");
    const requests = audit.filter(isControllers(c)).filter(within(ms)).length;
    return requests / ms.reduce((s, m) => s + m.created, 0);
  };
  out.push(`| apiserver requests per created pod (scale-ups and recreates) | ${perPod("upstream").toFixed(1)} | ${perPod("ordinal").toFixed(1)} | |`);
  const leasePerMinute = (c: Controller) => {
    const ms = all.filter((m) => m.controller === c);
    const minutes = ms.reduce((s, m) => s + (m.end - m.start), 0) / 60_000;
    return audit.filter(isControllers(c)).filter(isLeaseWrite).filter(within(ms)).length / minutes;
  };
  out.push(`| Lease writes per minute while a scenario runs | ${leasePerMinute("upstream").toFixed(0)} (leader election off) | ${leasePerMinute("ordinal").toFixed(0)} | |`);
  out.push("", "Samples (s), upstream | Ordinal:");
  for (const [label, up, ord] of rows) out.push(`- ${label}: ${up.map((m) => seconds(m).toFixed(2)).join(", ")} | ${ord.map((m) => seconds(m).toFixed(2)).join(", ")}`);
  console.log(out.join("\n"));
}

async function main(): Promise<void> {
  const samples = parseArgs(process.argv.slice(2));
  const cluster = await startBenchCluster(log);
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const both: Controller[] = ["upstream", "ordinal"];
    for (const controller of both) {
      log(`warm-up: ${controller} 0→2`);
      await runGroup(cluster, { controller, namespace: `warmup-${controller}`, replicas: 2, updates: false, inPlace: false });
    }
    const all: Measurement[] = [];
    for (let i = 0; i < samples; i++) {
      const order = i % 2 === 0 ? both : [...both].reverse();
      for (const replicas of [5, 20])
        for (const controller of order) {
          log(`sample ${i + 1}/${samples}: ${controller}, ${replicas} replicas`);
          const ms = await runGroup(cluster, { controller, namespace: `lat-${controller}-${replicas}-${i}`, replicas, updates: true, inPlace: replicas === 5 });
          for (const m of ms) log(`  ${m.scenario} ${m.replicas}: ${seconds(m).toFixed(2)} s`);
          all.push(...ms);
        }
    }
    await new Promise((r) => setTimeout(r, 1000)); // the audit log's last lines
    report(all, readAudit(), samples);
    log(`logs (apiserver audit, ordinal serve) stay in ${DIR}`);
  } finally {
    await cluster.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
