import * as z from "zod/mini";
import type { PersistentVolumeClaimSpec, PodSpec } from "./k8s-extra.ts";
import { conditionSchema, int32, integer, intOrString, objectMeta, opaque, stringMap } from "./schema-meta.ts";
import { annotated } from "./zod.ts";

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
    matchLabels: z.optional(stringMap()),
    matchExpressions: z.optional(
        z.array(
          z.object({
              key: z.string(),
              operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
              values: z.optional(z.array(z.string())),
            }),
        ),
      ),
  });

const ObjectMetaLite = z.looseObject({
    name: z.optional(z.string()),
    namespace: z.optional(z.string()),
    labels: z.optional(stringMap()),
    annotations: z.optional(stringMap()),
  });

const PodTemplateSchema = z.object({
    metadata: z.optional(ObjectMetaLite),
    spec: opaque<PodSpec>(),
  });

const ClaimTemplateSchema = z.looseObject({
    apiVersion: z.optional(z.string()),
    kind: z.optional(z.string()),
    metadata: z.extend(ObjectMetaLite, { name: z.string() }),
    spec: opaque<PersistentVolumeClaimSpec>(),
  });

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
const ImagePrewarmSchema = z.object({
    parallelism: z._default(int32().check(z.minimum(1)), 1),
  });

/**
 * MAX_PRIORITY_TERMS is how many terms one priorityStrategy form may list: far beyond any real
 * order, and it bounds the work of ordering each pass (every pod against every term).
 */
export const MAX_PRIORITY_TERMS = 64;

/**
 * Kruise's UpdatePriorityStrategy (its field names and meaning): which pods a rollout moves first,
 * by weights of label selectors or by ordered label keys (src/core/update-order.ts). Exactly one
 * form, weights 0–100, no empty selector: checked on apply (src/validation/statefulset-priority.ts).
 */
const PriorityStrategySchema = z.object({
    weightPriority: z.optional(
        z
          .array(z.object({ weight: int32().check(z.minimum(0), z.maximum(100)), matchSelector: LabelSelectorSchema }))
          .check(z.maxLength(MAX_PRIORITY_TERMS)),
      ),
    orderPriority: z.optional(z.array(z.object({ orderedKey: z.string() })).check(z.maxLength(MAX_PRIORITY_TERMS))),
  });

const RollingUpdateSchema = z.object({
    partition: count(0),
    maxUnavailable: z.optional(intOrString()),
    paused: z._default(z.boolean(), false),
    podUpdatePolicy: z._default(PodUpdatePolicy, "ReCreate"),
    inPlaceUpdateStrategy: z.optional(
        z.object({
          gracePeriodSeconds: count(0),
        }),
      ),
    imagePrewarm: z.optional(ImagePrewarmSchema),
    rollbackOnFailure: z.optional(z.boolean()),
    unorderedUpdate: z.optional(z.object({ priorityStrategy: z.optional(PriorityStrategySchema) })),
  });

/**
 * What a RollingUpdate strategy without `rollingUpdate` means, and what is written for it: the
 * CRD's default when updateStrategy is absent, and the mutating webhook's when only the type is
 * given (src/admission/mutate-statefulsets.ts), as apps/v1 defaults `rollingUpdate.partition`.
 */
export const ROLLING_UPDATE_DEFAULTS = { partition: 0, paused: false, podUpdatePolicy: "ReCreate" } as const;

const UpdateStrategySchema = z.object({
    type: z._default(UpdateStrategyType, "RollingUpdate"),
    rollingUpdate: z.optional(RollingUpdateSchema),
  });

/**
 * A lifecycle hook (Kruise's LifecycleHook): the pod is held in the hook's state while it carries
 * any of these labels (with these values) or finalizers; another controller removes them when it
 * is safe to go on.
 */
const LifecycleHookSchema = () =>
  z.object({
      labelsHandler: z.optional(stringMap()),
      finalizersHandler: z.optional(z.array(z.string())),
      markPodNotReady: z._default(z.boolean(), false),
    });

const LifecycleSchema = z.object({
    preDelete: z.optional(LifecycleHookSchema()),
    inPlaceUpdate: z.optional(LifecycleHookSchema()),
  });

/** How many roles spec.roles.updateOrder may list: far beyond any real application (Patroni has 3). */
export const MAX_ROLES = 16;
/** spec.roles.switchover.timeoutSeconds: its default and its bound (a day). */
export const DEFAULT_SWITCHOVER_SECONDS = 300;
export const MAX_SWITCHOVER_SECONDS = 86_400;

/**
 * spec.roles: the pod label the application (or its operator) writes with each pod's role, the
 * order in which roles are updated (first → last), and the roles that must be handed away before
 * Ordinal touches their pod (src/core/roles.ts, src/core/switchover.ts).
 */
