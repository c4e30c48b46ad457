import * as z from "zod/mini";
import type { PersistentVolumeClaimSpec, PodSpec } from "./k8s-extra.ts";
import { conditionSchema, int32, integer, intOrString, objectMeta, opaque, stringMap } from "./schema-meta.ts";
import { annotated, described } from "./zod.ts";

/**
 * The `apps.ordinal.dev/v1` StatefulSet: apps/v1 StatefulSet plus Ordinal's update-strategy
 * extensions (in-place image updates, pause, maxUnavailable). Defaults match apps/v1's, so a
 * parsed set (`StatefulSetSchema.parse`) always has them filled in; the CRD carries the same
 * defaults, so the apiserver stores them too.
 */

export const GROUP = "apps.ordinal.dev";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "StatefulSet";

const LabelSelectorSchema = described(
  z.object({
    matchLabels: described(z.optional(stringMap()), "Labels that must all be present with these values."),
    matchExpressions: described(
      z.optional(
        z.array(
          described(
            z.object({
              key: described(z.string(), "The label key the requirement applies to."),
              operator: described(z.enum(["In", "NotIn", "Exists", "DoesNotExist"]), "How the key relates to the values: In, NotIn, Exists or DoesNotExist."),
              values: described(z.optional(z.array(z.string())), "Values for In and NotIn (non-empty); empty for Exists and DoesNotExist."),
            }),
            "A label selector requirement.",
          ),
        ),
      ),
      "Requirements on labels, ANDed together.",
    ),
  }),
  "A label query over pods; an empty selector matches nothing here (the apiserver requires one).",
);

const ObjectMetaLite = described(
  z.looseObject({
    name: described(z.optional(z.string()), "Name (claim templates: the claim is named NAME-SET-ORDINAL)."),
    namespace: described(z.optional(z.string()), "Ignored: pods and claims live in the set's namespace."),
    labels: described(z.optional(stringMap()), "Labels copied to each pod (must match spec.selector) or claim."),
    annotations: described(z.optional(stringMap()), "Annotations copied to each pod or claim."),
  }),
  "Metadata given to each pod or claim made from the template.",
);

const PodTemplateSchema = described(
  z.object({
    metadata: z.optional(ObjectMetaLite),
    spec: opaque<PodSpec>("The pod spec (core/v1 PodSpec, see `kubectl explain pod.spec`); validated by the webhook as the pod it becomes."),
  }),
  "The pods to create: each gets the set's identity labels, hostname, claims and the InPlaceUpdateReady readiness gate.",
);

const ClaimTemplateSchema = described(
  z.looseObject({
    apiVersion: described(z.optional(z.string()), "v1 (optional)."),
    kind: described(z.optional(z.string()), "PersistentVolumeClaim (optional)."),
    metadata: z.extend(ObjectMetaLite, { name: described(z.string(), "Claim template name: also the pod volume name it provides.") }),
    spec: opaque<PersistentVolumeClaimSpec>("The claim spec (core/v1 PersistentVolumeClaimSpec); validated by the webhook as the PVC it becomes."),
  }),
  "A PersistentVolumeClaim each pod gets, named TEMPLATE-SET-ORDINAL, mounted as volume TEMPLATE.",
);

const PodManagementPolicy = z.enum(["OrderedReady", "Parallel"]);
const UpdateStrategyType = z.enum(["RollingUpdate", "OnDelete"]);
/** How a pod moves to a new revision: recreate it, in place when only images changed, or only in place. */
const PodUpdatePolicy = z.enum(["ReCreate", "InPlaceIfPossible", "InPlaceOnly"]);

/** A non-negative int32 with a default (replicas, partition, seconds…). */
const count = (byDefault: number) => z._default(int32().check(z.minimum(0)), byDefault);

/**
 * MAX_REPLICAS is the most pods one set may ask for: 150,000, the most pods Kubernetes supports in
 * a whole cluster ("Considerations for large clusters": no more than 150,000 total pods), so no set
 * that can actually run is refused. The CRD carries it as `maximum`, which the apiserver enforces
 * on every write, the scale subresource (`kubectl scale`, an HPA) included; the webhook says why.
 * Without it a tenant could write 2147483647, and anything that walked the ordinals would never end.
 */
export const MAX_REPLICAS = 150_000;

