import type { ImageList } from "../api/imagelist.ts";
import type { Pod } from "../api/k8s.ts";
import { PULLER_LABEL } from "../objects/constants.ts";
import { failedCreate, imageCounts, planImagePulls, PULLERS_PER_PASS } from "../core/image-pulls.ts";
import { canonicalJson } from "../core/hash.ts";
import { nodeNotEligibleMessage, pullerTarget, pullSecretsFor, withNodeEligible, type PullerTarget } from "../core/puller-target.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { EventRecorder } from "./events.ts";
import { PullSources } from "./pull-sources.ts";
import { newImageListRef, newPullerPod, type PullerExtras } from "../core/puller-pod.ts";
import { controllerKeyOf, ownerKey } from "./owner-key.ts";
import { releaseGoneSets as planReleaseGoneSets } from "../core/prewarm.ts";
import { isLeftEmpty } from "../core/prewarm-record.ts";
import { isAlreadyExists, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { earlierMs } from "../core/requeue.ts";
import { namespaceOf, nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";

/**
 * The ImageList actuator's thin execution, run by each reconcile pass after its sets: lists the
 * puller pods once (label `ordinal.dev/image-puller`), asks planImagePulls (src/core/image-pulls.ts)
 * per ImageList and does what it says — create and delete puller pods, write the status.
 * A failed write is logged and left to the next pass; a puller pod that cannot be created makes
 * its images Failed (backoff) instead of being retried every pass.
 */

/**
 * releaseGoneSets drops from the ImageLists the pre-warm entries of sets that no longer exist
 * (releaseGoneSets in src/core/prewarm.ts) and returns the lists as written (failures logged:
 * the next pass tries again).
 */
export async function releaseGoneSets(client: KubeClient, lists: readonly ImageList[], liveSets: ReadonlySet<string>, log: Logger): Promise<ImageList[]> {
  const written: ImageList[] = [];
  for (const { namespace, action } of planReleaseGoneSets(lists, liveSets)) {
    try {
      written.push(await client.patch<ImageList>(R.imageLists, namespace, action.node, action.patch, "merge"));
      log.info("pre-warm entries of deleted sets removed", { imageList: `${namespace}/${action.node}` });
    } catch (e) {
      log.warn("action failed", { imageList: `${namespace}/${action.node}`, action: "release deleted sets", error: e instanceof Error ? e.message : String(e) });
    }
  }
  return written;
}

/** How soon to look again while puller pods run. */
const PULL_POLL_MS = 2000;

export interface PrewarmPassResult {
  actions: string[];
  errors: number;
  /** True while puller pods run or were just finished (another pass soon makes progress). */
  pending: boolean;
  requeueAfterMs?: number;
}

export interface ActuateOptions {
  now: () => Date;
  log: Logger;
  /** Namespace of the ImageLists (undefined: all). */
  namespace?: string;
  shouldStop?: () => boolean;
  /** Records the Warning event of a node that may not be pre-warmed (the caller flushes it). */
  events?: EventRecorder;
  /** The sets the pass read, by `namespace/name` (pull secrets of Ordinal's entries; others are read when needed). */
  sets?: ReadonlyMap<string, StatefulSet>;
}

/** Pods of one namespace on one node read per page (a node runs at most a few hundred: one page). */
const NODE_PODS_PAGE = 5000;

/**
 * actuateImageLists makes the nodes of the given ImageLists hold their images; returns what it did.
 * Before creating puller pods for a list it reads the namespace's pods on the list's node (one
 * list, only then): a node without one gets none (NodeEligible False, a Warning event, the images
 * Failed and retried with the backoff); otherwise the puller pods carry those pods' tolerations
 * and the pull secrets of the list and of the sets that added entries (puller-target.ts).
 */
export async function actuateImageLists(client: KubeClient, lists: readonly ImageList[], o: ActuateOptions): Promise<PrewarmPassResult> {
  const result: PrewarmPassResult = { actions: [], errors: 0, pending: false };
  if (!lists.length) return result;
  const pods = await client.list<Pod>(R.pods, o.namespace, { labelSelector: `${PULLER_LABEL}=true`, limit: 5000 });
  // Grouped by namespace, group, kind and UID: a pod of another namespace naming a list's UID is not its puller.
  const byOwner = new Map<string, Pod[]>();
  for (const p of pods) {
    const owner = controllerKeyOf(p);
    if (owner) byOwner.set(owner, [...(byOwner.get(owner) ?? []), p]);
  }
  const sources = new PullSources(client, o.sets);
  const budget = { left: PULLERS_PER_PASS };
  const sorted = [...lists].sort((a, b) => key(a).localeCompare(key(b)));
  for (const list of sorted) {
    if (o.shouldStop?.()) {
      result.pending = true;
      break;
    }
    const ns = list.metadata.namespace;
    const name = nameOf(list);
    const now = o.now();
    /** attempt makes one write; returns the error message when it failed (AlreadyExists is no failure: a pod of that name runs). */
    const attempt = async (what: string, write: () => Promise<unknown>): Promise<string | undefined> => {
      try {
        await write();
        result.actions.push(what);
        return undefined;
      } catch (e) {
        if (isAlreadyExists(e)) return undefined;
        const error = e instanceof Error ? e.message : String(e);
        result.errors++;
        o.log.warn("action failed", { imageList: `${ns}/${name}`, action: what, error });
        return error;
      }
    };
    if (isLeftEmpty(list)) {
      // Only as observed: a person who added an image since makes the delete fail (409), and the list stays.
      await attempt(`deleteImageList ${name}`, () => client.delete(R.imageLists, ns, name, { preconditions: { uid: uidOf(list), resourceVersion: resourceVersionOf(list) } }));
      continue;
    }
    const plan = planImagePulls(list, byOwner.get(ownerKey(namespaceOf(list), newImageListRef(list))) ?? [], now, budget);
    let statusChanged = plan.statusChanged;
    let conditions = list.status?.conditions;
    if (plan.create.length) {
      const target = await readTarget(client, sources, list).catch((e: unknown) => {
        result.errors++;
        result.pending = true;
        o.log.warn("action failed", { imageList: `${ns}/${name}`, action: "read the node's pods and pull secrets", error: e instanceof Error ? e.message : String(e) });
        return undefined;
      });
      budget.left += plan.create.length;
      if (!target) continue;
      conditions = withNodeEligible(list, target.eligible, now);
      if (!target.eligible) {
        const message = nodeNotEligibleMessage(list);
        for (const c of plan.create) for (const k of c.keys) plan.images[k] = failedCreate(plan.images[k], message, now);
        statusChanged = true;
        // Logged here: the event gets no line of its own.
        o.events?.record(list, "Warning", "NodeNotEligible", message, true);
        o.log.warn("image list not acted on", { imageList: `${ns}/${name}`, reason: message });
      }
      for (const c of target.eligible ? plan.create : []) {
        budget.left--;
        const pod = newPullerPod(list, c.image, c.alwaysPull, target);
        const error = await attempt(`createPod ${nameOf(pod)}`, () => client.create(R.pods, ns, pod));
        if (error === undefined) continue;
        for (const k of c.keys) plan.images[k] = failedCreate(plan.images[k], error, now);
        statusChanged = true;
      }
    }
    for (const d of plan.delete) await attempt(`deletePod ${d.name}`, () => client.delete(R.pods, ns, d.name, { gracePeriodSeconds: 0, preconditions: { uid: d.uid } }));
    const generation = list.metadata.generation;
    const counts = imageCounts(plan.images);
    const old = list.status;
    const countsChanged = old?.desired !== counts.desired || old.pulled !== counts.pulled || old.failed !== counts.failed;
    const conditionsChanged = canonicalJson(conditions ?? []) !== canonicalJson(old?.conditions ?? []);
    if (statusChanged || countsChanged || conditionsChanged || old?.observedGeneration !== generation) {
      const images = mergePatch(old?.images ?? {}, plan.images);
      await attempt(`updateStatus ${name}`, () =>
        client.patch(R.imageLists, ns, name, { status: { observedGeneration: generation, images, ...counts, ...(conditionsChanged ? { conditions } : {}) } }, "merge", "status"),
      );
    }
    if (plan.inFlight) {
      result.pending = true;
      result.requeueAfterMs = earlierMs(result.requeueAfterMs, PULL_POLL_MS);
    }
    result.requeueAfterMs = earlierMs(result.requeueAfterMs, plan.nextDueMs);
  }
  if (result.actions.length) o.log.info("image lists reconciled", { actions: result.actions, errors: result.errors });
  return result;
}

/** readTarget returns where the list's puller pods may go (the namespace's pods on its node) and what they carry. */
async function readTarget(client: KubeClient, sources: PullSources, list: ImageList): Promise<PullerTarget & PullerExtras> {
  const nodePods = await client.list<Pod>(R.pods, list.metadata.namespace, { fieldSelector: `spec.nodeName=${nameOf(list)}`, limit: NODE_PODS_PAGE });
  const target = pullerTarget(nodePods);
  if (!target.eligible) return { ...target, imagePullSecrets: [] };
  return { ...target, imagePullSecrets: pullSecretsFor(list, await sources.forList(list)) };
}

const key = (l: ImageList) => `${namespaceOf(l)}/${nameOf(l)}`;

/** mergePatch returns the JSON merge patch that turns `from` into `to` (null removes a key; objects patched key by key). */
function mergePatch(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(from)) out[k] = null; // removed, unless `to` has it (below)
  for (const [k, v] of Object.entries(to)) {
    const was = from[k];
    const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
    if (isObj(v) && isObj(was)) out[k] = mergePatch(was, v);
    else out[k] = v;
  }
  return out;
}