const RolesSchema = z.object({
    labelKey: z.string(),
    updateOrder: z.array(z.string()).check(z.minLength(1), z.maxLength(MAX_ROLES)),
    switchover: z.optional(
        z.object({
          roles: z.array(z.string()).check(z.minLength(1), z.maxLength(MAX_ROLES)),
          timeoutSeconds: z._default(int32().check(z.minimum(1), z.maximum(MAX_SWITCHOVER_SECONDS)), DEFAULT_SWITCHOVER_SECONDS),
        }),
      ),
  });

const RetentionPolicy = z.enum(["Retain", "Delete"]);

/** When a changed claim template reaches the claims that exist: only new claims (OnDelete) or each pod's in its rollout turn. */
const VolumeClaimUpdateStrategyType = z.enum(["OnDelete", "OnPodRollingUpdate"]);

const VolumeClaimUpdateStrategySchema = z.object({
    type: z._default(VolumeClaimUpdateStrategyType, "OnDelete"),
  });

/**
 * MAX_RESERVE_ORDINALS is how many entries spec.reserveOrdinals may have (a range "a-b" is one
 * entry however many ordinals it reserves): far beyond any real list, and it bounds the work of
 * every question the ordinal range answers (objects/ordinal-range.ts).
 */
export const MAX_RESERVE_ORDINALS = 1000;

/** An entry of reserveOrdinals: an ordinal, or an inclusive range "a-b" (Kruise's format). */
const ReserveOrdinal = annotated(z.union([int32().check(z.minimum(0)), z.string().check(z.regex(/^[0-9]+-[0-9]+$/))]), { "x-kubernetes-int-or-string": true });

const StatefulSetSpecSchema = z.object({
    replicas: z._default(int32().check(z.minimum(0), z.maximum(MAX_REPLICAS)), 1),
    selector: LabelSelectorSchema,
    template: PodTemplateSchema,
    serviceName: z._default(z.string(), ""),
    volumeClaimTemplates: z.optional(z.array(ClaimTemplateSchema)),
    podManagementPolicy: z._default(PodManagementPolicy, "OrderedReady"),
    updateStrategy: z._default(UpdateStrategySchema, { type: "RollingUpdate", rollingUpdate: { ...ROLLING_UPDATE_DEFAULTS } }),
    revisionHistoryLimit: count(10),
    minReadySeconds: count(0),
    progressDeadlineSeconds: z.optional(int32().check(z.minimum(1))),
    persistentVolumeClaimRetentionPolicy: z.optional(
        z.object({
          whenDeleted: z._default(RetentionPolicy, "Retain"),
          whenScaled: z._default(RetentionPolicy, "Retain"),
        }),
      ),
    ordinals: z.optional(z.object({ start: count(0) })),
    lifecycle: z.optional(LifecycleSchema),
    volumeClaimUpdateStrategy: z.optional(VolumeClaimUpdateStrategySchema),
    scaleStrategy: z.optional(
        z.object({
          maxUnavailable: z.optional(intOrString()),
        }),
      ),
    reserveOrdinals: z.optional(z.array(ReserveOrdinal).check(z.maxLength(MAX_RESERVE_ORDINALS))),
    roles: z.optional(RolesSchema),
  });

const ConditionSchema = z.extend(conditionSchema(), {
    lastUpdateTime: z.optional(z.string()),
  });

const VolumeClaimStatusSchema = z.object({
    volumeClaimName: z.string(),
    compatibleReplicas: int32(),
    compatibleReadyReplicas: int32(),
  });

const StatefulSetStatusSchema = z.object({
    observedGeneration: z.optional(integer()),
    replicas: z._default(int32(), 0),
    readyReplicas: z.optional(int32()),
    currentReplicas: z.optional(int32()),
    updatedReplicas: z.optional(int32()),
    availableReplicas: z.optional(int32()),
    updatedReadyReplicas: z.optional(int32()),
    currentRevision: z.optional(z.string()),
    updateRevision: z.optional(z.string()),
    collisionCount: z.optional(int32()),
    labelSelector: z.optional(z.string()),
    conditions: z.optional(z.array(ConditionSchema)),
    volumeClaims: z.optional(z.array(VolumeClaimStatusSchema)),
    updateOrder: z.optional(z.string()),
  });

export const StatefulSetSchema = z.object({
    apiVersion: z._default(z.string(), API_VERSION),
    kind: z._default(z.string(), KIND),
    metadata: objectMeta(),
    spec: StatefulSetSpecSchema,
    status: z.optional(StatefulSetStatusSchema),
  });

/** A StatefulSet with every default filled in (what `StatefulSetSchema.parse` returns). */
export type StatefulSet = z.output<typeof StatefulSetSchema>;
export type StatefulSetStatus = z.output<typeof StatefulSetStatusSchema>;
export type Condition = z.output<typeof ConditionSchema>;
export type PriorityStrategy = z.output<typeof PriorityStrategySchema>;
export type LifecycleHook = z.output<ReturnType<typeof LifecycleHookSchema>>;
export type VolumeClaimStatus = z.output<typeof VolumeClaimStatusSchema>;
export type Roles = z.output<typeof RolesSchema>;
