/**
 * `npm run bench:latency [-- --quick | --samples N]`: how fast Ordinal reacts compared with the
 * controller it replaces, side by side in one run on one real control plane (test/cluster:
 * kube-apiserver + kube-controller-manager 1.20.2, ports and state dir of its own):
 * kube-controller-manager's StatefulSet controller (apps/v1) and `ordinal serve` as shipped
 * (webhooks registered and called by the apiserver, default settings), the same kubelet player
 * for both (a step every 100 ms). A warm-up, then N samples (default 3, --quick 1), the order of
 * the two controllers alternating between samples; the table gives medians. `--worker` then
 * stops `ordinal serve` and measures the Worker under `wrangler dev` in its place (same webhooks,
 * same identity), a third column: reaching the apiserver through `kubectl proxy` as a new user's
 * does (docs/install.md), or with `--forwarder` through a plain-HTTP forwarder with its token.
 * With the Worker, the floor under its figures (latency/floor.ts): one apiserver round trip from
 * Node, through its proxy from Node, and from a bare Worker under `wrangler dev`.
 * Also: controller time per OrderedReady step (pod Ready seen → next pod created), Lease writes
 * per minute while a scenario runs, and requests per created pod, from the apiserver's audit log.
 */
import { loadavg } from "node:os";
import { DIR, readAudit, startBenchCluster, type WorkerApiPath } from "./latency/cluster.ts";
import type { AuditEvent } from "../support/audit.ts";
import { median } from "./latency/measure.ts";
import { measureFloor } from "./latency/floor.ts";
import { runGroup, type Controller, type Measurement, type Scenario } from "./latency/scenarios.ts";

const log = (s: string) => console.error(`[latency] ${new Date().toISOString().slice(11, 19)} ${s}`);

/**
 * parseArgs returns the number of samples (--quick is 1, --samples N (1..9), default 3), whether to
 * measure the Worker too, and whether to leave `ordinal serve` out (--worker-only: upstream and the
 * Worker side by side, their samples alternating, for work on the Worker).
 */