/** Pre-pulling the update revision's new images on the nodes of the pods that come next. */
const ImagePrewarmSchema = described(
  z.object({
    parallelism: described(
      z._default(int32().check(z.minimum(1)), 1),
      "How many of the next pods to update get the new images pulled onto their nodes ahead of their turn.",
    ),
  }),
  "Pre-warm: pull the update revision's new images onto the nodes of the next pods to update (ImageList per node, puller pods); removed when the rollout is done. Best with in-place updates.",
);

const RollingUpdateSchema = described(
  z.object({
    partition: described(count(0), "The lowest `partition` replicas keep the current revision: ordinals below start+partition, reserveOrdinals not counted (Kruise v1.8)."),
    maxUnavailable: described(z.optional(intOrString()), "Pods that may be unavailable during the update: a number or a percentage. Defaults to 1."),
    paused: described(z._default(z.boolean(), false), "Stops the rollout where it is; pods missing are still created."),
    podUpdatePolicy: described(
      z._default(PodUpdatePolicy, "ReCreate"),
      "How a pod moves to the update revision: ReCreate (delete and create, as apps/v1), InPlaceIfPossible (change the images of the running pod when only images changed, else recreate), InPlaceOnly (never recreate; a pod that cannot be updated in place is left alone and reported).",
    ),
    inPlaceUpdateStrategy: described(
      z.optional(
        z.object({
          gracePeriodSeconds: described(count(0), "Seconds between marking a pod not ready and changing its images."),
        }),
      ),
      "Options of in-place updates (podUpdatePolicy InPlaceIfPossible or InPlaceOnly).",
    ),
    imagePrewarm: z.optional(ImagePrewarmSchema),
    rollbackOnFailure: described(
      z.optional(z.boolean()),
      "When true, a rollout that exceeds spec.progressDeadlineSeconds is rolled back: the template of the last fully available revision (status.currentRevision) is written back into spec.template, as `ordinal rollout undo` does, the failed revision is recorded in the annotation ordinal.dev/failed-revisions and an event, and its pods that never became Ready are replaced. Never twice for one revision, never to a revision that failed; needs progressDeadlineSeconds.",
    ),
  }),
  "Options of the RollingUpdate strategy.",
);

/**
 * What a RollingUpdate strategy without `rollingUpdate` means, and what is written for it: the
 * CRD's default when updateStrategy is absent, and the mutating webhook's when only the type is
 * given (src/admission/mutate-statefulsets.ts), as apps/v1 defaults `rollingUpdate.partition`.
 */
export const ROLLING_UPDATE_DEFAULTS = { partition: 0, paused: false, podUpdatePolicy: "ReCreate" } as const;

const UpdateStrategySchema = described(
  z.object({
    type: described(
      z._default(UpdateStrategyType, "RollingUpdate"),
      "RollingUpdate (replace pods in reverse ordinal order, one at a time by default) or OnDelete (new pods only when old ones are deleted).",
    ),
    rollingUpdate: z.optional(RollingUpdateSchema),
  }),
  "How pods move to a new template revision.",
);

/**
 * A lifecycle hook (Kruise's LifecycleHook): the pod is held in the hook's state while it carries
 * any of these labels (with these values) or finalizers; another controller removes them when it
 * is safe to go on.
 */
const LifecycleHookSchema = (before: string, step: string, state: string) =>
  described(
    z.object({
      labelsHandler: described(
        z.optional(stringMap()),
        `Labels (key and value) that hold the pod in ${state} while it carries any of them; remove them from the pod to let ${step} go on.`,
      ),
      finalizersHandler: described(
        z.optional(z.array(z.string())),
        `Finalizers that hold the pod in ${state} while it carries any of them; remove them from the pod to let ${step} go on.`,
      ),
      markPodNotReady: described(
        z._default(z.boolean(), false),
        `Set the pod's InPlaceUpdateReady readiness gate False (reason ${state}) before it enters ${state}, so it leaves Service endpoints while the hook runs.`,
      ),
    }),
    `Hold each pod in state ${state} (label ordinal.dev/lifecycle-state) before ${before}, while it carries any of the handler's labels or finalizers.`,
  );

const LifecycleSchema = described(
  z.object({
    preDelete: z.optional(LifecycleHookSchema("it is deleted (scale-in, recreate for an update, a chosen or reserved ordinal)", "the deletion", "PreparingDelete")),
    inPlaceUpdate: z.optional(LifecycleHookSchema("its images are updated in place", "the in-place update", "PreparingUpdate")),
  }),
  "Lifecycle hooks (OpenKruise's spec.lifecycle): the pod's state is in its label ordinal.dev/lifecycle-state (Normal, PreparingDelete, PreparingUpdate, Updating, Updated).",
);

