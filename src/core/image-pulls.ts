import type { ImageList, ImagePullStatus } from "../api/imagelist.ts";
import type { Pod } from "../api/k8s.ts";
import { normalizeImageReference } from "../validation/image-ref.ts";
import { PULLER_IMAGE_ANNOTATION } from "../objects/constants.ts";
import { canonicalJson } from "./hash.ts";
import { timeMs, wholeSeconds } from "./inplace-state.ts";
import { nameOf, uidOf } from "../objects/names.ts";
import { isTerminating } from "./pod-state.ts";
import { pullOutcome } from "./puller-pod.ts";

/**
 * The ImageList actuator's decision (the calculate half; src/reconciler/prewarm.ts executes it):
 * from one ImageList, its puller pods and `now`, which puller pods to create and delete and the
 * status to report. Per image (spec keys that normalize to the same image share one pull):
 * - a puller pod that says present → Pulled (lastPullTime), the pod deleted; alwaysPull images
 *   are pulled again 24 hours later (nextAttemptTime);
 * - one that says failed → Failed with the kubelet's reason, the pod deleted, retried after an
 *   exponential backoff (10 s doubling to 5 min, nextAttemptTime);
 * - one still pulling → Pulling; a terminating one is waited for;
 * - no pod, and a pull is due (never pulled, a pod lost, a retry or re-pull time reached) → a
 *   puller pod, within the limits: at most `perNode` unfinished puller pods per ImageList, and
 *   `budget` creations left in this pass; an image that must wait is Pending (if never pulled);
 * - a reference that does not parse (the webhook refuses those; a list written around it) is
 *   Failed without a pod; puller pods of images no longer listed are deleted.
 */

const PULL_BACKOFF_BASE_SECONDS = 10;
const PULL_BACKOFF_MAX_SECONDS = 300;
const REPULL_INTERVAL_SECONDS = 24 * 60 * 60;
/** Unfinished puller pods per ImageList (node) at once. */
export const PULLERS_PER_NODE = 2;
/** Puller pods created per reconcile pass, over all ImageLists. */
export const PULLERS_PER_PASS = 20;

export interface ImagePullPlan {
  /** Puller pods to create (newPullerPod, once the node's target is known), each with the spec.images keys it pulls for. */
  create: { image: string; alwaysPull: boolean; keys: string[] }[];
  delete: { name: string; uid: string }[];
  /** status.images as it should be (keys: spec.images' keys). */
  images: Record<string, ImagePullStatus>;
  /** True when status.images differs from the stored one. */
  statusChanged: boolean;
  /** True while a puller pod is unfinished (look again soon). */
  inFlight: boolean;
  /** Milliseconds until the next retry or re-pull is due, if any. */
  nextDueMs?: number;
}

/** pullBackoffSeconds returns the wait after the `attempts`-th failed pull in a row. */
export const pullBackoffSeconds = (attempts: number): number =>
  Math.min(PULL_BACKOFF_MAX_SECONDS, PULL_BACKOFF_BASE_SECONDS * 2 ** Math.max(0, Math.min(attempts - 1, 30)));

const at = (now: Date, seconds: number) => wholeSeconds(new Date(now.getTime() + seconds * 1000));

interface Wanted {
  keys: string[];
  alwaysPull: boolean;
}

