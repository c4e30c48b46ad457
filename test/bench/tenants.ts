/**
 * `npm run bench:tenants [-- --seconds N]`: issue 35's tenant scenarios replayed on the real
 * control plane (test/cluster, as `npm run bench:latency` starts it) against `ordinal serve` as
 * deploy/server.yaml ships it (its env: RECONCILE_HEAP_MB, RECONCILE_SHARDS, WEBHOOK_AUTH=none, …),
 * one after the other, each in a namespace of its own that is deleted after it:
 * - G1: a set of 100 Parallel pods of about 1.1 MB each (twenty 55 kB env values);
 * - G2: 60 forged, unauthenticated StatefulSet CREATE reviews sent at once to /validate/wake, whose
 *   selector names 330 plain pods (about 20 MB) of a namespace with no Ordinal object;
 * - G3: `replicas: 150000`, Parallel, for the scenario's time (bounded: the namespace goes after);
 * - G6: 300 ordinary pods, then 80 sets with `replicas: 0` and their selector, created at once.
 * Meanwhile a probe creates a one-pod set in another namespace every 2 s and times the request
 * until its pod exists (polled every 100 ms). For each scenario it prints: reconcile-thread deaths
 * (serve's log, until its namespace is gone), serve's peak RSS against deploy/'s limits.memory (VmHWM, reset before each), and
 * the probe's latencies (max, median, count). Run under `flock /tmp/ordinal-e2e.lock`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { fetchFor } from "../../src/node/kubeconfig.ts";
import { setManifest } from "../support/fixtures.ts";
import { DIR, startBenchCluster, type BenchCluster } from "./latency/cluster.ts";
import { median } from "./latency/measure.ts";
import { newNamespace } from "./latency/scenarios.ts";

const log = (s: string) => console.error(`[tenants] ${new Date().toISOString().slice(11, 19)} ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Serve's settings that the bench replaces with its own (port, certificate, registration: it has no Service). */
const NOT_SHIPPED_HERE = new Set(["HOST", "PORT", "WEBHOOK_SERVICE", "WEBHOOK_TLS_SECRET", "WEBHOOK_REGISTRATION"]);

interface Shipped {
  env: Record<string, string>;
  limitMiB: number;
}

/** shipped returns the ordinal container's plain env values and its limits.memory (MiB) from deploy/server.yaml. */
function shipped(): Shipped {
  type Container = { name: string; env?: { name: string; value?: string }[]; resources?: { limits?: { memory?: string } } };
  const docs = parseAllDocuments(readFileSync("deploy/server.yaml", "utf8")).map((d) => d.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: Container[] } } } });
  const c = docs.find((d) => d.kind === "Deployment")?.spec?.template?.spec?.containers?.find((x) => x.name === "ordinal");
  if (!c) throw new Error("deploy/server.yaml: no Deployment with an `ordinal` container");
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) if (e.value !== undefined && !NOT_SHIPPED_HERE.has(e.name)) env[e.name] = e.value;
  const m = /^(\d+)(Mi|Gi)$/.exec(c.resources?.limits?.memory ?? "");
  if (!m) throw new Error(`deploy/server.yaml: limits.memory ${c.resources?.limits?.memory} is not NMi or NGi`);
  return { env, limitMiB: Number(m[1]) * (m[2] === "Gi" ? 1024 : 1) };
}

/** statusKiB returns a field of /proc/PID/status (VmRSS, VmHWM) in KiB. */
function statusKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** threadDeaths returns when the reconcile thread died (ms), from serve's log (JSON lines). */
function threadDeaths(): number[] {
  const lines = readFileSync(`${DIR}/ordinal-serve.log`, "utf8").split("\n").filter((l) => l.includes('"reconcile thread failed"'));
  return lines.map((l) => Date.parse((JSON.parse(l) as { time: string }).time));
}

