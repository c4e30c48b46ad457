/**
 * `npm run bench:latency [-- --quick | --samples N | --no-worker]`: how fast Ordinal reacts compared with the
 * controller it replaces, side by side in one run on one real control plane (test/cluster:
 * kube-apiserver + kube-controller-manager 1.20.2, ports and state dir of its own):
 * kube-controller-manager's StatefulSet controller (apps/v1) and `ordinal serve` as shipped
 * (webhooks registered and called by the apiserver, default settings), the same kubelet player
 * for both (a step every 100 ms). A warm-up, then N samples (default 3, --quick 1), the order of
 * the two controllers alternating between samples; the table gives medians.
 * Also: controller time per OrderedReady step (pod Ready seen → next pod created), Lease writes
 * per minute while a scenario runs, and requests per created pod, from the apiserver's audit log.
 * Then (unless --no-worker) the Worker under `wrangler dev` replaces `ordinal serve` (webhooks
 * re-registered to it) for 5-replica samples: its table sits beside upstream's figures of the run.
 */
import { DIR, readAudit, startBenchCluster, type AuditEvent } from "./latency/cluster.ts";
import { median } from "./latency/measure.ts";
import { runGroup, type Controller, type Measurement, type Scenario } from "./latency/scenarios.ts";

const log = (s: string) => console.error(`[latency] ${new Date().toISOString().slice(11, 19)} ${s}`);

/** parseArgs returns the number of samples (--quick is 1, --samples N (1..9), default 3) and whether the Worker runs too (--no-worker: not). */
function parseArgs(argv: string[]): { samples: number; worker: boolean } {
  let samples = 3;
  let worker = true;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--quick") samples = 1;
    else if (argv[i] === "--no-worker") worker = false;
    else if (argv[i] === "--samples" && /^[1-9]$/.test(argv[i + 1] ?? "")) samples = Number(argv[++i]);
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}: use --quick, --samples N (1..9) or --no-worker`);
  }
  return { samples, worker };
}

const seconds = (m: Measurement) => (m.end - m.start) / 1000;

/** Whose request an audit event is: the StatefulSet controller's own client, or Ordinal's identity. */
const isControllers = (c: Controller) => (e: AuditEvent) => (c === "upstream" ? e.userAgent.endsWith("/statefulset-controller") : e.user === "ordinal-reconciler");
const ms0 = (xs: (number | undefined)[]) => median(xs.filter((x): x is number => x !== undefined));
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
  if (all.some((m) => m.controller === "worker")) out.push("", ...workerReport(all, audit, pick));
  console.log(out.join("\n"));
}

/**
 * workerReport returns the Worker's table (run after `ordinal serve`'s samples, on the same
 * control plane): upstream's figures of this run beside the Worker's.
 */
function workerReport(all: Measurement[], audit: AuditEvent[], pick: (c: Controller, s: Scenario, n: number) => Measurement[]): string[] {
  const up = pick("upstream", "scale", 5);
  const w = pick("worker", "scale", 5);
  const upRoll = pick("upstream", "rolling", 5);
  const wRoll = pick("worker", "rolling", 5);
  const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;
  const ws = all.filter((m) => m.controller === "worker");
  const minutes = ws.reduce((s, m) => s + (m.end - m.start), 0) / 60_000;
  const leaseWrites = audit.filter(isControllers("worker")).filter(within(ws)).filter(isLeaseWrite).length;
  const requests = audit.filter(isControllers("worker")).filter(within(ws.filter((m) => m.scenario !== "inplace"))).length;
  const out = ["The Worker (`wrangler dev`, its shard Durable Object; webhooks re-registered to it), medians:", ""];
  out.push("| | upstream (kube-controller-manager) | Worker | ratio |", "|---|---|---|---|");
  out.push(`| 0→5 OrderedReady scale-up | ${median(up.map(seconds)).toFixed(2)} s | ${median(w.map(seconds)).toFixed(2)} s | ${ratio(median(up.map(seconds)), median(w.map(seconds)))} |`);
  out.push(`| 5-pod rolling update (recreate) | ${median(upRoll.map(seconds)).toFixed(2)} s | ${median(wRoll.map(seconds)).toFixed(2)} s | ${ratio(median(upRoll.map(seconds)), median(wRoll.map(seconds)))} |`);
  out.push(`| a new set's first pod after the create request | ${ms0(up.map((m) => m.firstPodMs)).toFixed(0)} ms | ${ms0(w.map((m) => m.firstPodMs)).toFixed(0)} ms | |`);
  out.push(`| controller time per OrderedReady step, median | ${median(up.flatMap((m) => m.steps)).toFixed(0)} ms | ${median(w.flatMap((m) => m.steps)).toFixed(0)} ms | |`);
  out.push(`| apiserver requests per created pod | | ${(requests / ws.reduce((s, m) => s + m.created, 0)).toFixed(1)} | |`);
  out.push(`| Lease writes per minute while a scenario runs | | ${(leaseWrites / minutes).toFixed(0)} | |`);
  out.push("", `Samples (s), upstream | Worker: 0→5 ${up.map((m) => seconds(m).toFixed(2)).join(", ")} | ${w.map((m) => seconds(m).toFixed(2)).join(", ")}; first pod (ms) ${w.map((m) => m.firstPodMs).join(", ")}`);
  return out;
}

async function main(): Promise<void> {
  const { samples, worker } = parseArgs(process.argv.slice(2));
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
    if (worker) {
      await cluster.useWorker();
      log("warm-up: worker 0→2");
      await runGroup(cluster, { controller: "worker", namespace: "warmup-worker", replicas: 2, updates: false, inPlace: false });
      for (let i = 0; i < samples; i++) {
        log(`sample ${i + 1}/${samples}: worker, 5 replicas`);
        const ms = await runGroup(cluster, { controller: "worker", namespace: `lat-worker-5-${i}`, replicas: 5, updates: true, inPlace: false });
        for (const m of ms) log(`  ${m.scenario} ${m.replicas}: ${seconds(m).toFixed(2)} s, first pod ${m.firstPodMs} ms`);
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
