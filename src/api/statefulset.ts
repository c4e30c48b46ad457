import * as z from "zod";
import type { PersistentVolumeClaimSpec, PodSpec } from "./k8s-extra.ts";
import { int32, intOrString, objectMeta, opaque, stringMap } from "./schema-meta.ts";

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

const LabelSelectorSchema = z.object({
  matchLabels: stringMap().optional().describe("Labels that must all be present with these values."),
  matchExpressions: z
    .array(
      z.object({
        key: z.string().describe("The label key the requirement applies to."),
        operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]).describe("How the key relates to the values: In, NotIn, Exists or DoesNotExist."),
        values: z.array(z.string()).optional().describe("Values for In and NotIn (non-empty); empty for Exists and DoesNotExist."),
      }).describe("A label selector requirement."),
    )
    .optional()
    .describe("Requirements on labels, ANDed together."),
}).describe("A label query over pods; an empty selector matches nothing here (the apiserver requires one).");

const ObjectMetaLite = z.looseObject({
  name: z.string().optional().describe("Name (claim templates: the claim is named NAME-SET-ORDINAL)."),
  namespace: z.string().optional().describe("Ignored: pods and claims live in the set's namespace."),
  labels: stringMap().optional().describe("Labels copied to each pod (must match spec.selector) or claim."),
  annotations: stringMap().optional().describe("Annotations copied to each pod or claim."),
}).describe("Metadata given to each pod or claim made from the template.");

const PodTemplateSchema = z.object({
  metadata: ObjectMetaLite.optional(),
  spec: opaque<PodSpec>("The pod spec (core/v1 PodSpec, see `kubectl explain pod.spec`); validated by the webhook as the pod it becomes."),
}).describe("The pods to create: each gets the set's identity labels, hostname, claims and the InPlaceUpdateReady readiness gate.");

const ClaimTemplateSchema = z.looseObject({
  apiVersion: z.string().optional().describe("v1 (optional)."),
  kind: z.string().optional().describe("PersistentVolumeClaim (optional)."),
  metadata: ObjectMetaLite.extend({ name: z.string().describe("Claim template name: also the pod volume name it provides.") }),
  spec: opaque<PersistentVolumeClaimSpec>("The claim spec (core/v1 PersistentVolumeClaimSpec); validated by the webhook as the PVC it becomes."),
}).describe("A PersistentVolumeClaim each pod gets, named TEMPLATE-SET-ORDINAL, mounted as volume TEMPLATE.");

const PodManagementPolicy = z.enum(["OrderedReady", "Parallel"]);
const UpdateStrategyType = z.enum(["RollingUpdate", "OnDelete"]);
/** How a pod moves to a new revision: recreate it, in place when only images changed, or only in place. */
const PodUpdatePolicy = z.enum(["ReCreate", "InPlaceIfPossible", "InPlaceOnly"]);

/** Pre-pulling the update revision's new images on the nodes of the pods that come next. */
const ImagePrewarmSchema = z
  .object({
    parallelism: int32()
      .min(1)
      .default(1)
      .describe("How many of the next pods to update get the new images pulled onto their nodes ahead of their turn."),
  })
  .describe("Pre-warm: pull the update revision's new images onto the nodes of the next pods to update (ImageList per node, puller pods); removed when the rollout is done. Best with in-place updates.");

const RollingUpdateSchema = z.object({
  partition: int32().min(0).default(0).describe("Pods with an ordinal below start+partition keep the current revision."),
  maxUnavailable: intOrString().optional().describe("Pods that may be unavailable during the update: a number or a percentage. Defaults to 1."),
  paused: z.boolean().default(false).describe("Stops the rollout where it is; pods missing are still created."),
  podUpdatePolicy: PodUpdatePolicy.default("ReCreate").describe(
    "How a pod moves to the update revision: ReCreate (delete and create, as apps/v1), InPlaceIfPossible (change the images of the running pod when only images changed, else recreate), InPlaceOnly (never recreate; a pod that cannot be updated in place is left alone and reported).",
  ),
  inPlaceUpdateStrategy: z
    .object({
      gracePeriodSeconds: int32().min(0).default(0).describe("Seconds between marking a pod not ready and changing its images."),
    })
    .optional()
    .describe("Options of in-place updates (podUpdatePolicy InPlaceIfPossible or InPlaceOnly)."),
  imagePrewarm: ImagePrewarmSchema.optional(),
}).describe("Options of the RollingUpdate strategy.");