/** probe creates a one-pod set in `ns` every 2 s until stopped and returns ms from each create request to its pod seen. */
function startProbe(cluster: BenchCluster, ns: string): { stop: () => Promise<number[]> } {
  let stopped = false;
  const latencies: number[] = [];
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const tick = Date.now();
      const name = `p${Date.now().toString(36)}`;
      await cluster.admin.create(R.statefulSets, ns, setManifest({ name, namespace: ns, replicas: 1 }));
      const start = Date.now();
      while (Date.now() - start < 60_000 && !(await cluster.admin.get(R.pods, ns, `${name}-0`))) await sleep(100);
      latencies.push(Date.now() - start);
      await cluster.admin.delete(R.statefulSets, ns, name).catch(() => undefined);
      await sleep(Math.max(0, 2000 - (Date.now() - tick)));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return latencies;
    },
  };
}

/** plainPods creates `count` pods labelled app=`app` in `ns` (no Ordinal label), `padding` bytes of annotation each, 10 at a time. */
async function plainPods(cluster: BenchCluster, ns: string, app: string, count: number, padding: number): Promise<void> {
  const pad = "x".repeat(padding);
  for (let i = 0; i < count; i += 10)
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, k) =>
        cluster.admin.create(R.pods, ns, { apiVersion: "v1", kind: "Pod", metadata: { name: `${app}-plain-${i + k}`, labels: { app }, annotations: { pad } }, spec: { containers: [{ name: "c", image: "nginx:1.25" }] } }),
      ),
    );
}

/** The scenarios: each sets up its tenant namespace and starts what it replays (the bench then measures for its time). */
const SCENARIOS: { id: string; what: string; run: (c: BenchCluster, ns: string) => Promise<void> }[] = [
  {
    id: "G1",
    what: "100 Parallel pods of ~1.1 MB (env values)",
    run: async (c, ns) => {
      const m = setManifest({ name: "big", namespace: ns, replicas: 100, policy: "Parallel" });
      const env = Array.from({ length: 20 }, (_, i) => ({ name: `E${i}`, value: "x".repeat(55_000) }));
      (m.spec.template as { spec: { containers: { env?: unknown }[] } }).spec.containers[0].env = env;
      await c.admin.create(R.statefulSets, ns, m);
    },
  },
  {
    id: "G2",
    what: "60 forged CREATE reviews on /validate/wake naming 330 plain pods (~20 MB)",
    run: async (c, ns) => {
      await plainPods(c, ns, "victim", 330, 60_000);
      const f = fetchFor({ server: c.webhookUrl, ca: readFileSync(`${DIR}/tls.crt`, "utf8"), source: "tenants bench" });
      await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const object = setManifest({ name: `forged-${i}`, namespace: ns, replicas: 0 });
          object.spec.selector = { matchLabels: { app: "victim" } };
          const request = { uid: `forged-${i}`, kind: { group: "apps.ordinal.dev", version: "v1", kind: "StatefulSet" }, resource: { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" }, operation: "CREATE", namespace: ns, name: `forged-${i}`, userInfo: { username: "nobody" }, object };
          return f(`${c.webhookUrl}/validate/wake`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request }) }).then((r) => r.text());
        }),
      );
    },
  },
  {
    id: "G3",
    what: "replicas: 150000, Parallel",
    run: async (c, ns) => void (await c.admin.create(R.statefulSets, ns, setManifest({ name: "huge", namespace: ns, replicas: 150_000, policy: "Parallel" }))),
  },
  {
    id: "G6",
    what: "300 plain pods, then 80 sets replicas 0 selecting them, at once",
    run: async (c, ns) => {
      await plainPods(c, ns, "shared", 300, 0);
      await Promise.all(
        Array.from({ length: 80 }, (_, i) => {
          const m = setManifest({ name: `s${i}`, namespace: ns, replicas: 0 });
          m.spec.selector = { matchLabels: { app: "shared" } };
          (m.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels = { app: "shared" };
          return c.admin.create(R.statefulSets, ns, m);
        }),
      );
    },
  },
];

