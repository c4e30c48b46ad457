import type { ImageList } from "../api/imagelist.ts";
import type { ControllerRevision, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { assertNever, type Action } from "../core/actions.ts";
import type { Plan } from "../core/planner.ts";
import { statusAfter, statusChanged } from "../core/status.ts";
import { withEvictionsWaiting } from "../core/eviction-wait.ts";
import type { CreateRefusal } from "../core/create-refusal.ts";
import { revisionKey } from "../core/revisions.ts";
import { ensureGateCondition } from "../core/replica-fixes.ts";
import { ApiError, isAlreadyExists, isCreateRefusal, isDisruptionBudgetRefusal, type KubeClient } from "../kube/client.ts";
import {
  FAILED_REVISIONS_ANNOTATION,
  INPLACE_READY_CONDITION,
  INPLACE_STATE_ANNOTATION,
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  SWITCHOVER_REQUEST_ANNOTATION,
} from "../objects/constants.ts";
import { identityMismatchMessage, parseIdentityRefusal, type IdentityRefusal } from "../objects/reconciler-identity.ts";
import { namespaceOf, nameOf } from "../objects/names.ts";
import { R } from "../kube/resources.ts";
import type { EventRecorder } from "./events.ts";
import { evictPod } from "./evict.ts";
import { budgetWords, failureEvent } from "./failure-event.ts";
import type { Logger } from "../log/log.ts";
import { MAX_WRITE_BATCH } from "./write-slice.ts";

/**
 * executePlan carries out a plan's writes with upstream's rules:
 * 1. adoption, release and revision writes first, in order; a failure stops the set (no status:
 *    upstream returns before computing one). When they only create revisions, the first pod's
 *    claims are sent beside them (earlyClaims), its pod after both;
 * 2. pod and claim writes, grouped per pod: OrderedReady in order, stopping at the first failure;
 *    Parallel in slow-start batches (1, 2, 4, … up to MAX_WRITE_BATCH pods at once, upstream's slowStartBatch),
 *    stopping after a batch with a failure, or once `sliceSpent` says the set had its share of the
 *    writes (write-slice.ts: the rest is the next pass's, so one set never holds the others back);
 * 3. history truncation and pre-warm ImageList writes (failures logged, never stopping the set);
 * 4. the status, always, when it changed: computed from the writes actually done (statusAfter).
 * One event per pod or claim write (success or failure), through the recorder. Returns the
 * actions done, the first error, and pods that already existed unseen (created → AlreadyExists).
 */

export interface Execution {
  done: Action[];
  error?: Error;
  /** Names of pods whose create met AlreadyExists: they exist but the pass did not see them. */
  unseenPods: string[];
  /** ImageLists as written (pre-warm), for the pass's index: the next set plans from them. */
  imageLists: ImageList[];
  /** Chosen pods whose eviction a PodDisruptionBudget refused this pass ("pod web-2: The disruption budget …"): asked again next pass. */
  evictionsWaiting: string[];
  /** Writes refused by Ordinal's webhook because the reconciler is not who it expects, and the first such refusal. */
  identityRefusals: number;
  identityRefusal?: IdentityRefusal;
  /** The first pod or claim create the apiserver refused (written into the status: core/create-refusal.ts). */
  createRefusal?: CreateRefusal;
}

type Unit = Action[];

export async function executePlan(
  client: KubeClient,
  set: StatefulSet,
  plan: Plan,
  log: Logger,
  events: EventRecorder,
  /** Asked after each batch of pod writes: true leaves the set's remaining units to its next pass (write-slice.ts). */
  sliceSpent: () => boolean = () => false,
): Promise<Execution> {
  const id = `${namespaceOf(set)}/${nameOf(set)}`;
  const ex: Execution = { done: [], unseenPods: [], imageLists: [], identityRefusals: 0, evictionsWaiting: [] };
  const fail = (a: Action, e: unknown): Error => {
    const error = e instanceof Error ? e : new Error(String(e));
    const refusal = e instanceof ApiError ? parseIdentityRefusal(e.message) : undefined;
    // An identity refusal's error line names the set and the action: it is the only line.
    if (refusal) reportIdentityRefusal(set, a, refusal, log, events, ex);
    else log.warn("action failed", { set: id, action: describe(a), error: error.message });
    const failure = failureEvent(a, nameOf(set), error);
    // The "action failed" line above says it: the event gets no log line of its own.
    if (failure) events.record(set, "Warning", failure.reason, failure.message, true);
    if (a.type === "createPod" && isAlreadyExists(e)) ex.unseenPods.push(nameOf(a.pod));
    if ((a.type === "createPod" || a.type === "createClaim") && isCreateRefusal(e)) ex.createRefusal ??= a.type === "createPod" ? { pod: nameOf(a.pod), message: e.message } : { pod: a.pod, claim: nameOf(a.claim), message: e.message };
    if (a.type === "deletePod" && isDisruptionBudgetRefusal(e)) ex.evictionsWaiting.push(`pod ${a.name}: ${budgetWords(e)}`);
    ex.error ??= error;
    return error;
  };
  /** run does one action; false when it failed. */
  const run = async (a: Action): Promise<boolean> => {
    try {
      await execute(client, set, a, events, ex);
      ex.done.push(a);
      return true;
    } catch (e) {
      fail(a, e);
      return false;
    }
  };

  // Ownership and revision writes come first; history, pre-warm and the status after the pods. The
  // plan's own updateStatus is not run: the status written is computed from the writes done.
  const PRELUDE = new Set<Action["type"]>(["adoptPod", "releasePod", "adoptRevision", "releaseRevision", "createRevision", "updateRevisionNumber"]);
  const LATER = new Set<Action["type"]>(["deleteRevision", "writeImageList", "updateStatus"]);
  const prelude = plan.actions.filter((a) => PRELUDE.has(a.type));
  const units = podUnits(plan.actions.filter((a) => !PRELUDE.has(a.type) && !LATER.has(a.type)));
  const runUnit = async (u: Unit): Promise<boolean> => {
    for (const a of u) if (!(await run(a))) return false;
    return true;
  };
  // A new revision and the first pod's claims are sent together (a new set's first pass: one round
  // trip less before its first pod); the pod itself still waits for both, as upstream's does.
  const early = earlyClaims(prelude, units[0]);
  const [preluded, claimed] = await Promise.all([runUnit(prelude), runUnit(early)]);
  if (!preluded) return ex;
  // A claim that failed fails the first unit: no pod write follows (OrderedReady and Parallel's first batch both stop there).
  if (!claimed) units.length = 0;
  else if (early.length) units[0] = units[0].slice(early.length);
  if (plan.monotonic) {
    for (const u of units) if (!(await runUnit(u)) || sliceSpent()) break;
  } else {
    for (let i = 0, size = 1; i < units.length; i += size, size = Math.min(size * 2, MAX_WRITE_BATCH)) {
      const results = await Promise.all(units.slice(i, i + size).map(runUnit));
      if (results.includes(false) || sliceSpent()) break;
    }
  }

  for (const a of plan.actions) if (a.type === "deleteRevision") await run(a);
  // Pre-warm writes never hold the set's pods back; what they wrote goes to the pass's index.
  for (const a of plan.actions) if (a.type === "writeImageList") await run(a);

  const status = withEvictionsWaiting(statusAfter(set, plan.basis, ex.done, ex.createRefusal), ex.evictionsWaiting);
  if (statusChanged(set.status, status)) await run({ type: "updateStatus", status });
  return ex;
}

/**
 * reportIdentityRefusal says loudly that the webhook refused a write for the reconciler's
 * identity: an error line naming both identities and the fix, and a Warning event
 * (ReconcilerIdentityMismatch) on the set; the execution counts it (metrics, readiness).
 */
function reportIdentityRefusal(set: StatefulSet, a: Action, refusal: IdentityRefusal, log: Logger, events: EventRecorder, ex: Execution): void {
  const message = identityMismatchMessage(refusal);
  log.error(message, { set: `${namespaceOf(set)}/${nameOf(set)}`, action: describe(a), reconciler: refusal.actual, expected: refusal.expected });
  events.record(set, "Warning", "ReconcilerIdentityMismatch", message, true);
  ex.identityRefusals++;
  ex.identityRefusal ??= refusal;
}

/**
 * earlyClaims returns the claims that lead the first pod unit when the prelude only creates
 * revisions: they need nothing the revision gives (a claim's name and spec come from the set's
 * template and the ordinal), so they are sent beside it. With adoptions or releases in the prelude
 * nothing is sent early: those decide which pods are the set's.
 */
function earlyClaims(prelude: Action[], first: Unit | undefined): Action[] {
  if (!first || prelude.length === 0 || !prelude.every((a) => a.type === "createRevision")) return [];
  const n = first.findIndex((a) => a.type !== "createClaim");
  return first.slice(0, n === -1 ? first.length : n);
}

/** podUnits groups consecutive actions about the same pod (its claims, then the pod) into units. */
function podUnits(actions: Action[]): Unit[] {
  const units: Unit[] = [];
  let last: string | undefined;
  for (const a of actions) {
    const pod = podOf(a);
    if (pod !== undefined && pod === last) units[units.length - 1].push(a);
    else units.push([a]);
    last = pod;
  }
  return units;
}

function podOf(a: Action): string | undefined {
  switch (a.type) {
    case "createClaim":
    case "setClaimOwners":
    case "expandClaim":
      return a.pod;
    case "createPod":
      return nameOf(a.pod);
    case "deletePod":
    case "repairPodLabels":
    case "setPodCondition":
    case "updatePodInPlace":
    case "clearInPlaceState":
    case "setLifecycleState":
    case "setSwitchoverRequest":
      return a.name;
    default:
      return undefined;
  }
}

async function execute(client: KubeClient, set: StatefulSet, a: Action, events: EventRecorder, ex: Execution): Promise<void> {
  const ns = set.metadata.namespace;
  const setName = nameOf(set);
  switch (a.type) {
    case "createRevision":
      try {
        await client.create(R.controllerRevisions, ns, a.revision);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        // Upstream's CreateControllerRevision: a revision of that name with the same data is the
        // one wanted (done); only one that differs is a hash collision, and then collisionCount is
        // bumped so the next plan hashes differently.
        const existing = await client.get<ControllerRevision>(R.controllerRevisions, ns, nameOf(a.revision));
        if (existing && revisionKey(existing.data) === revisionKey(a.revision.data)) return;
        await client.patch(R.statefulSets, ns, setName, { status: { collisionCount: (set.status?.collisionCount ?? 0) + 1 } }, "merge", "status");
        throw e;
      }
      return;
    case "updateRevisionNumber":
      await client.patch(R.controllerRevisions, ns, a.name, { revision: a.revision }, "merge");
      return;
    case "deleteRevision":
      await client.delete(R.controllerRevisions, ns, a.name, a.uid ? { preconditions: { uid: a.uid } } : undefined);
      return;
    case "adoptPod":
    case "releasePod":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "adoptRevision":
    case "releaseRevision":
      await client.patch(R.controllerRevisions, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "createClaim":
      try {
        await client.create(R.pvcs, ns, a.claim);
        events.record(set, "Normal", "SuccessfulCreate", `create Claim ${nameOf(a.claim)} Pod ${a.pod} in StatefulSet ${setName} success`);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    case "setClaimOwners":
      await client.patch(R.pvcs, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "expandClaim":
      // The uid is the precondition: a claim deleted and made again since the plan is not grown blindly.
      await client.patch(R.pvcs, ns, a.name, { metadata: { uid: a.uid }, spec: { resources: { requests: { storage: a.storage } } } }, "merge");
      events.record(set, "Normal", "SuccessfulResize", `resize Claim ${a.name} Pod ${a.pod} in StatefulSet ${setName} to ${a.storage} success`);
      return;
    case "createPod": {
      const created = await client.create<Pod>(R.pods, ns, a.pod);
      events.record(set, "Normal", "SuccessfulCreate", `create Pod ${nameOf(a.pod)} in StatefulSet ${setName} successful`);
      await openGate(client, ns, created);
      return;
    }
    case "deletePod":
      // A chosen pod is evicted, so PodDisruptionBudgets hold (evict.ts); a pod Ordinal replaces is deleted, as upstream.
      if (a.reason === "specifiedDelete") await evictPod(client, ns, a.name, a.uid, a.resourceVersion);
      else await client.delete(R.pods, ns, a.name, { preconditions: a.resourceVersion ? { uid: a.uid, resourceVersion: a.resourceVersion } : { uid: a.uid } });
      if (a.reason === "failed") events.record(set, "Warning", "RecreatingFailedPod", `StatefulSet ${ns}/${setName} is recreating failed Pod ${a.name}`);
      else events.record(set, "Normal", "SuccessfulDelete", `delete Pod ${a.name} in StatefulSet ${setName} successful`);
      return;
    case "repairPodLabels":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, labels: a.labels } }, "merge");
      return;
    case "setPodCondition":
      await setPodConditions(client, ns, a);
      return;
    case "updatePodInPlace":
      await client.patch(R.pods, ns, a.name, a.patch, "strategic");
      events.record(set, "Normal", "SuccessfulUpdatePodInPlace", `successfully update pod ${a.name} in-place(revision ${a.revision})`);
      return;
    case "clearInPlaceState":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, annotations: { [INPLACE_STATE_ANNOTATION]: null } } }, "merge");
      return;
    case "setLifecycleState": {
      const metadata: Record<string, unknown> = {
        uid: a.uid,
        resourceVersion: a.resourceVersion,
        labels: { ...a.labels, [LIFECYCLE_STATE_LABEL]: a.state },
        annotations: { [LIFECYCLE_TIMESTAMP_ANNOTATION]: a.time },
      };
      if (a.finalizers) metadata.finalizers = a.finalizers;
      await client.patch(R.pods, ns, a.name, { metadata }, "merge");
      events.record(set, "Normal", "LifecycleStateChanged", `pod ${a.name} lifecycle state ${a.state}`);
      return;
    }
    case "setSwitchoverRequest":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, resourceVersion: a.resourceVersion, annotations: { [SWITCHOVER_REQUEST_ANNOTATION]: a.at } } }, "merge");
      events.record(set, "Normal", a.reason, a.message);
      return;
    case "updateStatus":
      await client.patch(R.statefulSets, ns, setName, { status: statusPatch(set, a.status) }, "merge", "status");
      return;
    case "event":
      events.record(set, a.eventType, a.reason, a.message);
      return;
    case "rollbackTemplate":
      await client.patch(R.statefulSets, ns, setName, a.patch, "json");
      events.record(
        set,
        "Warning",
        "RolledBack",
        `StatefulSet ${ns}/${setName} rolled back from revision ${a.from} (ProgressDeadlineExceeded) to revision ${a.to}, the last fully available; ${a.from} is recorded in ${FAILED_REVISIONS_ANNOTATION}`,
      );
      return;
    case "writeImageList":
      ex.imageLists.push(
        a.create ? await client.create<ImageList>(R.imageLists, ns, a.create) : await client.patch<ImageList>(R.imageLists, ns, a.node, a.patch, "merge"),
      );
      return;
    default:
      // Every action has its case: a new one without a case does not compile here.
      return assertNever(a);
  }
}

