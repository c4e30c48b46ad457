/**
 * A simulated in-place release on the fake apiserver with the kubelet player and a simulated
 * clock: one tick = one reconcile pass, one kubelet step, one simulated second. Used by the
 * pre-warm pass tests and by `npm run bench` (rollout time with and without pre-warm).
 */
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { PULLER_LABEL } from "../../src/objects/constants.ts";
import { isRunningAndReady } from "../../src/core/pod-state.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer, type KubeletOptions } from "../../src/sim/kubelet.ts";

export const NS = "default";

export interface ReleaseOptions {
  replicas: number;
  /** Seconds a pull of an image the node lacks takes. */
  pullSeconds: number;
  /** imagePrewarm.parallelism; undefined: no pre-warm. */
  prewarm?: number;
  maxUnavailable?: number;
  /** Record every tick (tests); off for benchmarks. */
  trace?: boolean;
  kubelet?: Partial<KubeletOptions>;
  maxTicks?: number;
}

export interface Tick {
  t: number;
  pods: Pod[];
  pullers: Pod[];
  lists: ImageList[];
}

export const setObject = (o: ReleaseOptions, image: string) => ({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "StatefulSet",
  metadata: { name: "web", namespace: NS },
  spec: {
    replicas: o.replicas,
    serviceName: "web",
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image }] } },
    updateStrategy: {
      type: "RollingUpdate",
      rollingUpdate: {
        podUpdatePolicy: "InPlaceIfPossible",
        ...(o.maxUnavailable ? { maxUnavailable: o.maxUnavailable } : {}),
        ...(o.prewarm ? { imagePrewarm: { parallelism: o.prewarm } } : {}),
      },
    },
  },
});

/** newReleaseSim returns a simulated cluster (nodes node-0…, one per replica) and its tick driver. */
export function newReleaseSim(o: ReleaseOptions) {
  let clock = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: [NS] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const nodes = Array.from({ length: o.replicas }, (_, i) => `node-${i}`);
  const kubelet = new KubeletPlayer(client, { namespace: NS, now, nodes, pullSeconds: o.pullSeconds, ...o.kubelet });
  const trace: Tick[] = [];
  let t = 0;
  const pods = async () => (await client.list<Pod>(R.pods, NS)).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  const tick = async () => {
    await reconcilePass(client, { now, log: silentLogger });
    await kubelet.step();
    clock += 1000;
    t++;
    if (o.trace) {
      const all = await pods();
      trace.push({
        t,
        pods: all.filter((p) => !p.metadata?.labels?.[PULLER_LABEL]),
        pullers: all.filter((p) => p.metadata?.labels?.[PULLER_LABEL]),
        lists: await client.list<ImageList>(R.imageLists, NS),
      });
    }
  };
  /** runUntil ticks until `done` holds (checked after each tick); returns the ticks taken. */
  const runUntil = async (done: () => Promise<boolean>, what: string): Promise<number> => {
    const start = t;
    for (let i = 0; i < (o.maxTicks ?? 2000); i++) {
      await tick();
      if (await done()) return t - start;
    }
    throw new Error(`simulation: ${what} not reached in ${o.maxTicks ?? 2000} ticks`);
  };
  /** releasedTo is true when every pod runs `image`, Ready, and the set reports them all updated and ready. */
  const releasedTo = (image: string) => async () => {
    const ps = (await pods()).filter((p) => !p.metadata?.labels?.[PULLER_LABEL]);
    const set = await client.get<StatefulSet>(R.statefulSets, NS, "web");
    return (
      ps.length === o.replicas &&
      ps.every((p) => p.spec?.containers[0].image === image && isRunningAndReady(p) && p.status?.containerStatuses?.[0]?.image === image) &&
      set?.status?.updatedReplicas === o.replicas &&
      set.status.readyReplicas === o.replicas &&
      set.status.currentRevision === set.status.updateRevision
    );
  };
  return { fake, client, kubelet, trace, now, pods, tick, runUntil, releasedTo, nodes, advance: (s: number) => (clock += s * 1000) };
}

/**
 * simulateRelease creates the set at `from`, waits until it runs, then changes the image to `to`
 * and returns the simulated seconds until the release is complete (and the simulation).
 */
export async function simulateRelease(o: ReleaseOptions, from = "nginx:1.25", to = "nginx:1.26") {
  const sim = newReleaseSim(o);
  await sim.client.create(R.statefulSets, NS, setObject(o, from));
  await sim.runUntil(sim.releasedTo(from), `set running ${from}`);
  sim.trace.length = 0;
  await sim.client.patch(R.statefulSets, NS, "web", { spec: { template: setObject(o, to).spec.template } }, "merge");
  const seconds = await sim.runUntil(sim.releasedTo(to), `release to ${to}`);
  return { seconds, sim };
}