interface Row {
  id: string;
  what: string;
  /** When the scenario ran (ms): its thread deaths are counted from the log at the end. */
  from: number;
  to: number;
  peakMiB: number;
  latencies: number[];
  tenantPods: number;
}

/** deleteNamespace deletes `ns` and waits (up to 2 min) until it is gone. */
async function deleteNamespace(c: BenchCluster, ns: string): Promise<void> {
  await c.admin.delete(R.namespaces, undefined, ns).catch(() => undefined);
  for (let i = 0; i < 600 && (await c.admin.get(R.namespaces, undefined, ns)); i++) await sleep(200);
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--seconds");
  const seconds = i > 0 ? Number(process.argv[i + 1]) : 45;
  if (!Number.isInteger(seconds) || seconds < 5 || seconds > 600) throw new Error("--seconds N: 5..600");
  const j = process.argv.indexOf("--only");
  const only = j > 0 ? (process.argv[j + 1] ?? "").split(",") : SCENARIOS.map((s) => s.id);
  if (only.some((id) => !SCENARIOS.some((s) => s.id === id))) throw new Error(`--only ${SCENARIOS.map((s) => s.id).join(",")} (a comma-separated subset)`);
  const ship = shipped();
  // LOG_LEVEL=debug on the bench's command line reaches serve (its `wake` and pass lines).
  if (process.env.LOG_LEVEL) ship.env.LOG_LEVEL = process.env.LOG_LEVEL;
  log(`serve as deploy/server.yaml ships it: ${Object.entries(ship.env).map(([k, v]) => `${k}=${v}`).join(" ")}; limits.memory ${ship.limitMiB}Mi`);
  const cluster = await startBenchCluster(log, { serveEnv: ship.env });
  const stop = () => void cluster.stop().then(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const rows: Row[] = [];
  try {
    await newNamespace(cluster, "probe");
    for (const s of SCENARIOS.filter((x) => only.includes(x.id))) {
      const ns = `tenant-${s.id.toLowerCase()}`;
      await newNamespace(cluster, ns);
      log(`${s.id}: ${s.what}`);
      writeFileSync(`/proc/${cluster.servePid}/clear_refs`, "5");
      const probe = startProbe(cluster, "probe");
      const started = Date.now();
      await s.run(cluster, ns);
      await sleep(Math.max(0, seconds * 1000 - (Date.now() - started)));
      const latencies = await probe.stop();
      const tenantPods = (await cluster.admin.list<KubeObject>(R.pods, ns, { limit: 500, keep: () => true })).length;
      rows.push({ id: s.id, what: s.what, from: started, to: Date.now(), peakMiB: statusKiB(cluster.servePid, "VmHWM") / 1024, latencies, tenantPods });
      log(`${s.id}: done (${JSON.stringify(rows[rows.length - 1])}); deleting ${ns}`);
      await deleteNamespace(cluster, ns);
      rows[rows.length - 1].to = Date.now();
    }
  } finally {
    await sleep(1000); // serve's last log lines
    await cluster.stop();
  }
  const deaths = threadDeaths();
  const out = [`\`ordinal serve\` as deploy/ ships it (limits.memory ${ship.limitMiB}Mi), ${seconds} s per scenario; probe: a one-pod set in another namespace every 2 s, ms until its pod exists.`, ""];
  out.push("| scenario | reconcile thread deaths | peak RSS (MiB) | under the limit | probe max (ms) | probe median (ms) | probes | tenant pods at the end |", "|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    out.push(`| ${r.id}: ${r.what} | ${deaths.filter((t) => t >= r.from && t <= r.to).length} | ${r.peakMiB.toFixed(0)} | ${r.peakMiB <= ship.limitMiB ? "yes" : "NO"} | ${Math.max(...r.latencies)} | ${median(r.latencies).toFixed(0)} | ${r.latencies.length} | ${r.tenantPods} |`);
  console.log(out.join("\n"));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
