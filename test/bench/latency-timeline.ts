/**
 * `npm run bench:timeline [-- rounds]` (default 2): where the time of a
 * 0→5 OrderedReady scale-up goes, per pod, for each controller on the latency bench's control
 * plane. Prints, in ms from the create request: each pod's created / bound / running / gate
 * (InPlaceUpdateReady True) / Ready as a watch saw them, and the controller's own requests
 * (apiserver audit log, request received) in the namespace while the scale-up ran.
 */
import type { Pod } from "../../src/api/k8s.ts";
import { R, resourcePath } from "../../src/kube/resources.ts";
import { readFileSync } from "node:fs";
import { DIR, startBenchCluster } from "./latency/cluster.ts";
import { runKubelet } from "./latency/kubelet.ts";
import { isDone, type SetObject } from "./latency/measure.ts";
import { startWatch, waitFor, type Watched } from "./latency/watch.ts";
import { setManifest } from "../support/fixtures.ts";
import type { KubeObject } from "../../src/kube/client.ts";

// `ordinal serve` writes its admission and pass lines at debug; the timeline interleaves them with the audit log.
process.env.LOG_LEVEL ??= "debug";
const log = (s: string) => console.error(`[timeline] ${new Date().toISOString().slice(11, 23)} ${s}`);
const cond = (p: Pod, type: string) => p.status?.conditions?.some((c) => c.type === type && c.status === "True") === true;

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? "2");
  const cluster = await startBenchCluster(log);
  try {
    for (let i = 0; i < rounds; i++)
      for (const controller of i % 2 ? ["ordinal", "upstream"] : ["upstream", "ordinal"]) {
        const ns = `tl-${controller}-${i}`;
        await cluster.admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
        for (let k = 0; k < 150; k++) {
          const sa = await cluster.admin.get<KubeObject & { secrets?: unknown[] }>(R.serviceAccounts, ns, "default");
          if (sa?.secrets?.length) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        const resource = controller === "upstream" ? R.appsStatefulSets : R.statefulSets;
        const pods = await startWatch<Pod>(cluster.api, resourcePath(R.pods, ns));
        const sets = await startWatch<SetObject & Watched>(cluster.api, resourcePath(resource, ns));
        const kubelet = runKubelet(cluster.admin, ns);
        const m = setManifest({ name: "web", namespace: ns, replicas: 5, image: "nginx:1.25", container: "nginx", claims: ["data"] });
        const start = Date.now();
        console.log(`start ${new Date(start).toISOString()}`);
        await cluster.admin.create(resource, ns, (controller === "upstream" ? { ...m, apiVersion: "apps/v1", kind: "StatefulSet" } : m) as unknown as KubeObject);
        const end = await waitFor(() => isDone(sets.objects.get("web"), [...pods.objects.values()], 1, 5, "nginx:1.25"), [pods, sets], 60_000, ns);
        await kubelet.stop();
        pods.stop();
        sets.stop();
        await new Promise((r) => setTimeout(r, 1000));
        const rel = (t: number) => String(t - start).padStart(5);
        console.log(`\n=== ${controller} round ${i}: ${end - start} ms`);
        for (let k = 0; k < 5; k++) {
          const name = `web-${k}`;
          const first = (f: (p: Pod) => boolean) => pods.events.find((e) => e.object.metadata?.name === name && f(e.object))?.at;
          const cols = {
            created: first(() => true),
            bound: first((p) => !!p.spec?.nodeName),
            running: first((p) => p.status?.phase === "Running"),
            gate: first((p) => cond(p, "InPlaceUpdateReady")),
            ready: first((p) => cond(p, "Ready")),
          };
          console.log(`${name}: ${Object.entries(cols).map(([k2, v]) => `${k2} ${v === undefined ? "    -" : rel(v)}`).join("  ")}`);
        }
        type Raw = { stage: string; verb: string; requestReceivedTimestamp: string; stageTimestamp: string; user?: { username?: string }; userAgent?: string; objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string } };
        const raw = readFileSync(`${DIR}/audit.log`, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Raw);
        const lines: [number, string][] = [];
        for (const e of raw) {
          const at = Date.parse(e.requestReceivedTimestamp);
          if (e.stage !== "ResponseComplete" || e.objectRef?.namespace !== ns || at < start - 5 || at > end || e.verb === "watch") continue;
          const who = e.user?.username === "ordinal-reconciler" ? "ordinal" : e.userAgent?.includes("statefulset") ? "kcm" : e.user?.username === "admin" ? "admin" : (e.user?.username ?? "?");
          const o = e.objectRef;
          lines.push([at, `${who} ${e.verb} ${o.resource}${o.subresource ? `/${o.subresource}` : ""} ${o.name ?? ""} (done ${rel(Date.parse(e.stageTimestamp))})`]);
        }
        for (const l of readFileSync(`${DIR}/ordinal-serve.log`, "utf8").split("\n")) {
          if (!l.includes(`"${ns}`)) continue;
          const j = JSON.parse(l) as { time: string; msg: string; path?: string; operation?: string; name?: string; ms?: number; subResource?: string; actions?: string[] };
          const at = Date.parse(j.time);
          if (at < start - 5 || at > end) continue;
          lines.push([at, `   serve log: ${j.msg} ${j.path ?? ""} ${j.operation ?? ""}${j.subResource ? `/${j.subResource}` : ""} ${j.name ?? ""} ${j.ms !== undefined ? `${j.ms}ms` : ""}${j.actions ? j.actions.join(",") : ""}`]);
        }
        for (const [at, t] of lines.sort((a, b) => a[0] - b[0])) console.log(`  ${rel(at)} ${t}`);
        await cluster.admin.delete(R.namespaces, undefined, ns);
      }
  } finally {
    await cluster.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