/** planImagePulls returns the actuator's decision for one ImageList; `budget.left` is decremented per pod to create. */
export function planImagePulls(list: ImageList, pods: readonly Pod[], now: Date, budget: { left: number }, perNode = PULLERS_PER_NODE): ImagePullPlan {
  const old = list.status?.images ?? {};
  const images: Record<string, ImagePullStatus> = {};
  const wanted = new Map<string, Wanted>();
  for (const [key, opts] of Object.entries(list.spec.images ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const n = normalizeImageReference(key);
    if (!n.ok) {
      images[key] = { phase: "Failed", attempts: 0, message: `invalid image reference: ${n.reason}` };
      continue;
    }
    const w = wanted.get(n.ref) ?? { keys: [], alwaysPull: false };
    w.keys.push(key);
    w.alwaysPull ||= opts?.alwaysPull === true;
    wanted.set(n.ref, w);
  }
  const plan: Omit<ImagePullPlan, "statusChanged"> = { create: [], delete: [], images, inFlight: false };
  const podsByImage = new Map<string, Pod>();
  for (const p of pods) {
    const image = p.metadata?.annotations?.[PULLER_IMAGE_ANNOTATION] ?? "";
    if (wanted.has(image) && !podsByImage.has(image)) podsByImage.set(image, p);
    else if (!isTerminating(p)) plan.delete.push({ name: nameOf(p), uid: uidOf(p) });
  }
  let active = [...podsByImage.values()].filter((p) => !isTerminating(p) && pullOutcome(p, now).state === "pulling").length;
  // Absent or unreadable (NaN compares false): due now.
  const due = (t: string | undefined) => !(timeMs(t) > now.getTime());
  const noteDue = (t: string | undefined) => {
    const ms = timeMs(t) - now.getTime();
    if (ms > 0) plan.nextDueMs = Math.min(plan.nextDueMs ?? ms, ms);
  };
  for (const [image, w] of wanted) {
    const prev: ImagePullStatus = old[w.keys[0]] ?? { phase: "Pending", attempts: 0 };
    let next: ImagePullStatus = prev;
    const pod = podsByImage.get(image);
    if (pod && isTerminating(pod)) {
      plan.inFlight = true;
    } else if (pod) {
      const out = pullOutcome(pod, now);
      if (out.state === "pulling") {
        plan.inFlight = true;
        next = { ...prev, phase: "Pulling", message: "puller pod running" };
      } else {
        plan.delete.push({ name: nameOf(pod), uid: uidOf(pod) });
        plan.inFlight = true;
        next =
          out.state === "present"
            ? withoutUndefined({ ...prev, phase: "Pulled", lastPullTime: wholeSeconds(now), message: out.message, nextAttemptTime: w.alwaysPull ? at(now, REPULL_INTERVAL_SECONDS) : undefined })
            : { ...prev, phase: "Failed", message: out.message, nextAttemptTime: at(now, pullBackoffSeconds(prev.attempts)) };
      }
    } else {
      const pulledOnce = prev.phase === "Pulled";
      const wantsPull =
        prev.phase === "Pending" || prev.phase === "Pulling" || (prev.phase === "Failed" && due(prev.nextAttemptTime)) || (pulledOnce && w.alwaysPull && due(prev.nextAttemptTime));
      if (wantsPull && active < perNode && budget.left > 0) {
        budget.left--;
        active++;
        plan.create.push({ image, alwaysPull: w.alwaysPull, keys: w.keys });
        plan.inFlight = true;
        const attempts = pulledOnce ? 1 : prev.attempts + 1;
        next = withoutUndefined({ ...prev, phase: "Pulling", attempts, nextAttemptTime: undefined, message: `puller pod ${attempts === 1 ? "created" : `created (attempt ${attempts})`}` });
      } else if (wantsPull) {
        plan.inFlight = true;
        if (prev.phase === "Pending" || prev.phase === "Pulling")
          next = { ...prev, phase: "Pending", message: `waiting for a puller slot (at most ${perNode} puller pods per node at once)` };
      } else {
        // alwaysPull turned off: no re-pull is due any more.
        if (!w.alwaysPull && prev.phase === "Pulled") next = withoutUndefined({ ...prev, nextAttemptTime: undefined });
        noteDue(next.nextAttemptTime);
      }
    }
    for (const key of w.keys) images[key] = next;
  }
  return { ...plan, statusChanged: canonicalJson(images) !== canonicalJson(old) };
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * failedCreate returns the status of an image whose puller pod could not be created (quota, a
 * policy, a webhook): Failed with the apiserver's message, retried after the backoff.
 */
export function failedCreate(prev: ImagePullStatus, message: string, now: Date): ImagePullStatus {
  return { ...prev, phase: "Failed", message: `puller pod not created: ${message}`, nextAttemptTime: at(now, pullBackoffSeconds(prev.attempts)) };
}

/** imageCounts returns status.desired, pulled and failed: how many images the status lists, and how many are Pulled and Failed. */
export function imageCounts(images: Record<string, ImagePullStatus>): { desired: number; pulled: number; failed: number } {
  const all = Object.values(images);
  return { desired: all.length, pulled: all.filter((i) => i.phase === "Pulled").length, failed: all.filter((i) => i.phase === "Failed").length };
}