const RetentionPolicy = z.enum(["Retain", "Delete"]);

/** When a changed claim template reaches the claims that exist: only new claims (OnDelete) or each pod's in its rollout turn. */
const VolumeClaimUpdateStrategyType = z.enum(["OnDelete", "OnPodRollingUpdate"]);

const VolumeClaimUpdateStrategySchema = described(
  z.object({
    type: described(
      z._default(VolumeClaimUpdateStrategyType, "OnDelete"),
      "OnDelete (default): a changed claim template applies to claims created from now on; existing claims are left as they are. OnPodRollingUpdate: a larger resources.requests.storage is applied to each existing claim (PVC expansion) and a newly added template's claim is mounted (the pod is recreated) as each pod's turn comes in the rolling update, highest ordinal first, down to the partition, within maxUnavailable; no other change of a template is accepted.",
    ),
  }),
  "How changes of spec.volumeClaimTemplates reach the claims that already exist. Templates may be added, and a storage request may grow; removing a template or shrinking a request is refused.",
);

/**
 * MAX_RESERVE_ORDINALS is how many entries spec.reserveOrdinals may have (a range "a-b" is one
 * entry however many ordinals it reserves): far beyond any real list, and it bounds the work of
 * every question the ordinal range answers (objects/ordinal-range.ts).
 */
export const MAX_RESERVE_ORDINALS = 1000;

/** An entry of reserveOrdinals: an ordinal, or an inclusive range "a-b" (Kruise's format). */
const ReserveOrdinal = annotated(z.union([int32().check(z.minimum(0)), z.string().check(z.regex(/^[0-9]+-[0-9]+$/))]), { "x-kubernetes-int-or-string": true });

const StatefulSetSpecSchema = described(
  z.object({
    replicas: described(
      z._default(int32().check(z.minimum(0), z.maximum(MAX_REPLICAS)), 1),
      `Desired number of pods (ordinals start … start+replicas-1), at most ${MAX_REPLICAS} (the most pods Kubernetes supports in a cluster). \`kubectl scale osts/NAME\` sets it.`,
    ),
    selector: LabelSelectorSchema,
    template: PodTemplateSchema,
    serviceName: described(z._default(z.string(), ""), "The headless Service giving pods their DNS names (POD.SERVICE.NAMESPACE.svc); you create it."),
    volumeClaimTemplates: described(z.optional(z.array(ClaimTemplateSchema)), "Claims each pod gets; never deleted by Ordinal unless persistentVolumeClaimRetentionPolicy says so."),
    podManagementPolicy: described(
      z._default(PodManagementPolicy, "OrderedReady"),
      "OrderedReady (create/delete one at a time, in order, each Ready first) or Parallel (all at once).",
    ),
    updateStrategy: z._default(UpdateStrategySchema, { type: "RollingUpdate", rollingUpdate: { ...ROLLING_UPDATE_DEFAULTS } }),
    revisionHistoryLimit: described(count(10), "ControllerRevisions kept for `ordinal rollout undo` beyond the current and update ones."),
    minReadySeconds: described(count(0), "Seconds a pod must be Ready before it counts as available."),
    progressDeadlineSeconds: described(
      z.optional(int32().check(z.minimum(1))),
      "As on a Deployment: seconds a rollout may go without progress (a pod newly updated and Ready) before the Progressing condition turns False with reason ProgressDeadlineExceeded and a Warning event names the pod holding it and why. Must be greater than minReadySeconds. Not counted while paused. Unset: no deadline.",
    ),
    persistentVolumeClaimRetentionPolicy: described(
      z.optional(
        z.object({
          whenDeleted: described(z._default(RetentionPolicy, "Retain"), "Retain or Delete the claims when the set is deleted."),
          whenScaled: described(z._default(RetentionPolicy, "Retain"), "Retain or Delete the claims of pods removed by scaling down."),
        }),
      ),
      "What happens to the claims of volumeClaimTemplates (default: kept).",
    ),
    ordinals: described(z.optional(z.object({ start: described(count(0), "The first ordinal (pod NAME-START).") })), "Ordinal numbering of the pods."),
    lifecycle: z.optional(LifecycleSchema),
    volumeClaimUpdateStrategy: z.optional(VolumeClaimUpdateStrategySchema),
    scaleStrategy: described(
      z.optional(
        z.object({
          maxUnavailable: described(
            z.optional(intOrString()),
            "With podManagementPolicy Parallel, at most this many pods (a number, or a percentage of replicas rounded up) may be not yet available while the set scales up: new pods are created as earlier ones become available (minReadySeconds). Unset: no limit. OrderedReady creates one at a time anyway.",
          ),
        }),
      ),
      "How fast the set scales (OpenKruise's scaleStrategy).",
    ),
    reserveOrdinals: described(
      z.optional(z.array(ReserveOrdinal).check(z.maxLength(MAX_RESERVE_ORDINALS))),
      `Ordinals that never get a pod, as OpenKruise's Advanced StatefulSet: integers and inclusive ranges "a-b" (at most ${MAX_RESERVE_ORDINALS} entries, no duplicates or overlaps). The replicas are the first spec.replicas ordinals from ordinals.start that are not reserved (replicas 3, reserveOrdinals [1]: NAME-0, NAME-2, NAME-3). Reserving the ordinal of an existing pod deletes that pod as a scale-down does (OrderedReady or Parallel, its claims per persistentVolumeClaimRetentionPolicy.whenScaled). The partition counts replicas, not ordinals (Kruise v1.8): with partition 1 the lowest existing replica keeps the current revision.`,
    ),
  }),
  "The desired state: as apps/v1 StatefulSet, plus Ordinal's update-strategy fields.",
);