function parseArgs(argv: string[]): { samples: number; worker: boolean; serve: boolean; via: WorkerApiPath } {
  const o = { samples: 3, worker: false, serve: true, via: "kubectl-proxy" as WorkerApiPath };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--quick") o.samples = 1;
    else if (argv[i] === "--worker") o.worker = true;
    else if (argv[i] === "--worker-only") Object.assign(o, { worker: true, serve: false });
    else if (argv[i] === "--forwarder") o.via = "forwarder";
    else if (argv[i] === "--samples" && /^[1-9]$/.test(argv[i + 1] ?? "")) o.samples = Number(argv[++i]);
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}: use --quick, --samples N (1..9), --worker, --worker-only, --forwarder`);
  }
  return o;
}

const seconds = (m: Measurement) => (m.end - m.start) / 1000;
/** sampleText returns a sample's seconds, with "+" when it timed out (it took at least that long). */
const sampleText = (m: Measurement) => `${seconds(m).toFixed(2)}${m.timedOut ? "+" : ""}`;
/** medianText returns the median seconds of `ms`, saying how many of them timed out. */
function medianText(ms: Measurement[]): string {
  const out = ms.filter((m) => m.timedOut).length;
  return `${median(ms.map(seconds)).toFixed(2)} s${out ? ` (${out} timed out)` : ""}`;
}

/** Whose request an audit event is: the StatefulSet controller's own client, or Ordinal's identity. */
const isControllers = (c: Controller) => (e: AuditEvent) => (c === "upstream" ? e.userAgent.endsWith("/statefulset-controller") : e.user === "ordinal-reconciler");
const within = (ms: Measurement[]) => (e: AuditEvent) => ms.some((m) => e.at >= m.start && e.at <= m.end);
const isLeaseWrite = (e: AuditEvent) => e.resource === "leases" && ["create", "update", "patch"].includes(e.verb);

/** report prints the table of medians (markdown; a Worker column when it was measured) and the samples behind each figure. */
function report(all: Measurement[], audit: AuditEvent[], samples: number): void {
  const ours = (["ordinal", "worker"] as const).filter((c) => all.some((m) => m.controller === c));
  const pick = (c: Controller, s: Scenario, n: number) => all.filter((m) => m.controller === c && m.scenario === s && m.replicas === n);
  const rows: [string, (c: Controller) => Measurement[]][] = [
    ["0→5 OrderedReady scale-up", (c) => pick(c, "scale", 5)],
    ["5-pod rolling update (recreate)", (c) => pick(c, "rolling", 5)],
    ["0→20 OrderedReady scale-up", (c) => pick(c, "scale", 20)],
    ["20-pod rolling update (recreate)", (c) => pick(c, "rolling", 20)],
    ["5-pod in-place update (upstream: its 5-pod recreate)", (c) => (c === "upstream" ? pick(c, "rolling", 5) : pick(c, "inplace", 5))],
  ];
  const title: Record<Controller, string> = { upstream: "upstream (kube-controller-manager)", ordinal: "Ordinal (`ordinal serve`)", worker: "Ordinal (Worker, `wrangler dev`)" };
  const out: string[] = [];
  out.push(`Medians of ${samples}, seconds from the request until the status says done and every pod is Ready (kubelet step 100 ms).`, "");
  out.push(`| | ${title.upstream} | ${ours.map((c) => `${title[c]} | ratio`).join(" | ")} |`, `|---|---|${ours.map(() => "---|---|").join("")}`);
  for (const [label, of] of rows) {
    const u = median(of("upstream").map(seconds));
    out.push(`| ${label} | ${medianText(of("upstream"))} | ${ours.map((c) => `${medianText(of(c))} | ${(median(of(c).map(seconds)) / u).toFixed(1)}×`).join(" | ")} |`);
  }
  const extra = (label: string, f: (c: Controller) => string) => out.push(`| ${label} | ${f("upstream")} | ${ours.map((c) => `${f(c)} | `).join(" | ")}|`);
  const firstPods = (c: Controller) => all.filter((m) => m.controller === c).flatMap((m) => (m.firstPodMs === undefined ? [] : [m.firstPodMs]));
  extra("a new set's first pod seen after the create request, median", (c) => `${median(firstPods(c)).toFixed(0)} ms`);
  extra("controller time per OrderedReady step (pod Ready seen → next pod created), median", (c) => `${median(all.filter((m) => m.controller === c).flatMap((m) => m.steps)).toFixed(0)} ms`);
  extra("apiserver requests per created pod (scale-ups and recreates)", (c) => {
    const ms = all.filter((m) => m.controller === c && m.scenario !== "inplace");
    return (audit.filter(isControllers(c)).filter(within(ms)).length / ms.reduce((s, m) => s + m.created, 0)).toFixed(1);
  });
  extra("Lease writes per minute while a scenario runs", (c) => {
    const ms = all.filter((m) => m.controller === c);
    const perMinute = audit.filter(isControllers(c)).filter(isLeaseWrite).filter(within(ms)).length / (ms.reduce((s, m) => s + (m.end - m.start), 0) / 60_000);
    return c === "upstream" ? `${perMinute.toFixed(0)} (leader election off)` : perMinute.toFixed(0);
  });
  out.push("", `Samples (s), ${["upstream", ...ours].join(" | ")}:`);
  for (const [label, of] of rows) out.push(`- ${label}: ${(["upstream", ...ours] as Controller[]).map((c) => of(c).map(sampleText).join(", ")).join(" | ")}`);
  console.log(out.join("\n"));
}

/** runSamples runs a warm-up (0→2) and then `samples` rounds of the 5- and 20-pod groups for each controller, alternating their order. */
async function runSamples(cluster: Awaited<ReturnType<typeof startBenchCluster>>, controllers: Controller[], samples: number): Promise<Measurement[]> {
  for (const controller of controllers) {
    log(`warm-up: ${controller} 0→2`);
    await runGroup(cluster, { controller, namespace: `warmup-${controller}`, replicas: 2, updates: false, inPlace: false });
  }
  const all: Measurement[] = [];
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? controllers : [...controllers].reverse();
    for (const replicas of [5, 20])
      for (const controller of order) {
        log(`sample ${i + 1}/${samples}: ${controller}, ${replicas} replicas`);
        const ms = await runGroup(cluster, { controller, namespace: `lat-${controller}-${replicas}-${i}`, replicas, updates: true, inPlace: replicas === 5 });
        for (const m of ms) log(`  ${m.scenario} ${m.replicas}: ${sampleText(m)} s`);
        all.push(...ms);
      }
  }
  return all;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
  log(`load average (1, 5, 15 min) at the start: ${load()}`);
  const cluster = await startBenchCluster(log);
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    if (!o.serve) {
      // --worker-only: the Worker from the start, its samples alternating with upstream's.
      log("the Worker in serve's place (serve stopped, webhooks re-registered)");
      await cluster.useWorker(o.via);
    }
    const all = await runSamples(cluster, o.serve ? ["upstream", "ordinal"] : ["upstream", "worker"], o.samples);
    if (o.worker && o.serve) {
      log("the Worker in serve's place (serve stopped, webhooks re-registered)");
      await cluster.useWorker(o.via);
      all.push(...(await runSamples(cluster, ["worker"], o.samples)));
    }
    await new Promise((r) => setTimeout(r, 1000)); // the audit log's last lines
    const audit = readAudit();
    const floor = o.worker ? await measureFloor({ direct: cluster.api.fetch, server: cluster.env.KUBE_API_URL, token: cluster.env.KUBE_TOKEN, proxyUrl: cluster.workerApi.url, dir: DIR, port: cluster.workerApi.sparePort, webhook: { url: cluster.workerApi.webhookUrl, fetch: cluster.workerApi.webhookFetch }, log }) : undefined;
    report(all, audit, o.samples);
    if (floor) console.log(`\n${floor}`);
    console.log(`\nLoad average (1, 5, 15 min) at the end: ${load()}${o.worker ? `; the Worker reached the apiserver through ${o.via === "forwarder" ? "the plain-HTTP forwarder" : "kubectl proxy"}` : ""}.`);
    log(`logs (apiserver audit, ordinal serve) stay in ${DIR}`);
  } finally {
    await cluster.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
