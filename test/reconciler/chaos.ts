/**
 * The randomized reconcile runs' reconciler: its client goes through the one fault layer
 * (src/sim/faults: faultFetch at the KubeClient seam, the same rules and random mode the fake
 * apiserver's `faults` use), which answers 409/429/500 or drops the connection without applying a
 * request, applies it and loses the response, and at a chosen request "crashes" the reconciler
 * (SimulatedCrash, which nothing catches), as a process dying between two requests.
 * With `cached`, the reconciler reads through the watch cache (`ordinal serve`'s: informers over
 * the same faulty client, a new mirror per "process"), and an invocation runs at once or after
 * the watches caught up, at random: its reads may be stale, as an informer's are.
 */
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getPodRevision, isHealthy } from "../../src/core/pod-state.ts";
import { cachingClient } from "../../src/kube/cached-client.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { Informer } from "../../src/kube/informer.ts";
import { getOrdinal } from "../../src/objects/names.ts";
import { offsetOf, ordinalRange } from "../../src/objects/ordinal-range.ts";
import { MIRRORED } from "../../src/schedule/watch-cache.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { faultFetch } from "../../src/sim/faults/fault-fetch.ts";
import { Faults, SimulatedCrash, type FaultKind } from "../../src/sim/faults/faults.ts";

export { mulberry32 } from "../../src/sim/fake-apiserver/random.ts";

/** The faults of the random mode: conflicts only on writes (Faults never answers a read with 409). */
const CHAOS_KINDS: readonly FaultKind[] = ["conflict", "throttle", "internal", "network", "lost"];

/** Observes every request the server behind the layer applied, with the status it answered. */
type Observe = (method: string, path: string, status: number, body: unknown) => void | Promise<void>;

/**
 * crashingReconciler returns the reconciler's client over `inner` with faults injected (rate
 * 0.08 while `chaos()`), the counts of faults injected per kind, and `invoke`: one reconcile
 * invocation that, while `chaos()`, crashes with chance 0.3 at one of its next 1–12 requests. A
 * crash (or an error escaping the invocation) ends that "process": the next invocation has a new
 * Lease holder identity.
 */
export function crashingReconciler(
  inner: FetchLike,
  o: { random: () => number; chaos: () => boolean; leaseNamespace: string; now: () => Date; observe?: Observe; cached?: boolean },
) {
  const faults = new Faults();
  const injected: Record<string, number> = {};
  const seed = () => Math.floor(o.random() * 2 ** 32);
  faults.random({ seed: seed(), rate: 0.08, kinds: CHAOS_KINDS, when: () => o.chaos() });
  const fetch = faultFetch(inner, faults, {
    after: async (info, outcome) => {
      if (outcome.fault !== undefined) {
        const kind = typeof outcome.fault === "string" ? outcome.fault : String(outcome.fault.status);
        injected[kind] = (injected[kind] ?? 0) + 1;
      }
      if (outcome.applied) await o.observe?.(info.method, info.path, outcome.status, info.body ? JSON.parse(info.body) : undefined);
    },
  });
  const client = createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {}, maxAttempts: 2 });
  let holder = 0;
  const turn = () => new Promise<void>((r) => setTimeout(r, 0));
  let mirror: Informer[] | undefined;
  const stopMirror = async () => {
    await Promise.all((mirror ?? []).map((i) => i.stop()));
    mirror = undefined;
  };
  const invoke = async () => {
    if (o.cached && !mirror) {
      mirror = MIRRORED.map((m) => new Informer(client, { resource: m.resource, labelSelector: m.labelSelector, log: silentLogger, sleep: turn }));
      for (const i of mirror) i.start();
    }
    // Caught up, or not: a pass may read the mirror before the watch brought the latest writes.
    if (mirror && o.random() < 0.7) for (let i = 0; i < 10; i++) await turn();
    const crash = o.chaos() && o.random() < 0.3 ? faults.add({ fault: "crash", skip: Math.floor(o.random() * 12), times: 1 }) : undefined;
    try {
      await runReconcile(mirror ? cachingClient(client, mirror) : client, { log: silentLogger, holder: `h${holder}`, leaseNamespace: o.leaseNamespace, budgetMs: 1, maxPasses: 1, now: o.now });
    } catch (e) {
      if (!(e instanceof SimulatedCrash) && !(e instanceof Error)) throw e;
      holder++;
      // The process died: its mirror with it.
      await stopMirror();
    } finally {
      crash?.remove();
    }
  };
  return { client, faults: injected, invoke, stop: stopMirror };
}

/**
 * convergedTo returns true when a set is at upstream's end state: `spec.replicas` pods, each at
 * one of the set's ordinals (ordinals.start and reserveOrdinals counted: the oracle's own reading
 * is ordinal-range's, the one rule every phase asks), all healthy, those at or above the partition
 * (counted in replicas, Kruise v1.8; none under OnDelete) at the update revision, and a status
 * that counts them for the set's current generation.
 */
export function convergedTo(set: StatefulSet, pods: readonly Pod[]): boolean {
  const replicas = set.spec.replicas;
  const st = set.status;
  const strategy = set.spec.updateStrategy;
  const range = ordinalRange(set.spec);
  const offset = (p: Pod) => offsetOf(range, getOrdinal(p.metadata!.name!));
  const first = strategy.type === "OnDelete" ? replicas : Math.min(strategy.rollingUpdate?.partition ?? 0, replicas);
  return (
    pods.length === replicas &&
    pods.every((p) => offset(p) !== undefined && isHealthy(p)) &&
    pods.filter((p) => offset(p)! >= first).every((p) => getPodRevision(p) === st?.updateRevision) &&
    st?.readyReplicas === replicas &&
    st.replicas === replicas &&
    st.observedGeneration === set.metadata.generation
  );
}