const ConditionSchema = described(
  z.extend(conditionSchema("the set"), {
    lastUpdateTime: described(z.optional(z.string()), "Progressing, with spec.progressDeadlineSeconds: when the rollout last made progress (RFC 3339); the deadline counts from it."),
  }),
  "A condition of the set.",
);

const VolumeClaimStatusSchema = described(
  z.object({
    volumeClaimName: described(z.string(), "The claim template's name."),
    compatibleReplicas: described(int32(), "Pods whose claim of this template exists and requests at least the template's storage."),
    compatibleReadyReplicas: described(int32(), "Of those, pods whose claim's capacity has reached its request (the expansion is done)."),
  }),
  "How far one claim template has reached the claims of the set's pods (Kruise's VolumeClaimStatus).",
);

const StatefulSetStatusSchema = described(
  z.object({
    observedGeneration: described(z.optional(integer()), "The metadata.generation this status describes; older than generation means the change is not seen yet."),
    replicas: described(z._default(int32(), 0), "Pods the set owns (created, not yet gone)."),
    readyReplicas: described(z.optional(int32()), "Pods Running and Ready."),
    currentReplicas: described(z.optional(int32()), "Pods at currentRevision."),
    updatedReplicas: described(z.optional(int32()), "Pods at updateRevision."),
    availableReplicas: described(z.optional(int32()), "Pods Ready for at least minReadySeconds."),
    updatedReadyReplicas: described(z.optional(int32()), "Pods at updateRevision that are Ready."),
    currentRevision: described(z.optional(z.string()), "The ControllerRevision of the pods before the rollout."),
    updateRevision: described(z.optional(z.string()), "The ControllerRevision of the current template (the rollout's target)."),
    collisionCount: described(z.optional(int32()), "Revision-hash collisions so far (mixed into the next hash)."),
    labelSelector: described(z.optional(z.string()), "The selector as a string, for the scale subresource (HorizontalPodAutoscaler)."),
    conditions: described(z.optional(z.array(ConditionSchema)), "The set's conditions."),
    volumeClaims: described(z.optional(z.array(VolumeClaimStatusSchema)), "Per claim template, how many pods' claims match it (present when the set has claim templates)."),
  }),
  "The observed state, written by the reconciler.",
);

export const StatefulSetSchema = described(
  z.object({
    apiVersion: described(z._default(z.string(), API_VERSION), "apps.ordinal.dev/v1"),
    kind: described(z._default(z.string(), KIND), "StatefulSet"),
    metadata: objectMeta(),
    spec: StatefulSetSpecSchema,
    status: z.optional(StatefulSetStatusSchema),
  }),
  "An Ordinal StatefulSet: apps/v1 StatefulSet semantics, reconciled without a controller pod, plus in-place image updates, pause and maxUnavailable.",
);

/** A StatefulSet with every default filled in (what `StatefulSetSchema.parse` returns). */
export type StatefulSet = z.output<typeof StatefulSetSchema>;
export type StatefulSetStatus = z.output<typeof StatefulSetStatusSchema>;
export type Condition = z.output<typeof ConditionSchema>;
export type LifecycleHook = z.output<ReturnType<typeof LifecycleHookSchema>>;
export type VolumeClaimStatus = z.output<typeof VolumeClaimStatusSchema>;
