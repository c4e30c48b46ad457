import { z } from "zod";
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

export const LabelSelectorSchema = z.object({
  matchLabels: stringMap().optional(),
  matchExpressions: z
    .array(
      z.object({
        key: z.string(),
        operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
        values: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

const ObjectMetaLite = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  labels: stringMap().optional(),
  annotations: stringMap().optional(),
});

export const PodTemplateSchema = z.object({
  metadata: ObjectMetaLite.optional(),
  spec: opaque<PodSpec>("The pod spec; validated by the webhook as the pod it becomes."),
});

export const ClaimTemplateSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaLite.extend({ name: z.string() }),
  spec: opaque<PersistentVolumeClaimSpec>("The claim spec; validated by the webhook as the PVC it becomes."),
});

export const PodManagementPolicy = z.enum(["OrderedReady", "Parallel"]);
export const UpdateStrategyType = z.enum(["RollingUpdate", "OnDelete"]);
/** How a pod moves to a new revision: recreate it, in place when only images changed, or only in place. */
export const PodUpdatePolicy = z.enum(["ReCreate", "InPlaceIfPossible", "InPlaceOnly"]);

export const RollingUpdateSchema = z.object({
  partition: int32().min(0).default(0).describe("Pods with an ordinal below start+partition keep the current revision."),
  maxUnavailable: intOrString().optional().describe("Pods that may be unavailable during the update: a number or a percentage. Defaults to 1."),
  paused: z.boolean().default(false).describe("Stops the rollout where it is; pods missing are still created."),
  podUpdatePolicy: PodUpdatePolicy.default("ReCreate"),
  inPlaceUpdateStrategy: z
    .object({
      gracePeriodSeconds: int32().min(0).default(0).describe("Seconds between marking a pod not ready and changing its images."),
    })
    .optional(),
});

export const UpdateStrategySchema = z.object({
  type: UpdateStrategyType.default("RollingUpdate"),
  rollingUpdate: RollingUpdateSchema.optional(),
});

export const RetentionPolicy = z.enum(["Retain", "Delete"]);

export const StatefulSetSpecSchema = z.object({
  replicas: int32().min(0).default(1),
  selector: LabelSelectorSchema,
  template: PodTemplateSchema,
  serviceName: z.string().default(""),
  volumeClaimTemplates: z.array(ClaimTemplateSchema).optional(),
  podManagementPolicy: PodManagementPolicy.default("OrderedReady"),
  updateStrategy: UpdateStrategySchema.default({ type: "RollingUpdate" }),
  revisionHistoryLimit: int32().min(0).default(10),
  minReadySeconds: int32().min(0).default(0),
  persistentVolumeClaimRetentionPolicy: z
    .object({
      whenDeleted: RetentionPolicy.default("Retain"),
      whenScaled: RetentionPolicy.default("Retain"),
    })
    .optional(),
  ordinals: z.object({ start: int32().min(0).default(0) }).optional(),
});

export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  lastTransitionTime: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const StatefulSetStatusSchema = z.object({
  observedGeneration: z.number().int().optional(),
  replicas: int32().default(0),
  readyReplicas: int32().optional(),
  currentReplicas: int32().optional(),
  updatedReplicas: int32().optional(),
  availableReplicas: int32().optional(),
  updatedReadyReplicas: int32().optional(),
  currentRevision: z.string().optional(),
  updateRevision: z.string().optional(),
  collisionCount: int32().optional(),
  labelSelector: z.string().optional().describe("The selector as a string, for the scale subresource."),
  conditions: z.array(ConditionSchema).optional(),
});

export const StatefulSetSchema = z.object({
  apiVersion: z.string().default(API_VERSION),
  kind: z.string().default(KIND),
  metadata: objectMeta(),
  spec: StatefulSetSpecSchema,
  status: StatefulSetStatusSchema.optional(),
});

/** A StatefulSet with every default filled in (what `StatefulSetSchema.parse` returns). */
export type StatefulSet = z.output<typeof StatefulSetSchema>;
export type StatefulSetSpec = StatefulSet["spec"];
export type StatefulSetStatus = z.output<typeof StatefulSetStatusSchema>;
export type RollingUpdate = z.output<typeof RollingUpdateSchema>;
export type Condition = z.output<typeof ConditionSchema>;
export type LabelSelectorT = z.output<typeof LabelSelectorSchema>;
