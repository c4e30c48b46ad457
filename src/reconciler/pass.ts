import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { plan } from "../core/planner.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { describe, executeActions } from "./executor.ts";
import type { Logger } from "./log.ts";

/**
 * One level-triggered pass: list each kind once (not once per set), plan every set, execute its
 * actions in order, stop that set at its first failure. Returns what was done and whether more
 * work is pending (a set waits on pods, or acted and should be looked at again).
 */

export interface PassOptions {
  now: () => Date;
  log: Logger;
  /** Only sets in this namespace (default: all namespaces). */
  namespace?: string;
  /** Only this set (a hint from the webhook), in `namespace`. */
  setName?: string;
}

export interface SetResult {
  set: string;
  actions: string[];
  error?: string;
  waiting: boolean;
}

export interface PassResult {
  sets: SetResult[];
  /** True when another pass soon would make progress. */
  pending: boolean;
  actionCount: number;
}

const byNamespace = <T extends KubeObject>(items: T[]) => {
  const m = new Map<string, T[]>();
  for (const i of items) {
    const ns = i.metadata?.namespace ?? "";
    let list = m.get(ns);
    if (!list) m.set(ns, (list = []));
    list.push(i);
  }
  return m;
};

/** reconcilePass runs one pass over every Ordinal StatefulSet. */
export async function reconcilePass(client: KubeClient, o: PassOptions): Promise<PassResult> {
  const ns = o.namespace;
  const rawSets = await client.list<KubeObject>(R.statefulSets, ns, o.setName ? { fieldSelector: `metadata.name=${o.setName}` } : undefined);
  const result: PassResult = { sets: [], pending: false, actionCount: 0 };
  if (rawSets.length === 0) return result;
  const [pods, claims, revisions] = await Promise.all([
    client.list<Pod & KubeObject>(R.pods, ns),
    client.list<PersistentVolumeClaim & KubeObject>(R.pvcs, ns),
    client.list<ControllerRevision & KubeObject>(R.controllerRevisions, ns),
  ]);
  const podsByNs = byNamespace(pods);
  const claimsByNs = byNamespace(claims);
  const revsByNs = byNamespace(revisions);
  for (const raw of rawSets) {
    const id = `${raw.metadata?.namespace}/${raw.metadata?.name}`;
    const parsed = StatefulSetSchema.safeParse(raw);
    if (!parsed.success) {
      o.log.warn("set skipped: does not parse", { set: id, error: parsed.error.message.slice(0, 500) });
      result.sets.push({ set: id, actions: [], error: "invalid spec", waiting: false });
      continue;
    }
    const set: StatefulSet = parsed.data;
    const setNs = set.metadata.namespace ?? "";
    const now = o.now();
    const p = plan({
      set,
      pods: podsByNs.get(setNs) ?? [],
      claims: claimsByNs.get(setNs) ?? [],
      revisions: revsByNs.get(setNs) ?? [],
      now,
    });
    const { done, error } = await executeActions(client, set, p.actions, now, o.log);
    const names = p.actions.slice(0, done).map(describe);
    if (names.length) o.log.info("set reconciled", { set: id, actions: names, error: error?.message });
    result.sets.push({ set: id, actions: names, error: error?.message, waiting: p.waiting });
    result.actionCount += done;
    if (p.waiting || error || done > 0) result.pending = true;
  }
  return result;
}