const UpdateStrategySchema = z.object({
  type: UpdateStrategyType.default("RollingUpdate").describe("RollingUpdate (replace pods in reverse ordinal order, one at a time by default) or OnDelete (new pods only when old ones are deleted)."),
  rollingUpdate: RollingUpdateSchema.optional(),
}).describe("How pods move to a new template revision.");

const RetentionPolicy = z.enum(["Retain", "Delete"]);

const StatefulSetSpecSchema = z.object({
  replicas: int32().min(0).default(1).describe("Desired number of pods (ordinals start … start+replicas-1). `kubectl scale osts/NAME` sets it."),
  selector: LabelSelectorSchema,
  template: PodTemplateSchema,
  serviceName: z.string().default("").describe("The headless Service giving pods their DNS names (POD.SERVICE.NAMESPACE.svc); you create it."),
  volumeClaimTemplates: z.array(ClaimTemplateSchema).optional().describe("Claims each pod gets; never deleted by Ordinal unless persistentVolumeClaimRetentionPolicy says so."),
  podManagementPolicy: PodManagementPolicy.default("OrderedReady").describe("OrderedReady (create/delete one at a time, in order, each Ready first) or Parallel (all at once)."),
  updateStrategy: UpdateStrategySchema.default({ type: "RollingUpdate" }),
  revisionHistoryLimit: int32().min(0).default(10).describe("ControllerRevisions kept for `ordinal rollout undo` beyond the current and update ones."),
  minReadySeconds: int32().min(0).default(0).describe("Seconds a pod must be Ready before it counts as available."),
  persistentVolumeClaimRetentionPolicy: z
    .object({
      whenDeleted: RetentionPolicy.default("Retain").describe("Retain or Delete the claims when the set is deleted."),
      whenScaled: RetentionPolicy.default("Retain").describe("Retain or Delete the claims of pods removed by scaling down."),
    })
    .optional()
    .describe("What happens to the claims of volumeClaimTemplates (default: kept)."),
  ordinals: z.object({ start: int32().min(0).default(0).describe("The first ordinal (pod NAME-START)." ) }).optional().describe("Ordinal numbering of the pods."),
}).describe("The desired state: as apps/v1 StatefulSet, plus Ordinal's update-strategy fields.");

const ConditionSchema = z.object({
  type: z.string().describe("Condition type."),
  status: z.enum(["True", "False", "Unknown"]).describe("True, False or Unknown."),
  lastTransitionTime: z.string().optional().describe("When the status last changed (RFC 3339)."),
  reason: z.string().optional().describe("One CamelCase word saying why."),
  message: z.string().optional().describe("What happened, for people."),
}).describe("A condition of the set.");

const StatefulSetStatusSchema = z.object({
  observedGeneration: z.number().int().optional().describe("The metadata.generation this status describes; older than generation means the change is not seen yet."),
  replicas: int32().default(0).describe("Pods the set owns (created, not yet gone)."),
  readyReplicas: int32().optional().describe("Pods Running and Ready."),
  currentReplicas: int32().optional().describe("Pods at currentRevision."),
  updatedReplicas: int32().optional().describe("Pods at updateRevision."),
  availableReplicas: int32().optional().describe("Pods Ready for at least minReadySeconds."),
  updatedReadyReplicas: int32().optional().describe("Pods at updateRevision that are Ready."),
  currentRevision: z.string().optional().describe("The ControllerRevision of the pods before the rollout."),
  updateRevision: z.string().optional().describe("The ControllerRevision of the current template (the rollout's target)."),
  collisionCount: int32().optional().describe("Revision-hash collisions so far (mixed into the next hash)."),
  labelSelector: z.string().optional().describe("The selector as a string, for the scale subresource (HorizontalPodAutoscaler)."),
  conditions: z.array(ConditionSchema).optional().describe("The set's conditions."),
}).describe("The observed state, written by the reconciler.");

export const StatefulSetSchema = z.object({
  apiVersion: z.string().default(API_VERSION).describe("apps.ordinal.dev/v1"),
  kind: z.string().default(KIND).describe("StatefulSet"),
  metadata: objectMeta(),
  spec: StatefulSetSpecSchema,
  status: StatefulSetStatusSchema.optional(),
}).describe("An Ordinal StatefulSet: apps/v1 StatefulSet semantics, reconciled without a controller pod, plus in-place image updates, pause and maxUnavailable.");

/** A StatefulSet with every default filled in (what `StatefulSetSchema.parse` returns). */
export type StatefulSet = z.output<typeof StatefulSetSchema>;
export type StatefulSetStatus = z.output<typeof StatefulSetStatusSchema>;
export type Condition = z.output<typeof ConditionSchema>;
