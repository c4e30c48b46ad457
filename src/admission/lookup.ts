import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { LookupStatefulSet } from "./mutate-pods.ts";

/** How long a cached set serves pods that name its uid (bounds how stale the range warning gets). */
export const SET_CACHE_TTL_MS = 10_000;
/** Sets remembered at once (oldest dropped first). */
const SET_CACHE_SIZE = 256;

/**
 * Set GETs in flight at once (lookups of a set already being read join its GET and count nothing):
 * forged reviews naming many sets cost at most this many apiserver reads at a time.
 */
export const MAX_SET_READS_IN_FLIGHT = 16;

/**
 * Lookups waiting for one of those reads, at most (beyond, refused: try again). They wait in one
 * queue per namespace, served in turn, so forged reviews naming many sets of a few namespaces
 * delay a genuine pod of another namespace by a read or so, never refuse it.
 */
const MAX_SET_READS_QUEUED = 1024;

/**
 * SetLookup is the mutating hook's set lookup with its cache, which `remember` primes with sets
 * read from the apiserver (Node: the reconcile thread's watch sees each new set appear).
 */
export type SetLookup = LookupStatefulSet & {
  /**
   * remember caches a set as the apiserver stores it (never one a review carried: anyone who reaches
   * the webhooks can send a review, and a remembered set is what pods naming its uid are given), so
   * the reconciler's first pod of a new set costs no GET in the mutating hook. A set without a uid
   * or one that does not parse is ignored (the lookup GETs it as before).
   */
  remember(stored: unknown): void;
};

/**
 * lookupStatefulSetWith returns the mutating hook's set lookup over a KubeClient: a GET, parsed
 * with defaults filled (as the planner sees the set). A set that does not parse throws (why: in the
 * error's cause, which the server logs), which the HTTP layer turns into a refusal. When the pod names the set's uid in its controller reference
 * (every pod the reconciler creates), a set read in the last SET_CACHE_TTL_MS with that uid is
 * reused: name, namespace and serviceName never change for one uid (a recreated set has a new uid,
 * so it is fetched). volumeClaimTemplates may gain a template (issue 23): a pod the reconciler
 * builds already carries the new template's volume, which the identity patch keeps (it replaces
 * only the volumes of the templates it knows), so a stale cached set costs nothing there; a pod
 * made by hand within the time-to-live of a template's addition gets it when next recreated.
 * Lookups of one set while its GET is in flight (or queued) share that GET; at most `maxReads`
 * GETs are in flight at once. A lookup of another set beyond them waits in its namespace's queue;
 * the namespaces' queues take turns (round robin) as reads return. Over MAX_SET_READS_QUEUED
 * waiting, a lookup throws (the pod is refused: try again).
 */
export function lookupStatefulSetWith(client: KubeClient, now: () => number = Date.now, maxReads = MAX_SET_READS_IN_FLIGHT, maxQueued = MAX_SET_READS_QUEUED): SetLookup {
  const cache = new Map<string, { set: StatefulSet; at: number }>();
  const keep = (key: string, set: StatefulSet) => {
    cache.delete(key);
    if (cache.size >= SET_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, { set, at: now() });
  };
  // Lookups of one set at once share its GET: a burst of pods (or of forged reviews naming it) reads it once.
  const pending = new Map<string, Promise<StatefulSet | undefined>>();
  let reads = 0;
  // Lookups waiting for a read, per namespace; the Map's order is the turn (a served namespace goes last).
  const queued = new Map<string, (() => void)[]>();
  let queuedCount = 0;
  const begin = (namespace: string, name: string, key: string) => {
    reads++;
    return read(namespace, name, key).finally(() => {
      reads--;
      pending.delete(key);
      startQueued();
    });
  };
  const startQueued = () => {
    while (reads < maxReads && queued.size > 0) {
      const [namespace, starts] = queued.entries().next().value!;
      queued.delete(namespace);
      const start = starts.shift()!;
      queuedCount--;
      if (starts.length > 0) queued.set(namespace, starts);
      start();
    }
  };
  const lookup: LookupStatefulSet = (namespace, name, uid) => {
    const key = `${namespace}/${name}`;
    const hit = cache.get(key);
    if (uid && hit && hit.set.metadata.uid === uid && now() - hit.at < SET_CACHE_TTL_MS) return Promise.resolve(hit.set);
    let p = pending.get(key);
    if (p) return p;
    if (reads < maxReads) p = begin(namespace, name, key);
    // Over the queue's bound the lookup throws: the hook refuses the pod (500, mutatePodFailed) and its
    // creator retries, never admits it without its identity as for a set that does not exist.
    else if (queuedCount >= maxQueued) return Promise.reject(new Error(`${reads} StatefulSet reads are in flight and ${queuedCount} waiting already: try again`));
    else {
      queuedCount++;
      p = new Promise<StatefulSet | undefined>((resolve, reject) => {
        const starts = queued.get(namespace) ?? [];
        starts.push(() => begin(namespace, name, key).then(resolve, reject));
        queued.set(namespace, starts);
      });
    }
    pending.set(key, p);
    return p;
  };
  const read = async (namespace: string, name: string, key: string): Promise<StatefulSet | undefined> => {
    const raw = await client.get(R.statefulSets, namespace, name);
    if (!raw) {
      cache.delete(key);
      return undefined;
    }
    const parsed = StatefulSetSchema.safeParse(raw);
    // The reason stays in the server's log: the answer goes to whoever sent the review (G7 of issue 35).
    if (!parsed.success) throw new Error(`StatefulSet ${namespace}/${name} as stored does not parse (the server's log says why)`, { cause: parsed.error });
    keep(key, parsed.data);
    return parsed.data;
  };
  const remember = (stored: unknown) => {
    const parsed = StatefulSetSchema.safeParse(stored);
    if (!parsed.success) return;
    const { uid, namespace, name } = parsed.data.metadata;
    if (uid && namespace && name) keep(`${namespace}/${name}`, parsed.data);
  };
  return Object.assign(lookup, { remember });
}
