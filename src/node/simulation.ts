/**
 * The embedded simulated cluster of `npm start` without a cluster: the in-process fake
 * apiserver, a kubelet player stepping pods, and a demo set that is created and then rolled out
 * to a new image, with one line printed per change so a newcomer can watch it happen.
 */
import type { Pod } from "../api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { rolloutState } from "../core/rollout-state.ts";
import { getPodRevision, isRunningAndReady } from "../core/pod-state.ts";
import type { KubeClient, WatchClient } from "../kube/client.ts";
import { createKubeClient } from "../kube/http.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { createFakeApiServer } from "../sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../sim/kubelet.ts";
import { INSTALL_NAMESPACE } from "../deploy/identity.ts";

const DEMO_SET = {
  apiVersion: "apps.ordinal.dev/v1",
  kind: "StatefulSet",
  metadata: { name: "web", namespace: "default" },
  spec: {
    replicas: 3,
    serviceName: "web",
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] } },
    volumeClaimTemplates: [{ metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
  },
};

/** A running simulated cluster: its client, and stop. */
export interface Simulation {
  client: KubeClient & WatchClient;
  stop: () => void;
}

/** startSimulation starts the simulated cluster and the demo; returns its client and a stop function. */
export async function startSimulation(log: Logger, o: { stepMs?: number; print?: (line: string) => void } = {}): Promise<Simulation> {
  const fake = createFakeApiServer();
  const client = createKubeClient({ baseUrl: "https://simulated.cluster", fetch: fake.fetch });
  const kubeletClient = createKubeClient({ baseUrl: "https://simulated.cluster", fetch: fake.fetch });
  const kubelet = new KubeletPlayer(kubeletClient, { namespace: "default" });
  const print = o.print ?? ((l: string) => console.log(l));
  await client.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: INSTALL_NAMESPACE } });
  await client.create(R.statefulSets, "default", DEMO_SET);
  print("simulation: created StatefulSet default/web (3 replicas, nginx:1.25, PVC template www)");
  let last = "";
  let rolled = false;
  let done = false;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    try {
      await kubelet.step();
      const pods = (await kubeletClient.list<Pod>(R.pods, "default")).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
      const set = await kubeletClient.get<StatefulSet>(R.statefulSets, "default", "web");
      const state = rolloutState(StatefulSetSchema.parse(set), pods, new Date());
      const line = `web: ${state.message} [${pods
        .map((p) => `${p.metadata!.name} ${p.metadata?.deletionTimestamp ? "Terminating" : isRunningAndReady(p) ? "Ready" : (p.status?.phase ?? "?")} ${p.spec!.containers[0].image} ${getPodRevision(p)}`)
        .join(", ")}]`;
      if (line !== last) print((last = line));
      // Done only as `ordinal rollout status` says: the change observed (observedGeneration), every pod ready and updated.
      const converged = state.done && pods.length === 3 && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp);
      if (converged && !rolled) {
        rolled = true;
        await kubeletClient.patch(R.statefulSets, "default", "web", { spec: { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.26" }] } } } }, "merge");
        print("simulation: changed the image to nginx:1.26; rolling update from web-2 down to web-0");
      } else if (converged && rolled && !done && pods.every((p) => p.spec!.containers[0].image === "nginx:1.26")) {
        done = true;
        print("simulation: rollout complete; the simulated cluster keeps running (Ctrl-C to stop)");
      }
    } catch (e) {
      log.warn("simulation step failed", { error: e instanceof Error ? e.message : String(e) });
    }
    if (!stopped) setTimeout(() => void tick(), o.stepMs ?? 250);
  };
  void tick();
  return { client, stop: () => void (stopped = true) };
}