/**
 * openGate sets the InPlaceUpdateReady condition True on a pod just created with the gate, from
 * the create's answer, so the kubelet's first status can already say Ready; otherwise the pod
 * waits for the next pass to set it, and the kubelet's step that starts it says Ready False (a
 * step lost). A strategic merge patch of the one condition (pods' conditions merge by type), its
 * uid as the precondition: a binding or a status write that came between the create and this
 * (a scheduler, or a kubelet, is often that fast) neither makes it conflict, as a resourceVersion
 * precondition did, nor is overwritten (a merge patch replaces the whole list). Only the reconciler
 * writes this condition (the webhook refuses anyone else), and the pod was created without it
 * this very moment. Best effort: a failure is left to the next pass, whose plan sets it
 * (replica-fixes.ts: ensureGateCondition). The condition's time is the pod's creation.
 */
async function openGate(client: KubeClient, ns: string | undefined, created: Pod): Promise<void> {
  const at = created.metadata?.creationTimestamp;
  if (!at) return;
  for (const a of ensureGateCondition(created, new Date(at as unknown as string))) {
    if (a.type !== "setPodCondition") continue;
    const gate = a.conditions.filter((c) => c.type === INPLACE_READY_CONDITION);
    await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid }, status: { conditions: gate } }, "strategic", "status").catch(() => undefined);
  }
}

