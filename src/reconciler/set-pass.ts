import type { Pod } from "../api/k8s.ts";
import { StatefulSetSchema, type StatefulSet, type StatefulSetStatus } from "../api/statefulset.ts";
import { claimsToExpand, type ExpansionByClass } from "../core/claim-update.ts";
import { controllerOf } from "../core/ownership.ts";
import { plan, type Plan } from "../core/planner.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import type { IdentityRefusal } from "../objects/reconciler-identity.ts";
import { compileSelector, selectorToString } from "../validation/labels.ts";
import type { EventRecorder } from "./events.ts";
import { describe, executePlan, type Execution } from "./executor.ts";
import { listSelected, type OrphanLookup } from "./orphan-lookup.ts";
import type { PassIndex, SetObjects } from "./pass-index.ts";
import { LIST_PAGE_SIZE } from "./pass-groups.ts";
import { logRolloutChange } from "./rollout-log.ts";
import { PlanFailed } from "./set-error.ts";
import { writeSlice } from "./write-slice.ts";

/** What a pass gives the pass of one of its sets. */
export interface SetPassOptions {
  now: () => Date;
  log: Logger;
  /** The set a targeted pass is for (its orphan lookup is `orphans`). */
  setName?: string;
  orphans?: OrphanLookup;
  storageClasses: StorageClassReader;
}

export interface SetResult {
  set: string;
  actions: string[];
  error?: string;
  /** Writes the webhook refused for the reconciler's identity, and the first refusal (whom it expects, who we are). */
  identityRefusals?: number;
  identityRefusal?: IdentityRefusal;
  waiting: boolean;
  /** The plan asked to be looked at again after this many milliseconds. */
  requeueAfterMs?: number;
}

/** StorageClassReader returns the cluster's StorageClasses (name → allowVolumeExpansion), read once per pass; undefined when they cannot be read. */
export type StorageClassReader = () => Promise<ExpansionByClass | undefined>;

/**
 * storageClassReader returns a StorageClassReader that lists the StorageClasses once, on first
 * use, for the whole pass. A failed list (e.g. an install whose RBAC predates the storageclasses
 * grant) is logged and gives undefined: no claim is expanded, nothing else stops.
 */
export function storageClassReader(client: KubeClient, log: Logger): StorageClassReader {
  let loaded: Promise<ExpansionByClass | undefined> | undefined;
  return () =>
    (loaded ??= client.list<KubeObject & { allowVolumeExpansion?: boolean }>(R.storageClasses, undefined, { limit: LIST_PAGE_SIZE }).then(
      (classes) => new Map(classes.map((c) => [c.metadata?.name ?? "", c.allowVolumeExpansion === true])),
      (e: unknown) => {
        log.warn("cannot read StorageClasses: claims are not expanded this pass", { error: e instanceof Error ? e.message : String(e) });
        return undefined;
      },
    ));
}

/**
 * withSelected returns the set's objects plus the pods and revisions of its namespace that its
 * selector matches and the pass did not read (they lack Ordinal's label: an apps/v1 set's, left
 * by `kubectl delete --cascade=orphan`). The planner adopts or ignores them as upstream would.
 */
async function withSelected(client: KubeClient, set: StatefulSet, objects: SetObjects, early: OrphanLookup | undefined): Promise<SetObjects> {
  const labelSelector = selectorToString(set.spec.selector);
  if (!labelSelector) return objects;
  const ns = set.metadata.namespace;
  const look = () => listSelected(client, ns, labelSelector);
  // The lookup the scheduler started early, when it used this selector (a failed one is sent again).
  const { pods, revisions } = early?.selector === labelSelector ? await early.found.catch(look) : await look();
  const unseen = <T extends { metadata?: { uid?: string } }>(seen: T[], found: T[]) => {
    const uids = new Set(seen.map((o) => o.metadata?.uid));
    return found.filter((o) => !uids.has(o.metadata?.uid));
  };
  return { ...objects, pods: [...objects.pods, ...unseen(objects.pods, pods)], revisions: [...objects.revisions, ...unseen(objects.revisions, revisions)] };
}

/**
 * reconcileSet plans and executes one set; when a create met a pod that exists unseen (no
 * label), it reads those pods by name and plans the set once more with them (adoption).
 */
export async function reconcileSet(
  client: KubeClient,
  set: StatefulSet,
  index: PassIndex,
  o: SetPassOptions,
  events: EventRecorder,
): Promise<{ result: SetResult; done: number }> {
  let objects: SetObjects = index.objectsFor(set);
  // Only a set with a claim to grow (OnPodRollingUpdate) needs the StorageClasses: one list per pass at most.
  const classes = claimsToExpand(set, objects.claims) ? await o.storageClasses() : undefined;
  const id = `${set.metadata.namespace}/${set.metadata.name}`;
  const ns = set.metadata.namespace ?? "";
  const matches = compileSelector(set.spec.selector);
  const names: string[] = [];
  const before = set.status;
  /** The last status this set's plans wrote: its rollout state is logged when it changes. */
  let written: StatefulSetStatus | undefined;
  let done = 0;
  if (!objects.revisions.some((r) => controllerOf(r)?.uid === set.metadata.uid)) objects = await withSelected(client, set, objects, o.setName === set.metadata.name ? o.orphans : undefined);
  let p: Plan;
  let ex: Execution;
  // Plans at most twice: the second time with the pods the first met unseen.
  for (let plans = 1; ; plans++) {
    try {
      p = plan({ set, ...objects, now: o.now(), matches, storageClasses: classes });
    } catch (e) {
      throw new PlanFailed(e);
    }
    ex = await executePlan(client, set, p, o.log, events, writeSlice(() => o.now().getTime()));
    for (const l of ex.imageLists) index.putImageList(l);
    names.push(...ex.done.map(describe));
    written = ex.done.filter((a) => a.type === "updateStatus").pop()?.status ?? written;
    done += ex.done.length;
    if (!ex.unseenPods.length || plans === 2) break;
    const found = await Promise.all(ex.unseenPods.map((n) => client.get<Pod & KubeObject>(R.pods, ns, n)));
    const extra = found.filter((p): p is Pod & KubeObject => !!p);
    if (!extra.length) break;
    o.log.info("pods found without Ordinal's label", { set: id, pods: extra.map((p) => p.metadata?.name) });
    // The set's status may have been written above: plan from the stored one.
    const fresh = await client.get<KubeObject>(R.statefulSets, ns, set.metadata.name ?? "");
    const reparsed = fresh && StatefulSetSchema.safeParse(fresh);
    if (!reparsed?.success) break;
    set = reparsed.data;
    objects = { ...objects, pods: [...objects.pods, ...extra], imageLists: index.imageListsIn(ns) };
  }
  const error = ex.error?.message;
  if (names.length && error) o.log.warn("set reconciled", { set: id, actions: names, error });
  else if (names.length) o.log.debug?.("set reconciled", { set: id, actions: names });
  logRolloutChange(o.log, id, before, written);
  const result: SetResult = { set: id, actions: names, error, waiting: p.waiting };
  if (p.requeueAfterMs !== undefined) result.requeueAfterMs = p.requeueAfterMs;
  if (ex.identityRefusal) Object.assign(result, { identityRefusals: ex.identityRefusals, identityRefusal: ex.identityRefusal });
  return { result, done };
}
