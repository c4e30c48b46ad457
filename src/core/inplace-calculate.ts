import { jsonDiff } from "../objects/json-diff.ts";
import type { PodTemplateSpec } from "../api/k8s.ts";
import { POD_CONTROL_ANNOTATIONS, POD_CONTROL_LABELS, RESTARTED_AT_ANNOTATION } from "../objects/constants.ts";

/**
 * "Can this pod move to the new revision in place, and how": the calculate half of an in-place
 * update, after Kruise's calculateInPlaceUpdateSpec (pkg/util/inplaceupdate). It diffs the pod
 * template of the pod's revision against the update revision's with JSON Patch and accepts only
 * what the apiserver lets a running pod change that a kubelet acts on: container and init
 * container images. Template labels and annotations may change too (Kruise does the same); they
 * are copied onto the pod, but for the pod's control keys (POD_CONTROL_LABELS: a template that
 * gained the chosen-deletion label must not delete every pod; one that lost it must not undo a
 * user's choice). Anything else is a reason, naming the offending JSON pointers. One
 * metadata change is a reason too: a restart (`ordinal rollout restart`, `kubectl rollout restart`
 * write the template annotation kubectl.kubernetes.io/restartedAt) asks for new containers, which
 * copying an annotation would not give (restartRefusal).
 */

/** One image to set on the pod: `field` is "containers" or "initContainers". */
interface ImageChange {
  field: "containers" | "initContainers";
  index: number;
  /** The container's name in the new template. */
  name: string;
  image: string;
}

/** What an in-place update writes: images, and template label/annotation changes (null removes). */
export interface InPlaceUpdateSpec {
  images: ImageChange[];
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
}

export type InPlaceCalculation = { ok: true; spec: InPlaceUpdateSpec } | { ok: false; reason: string };

const IMAGE_POINTER = /^\/spec\/(containers|initContainers)\/(\d+)\/image$/;

/**
 * calculateInPlaceUpdate returns the in-place update that turns a pod of template `from` into
 * one of template `to`, or `ok: false` with the reason
 * `patch cannot use in-place update: <pointer>[, <pointer>…]` (pointers sorted) when the diff
 * touches anything but images, labels and annotations. An identical pair gives an empty update.
 */
export function calculateInPlaceUpdate(from: PodTemplateSpec, to: PodTemplateSpec): InPlaceCalculation {
  // Only the specs are diffed: of the template's metadata only labels and annotations are the
  // pod's, and those are copied (mapChanges), never a reason to refuse.
  const ops = jsonDiff({ spec: from.spec ?? {} }, { spec: to.spec ?? {} });
  const refused = new Set<string>();
  const images: ImageChange[] = [];
  for (const op of ops) {
    const image = IMAGE_POINTER.exec(op.path);
    if (image && op.op === "replace" && typeof op.value === "string") {
      const field = image[1] as ImageChange["field"];
      const index = Number(image[2]);
      images.push({ field, index, name: to.spec?.[field]?.[index]?.name ?? "", image: op.value });
      continue;
    }
    refused.add(op.path);
  }
  const reasons = refused.size ? [`patch cannot use in-place update: ${[...refused].sort().join(", ")}`] : [];
  const restart = restartRefusal(from, to);
  if (restart) reasons.push(restart);
  if (reasons.length) return { ok: false, reason: reasons.join("; ") };
  images.sort((a, b) => a.field.localeCompare(b.field) || a.index - b.index);
  return {
    ok: true,
    spec: {
      images,
      labels: mapChanges(from.metadata?.labels, to.metadata?.labels, POD_CONTROL_LABELS),
      annotations: mapChanges(from.metadata?.annotations, to.metadata?.annotations, POD_CONTROL_ANNOTATIONS),
    },
  };
}

/**
 * restartRefusal returns why a change of the template's restartedAt annotation (set, changed or
 * removed) cannot be done in place: a restart must give the pod new containers, so the pod is
 * recreated (one at a time, as any recreate: partition, maxUnavailable and pause hold). Undefined
 * when the annotation is unchanged.
 */
function restartRefusal(from: PodTemplateSpec, to: PodTemplateSpec): string | undefined {
  const before = from.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
  const after = to.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
  if (before === after) return undefined;
  return `a restart (template annotation ${RESTARTED_AT_ANNOTATION} ${after === undefined ? "removed" : `set to ${after}`}) needs new containers: in place would keep them`;
}

/** mapChanges returns the keys whose value differs from `from` to `to` (null: removed), but for the `reserved` ones. */
function mapChanges(from: Record<string, string> | undefined, to: Record<string, string> | undefined, reserved: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(to ?? {})) if (from?.[k] !== v) out[k] = v;
  for (const k of Object.keys(from ?? {})) if (!(k in (to ?? {}))) out[k] = null;
  for (const k of reserved) delete out[k];
  return out;
}