/** setPodConditions writes the action's conditions (merged by type: the pod's others stay as stored), its uid and resourceVersion as preconditions (a stale read conflicts). */
const setPodConditions = (client: KubeClient, ns: string | undefined, a: Extract<Action, { type: "setPodCondition" }>) =>
  client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, resourceVersion: a.resourceVersion }, status: { conditions: a.conditions } }, "strategic", "status");

/** statusPatch returns a merge patch that makes the stored status equal `next` (nulls remove keys). */
function statusPatch(set: StatefulSet, next: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const k of Object.keys(set.status ?? {})) if (!(k in next)) patch[k] = null;
  return patch;
}

/** describe returns a short text for an action (logs). */
export function describe(a: Action): string {
  switch (a.type) {
    case "createRevision":
      return `createRevision ${nameOf(a.revision)}`;
    case "createClaim":
      return `createClaim ${nameOf(a.claim)}`;
    case "createPod":
      return `createPod ${nameOf(a.pod)}`;
    case "updateStatus":
      return "updateStatus";
    case "event":
      return `event ${a.reason}`;
    case "writeImageList":
      return `${a.create ? "createImageList" : "patchImageList"} ${a.node}`;
    case "rollbackTemplate":
      return `rollbackTemplate ${a.from} -> ${a.to}`;
    default:
      return `${a.type} ${a.name}`;
  }
}
