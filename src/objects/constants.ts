/** Label, annotation and condition names Ordinal reads and writes. Standard keys keep their meaning. */

export const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
export const REVISION_LABEL = "controller-revision-hash";

/** Set on pods and PVCs Ordinal manages: the name of the owning set (used by webhook objectSelectors). */
export const SET_NAME_LABEL = "ordinal.dev/statefulset";
/** JSON record of an in-place update in progress on a pod (revision, images, times). */
export const INPLACE_STATE_ANNOTATION = "ordinal.dev/inplace-update-state";

/** The readiness gate of every managed pod; False while an in-place update is in flight. */
export const INPLACE_READY_CONDITION = "InPlaceUpdateReady";

/** Condition types on the set's status. */
export const PROGRESSING_CONDITION = "Progressing";
export const PAUSED_CONDITION = "Paused";
export const INPLACE_BLOCKED_CONDITION = "InPlaceUpdateBlocked";
/** True while a claim that volumeClaimUpdateStrategy OnPodRollingUpdate should grow cannot be expanded (its StorageClass). */
export const VOLUME_EXPANSION_BLOCKED_CONDITION = "VolumeExpansionBlocked";
/**
 * True while the apiserver refuses to create a replica's pod or claim (Deployment's ReplicaFailure,
 * reason FailedCreate): the executor writes it from the refusal's message, so the next pass (and
 * `ordinal rollout status`) can name the blocker from the cluster (core/create-refusal.ts).
 */
export const REPLICA_FAILURE_CONDITION = "ReplicaFailure";
/** Progressing's reason once spec.progressDeadlineSeconds passed without progress (Deployment's word). */
export const DEADLINE_EXCEEDED_REASON = "ProgressDeadlineExceeded";
/** Progressing's reason when the rollout is done but for claims to grow that are not Bound yet (read by rollout status). */
export const WAITING_FOR_CLAIM_REASON = "WaitingForClaim";
/**
 * On a set: the revisions a rollbackOnFailure rolled back from, comma-separated, oldest first (at
 * most MAX_FAILED_REVISIONS kept). Ordinal never rolls back from, nor to, a revision listed here.
 */
export const FAILED_REVISIONS_ANNOTATION = "ordinal.dev/failed-revisions";
/** True while the set cannot be planned: its stored spec does not parse, or planning it failed (src/reconciler/set-error.ts). */
export const RECONCILE_ERROR_CONDITION = "ReconcileError";

/** The field manager / component name in events and ownerReferences. */
export const COMPONENT = "ordinal";

/** On an ImageList: JSON `{ "<normalized image>": ["<set>", …] }`, the entries Ordinal's rollouts added and for which sets. */
export const PREWARM_ADDED_ANNOTATION = "ordinal.dev/prewarm-added";
/** On an ImageList Ordinal created for a rollout (value "true"): deleted once no entry is left. */
export const PREWARM_CREATED_ANNOTATION = "ordinal.dev/prewarm-created";
/** On puller pods (pre-warm): lists them (value "true"). */
export const PULLER_LABEL = "ordinal.dev/image-puller";
/** On puller pods: the normalized image the pod pulls. */
export const PULLER_IMAGE_ANNOTATION = "ordinal.dev/image";
/** The template annotation `kubectl rollout restart` (and `ordinal rollout restart`) sets to now: a restart. */
export const RESTARTED_AT_ANNOTATION = "kubectl.kubernetes.io/restartedAt";

/**
 * The lifecycle state of a pod (Kruise's `lifecycle.apps.kruise.io/state`): Normal,
 * PreparingDelete, PreparingUpdate, Updating, Updated (src/core/lifecycle.ts). Only the
 * reconciler writes it on a managed pod.
 */
export const LIFECYCLE_STATE_LABEL = "ordinal.dev/lifecycle-state";
/** When the reconciler last wrote the lifecycle state (Kruise's `lifecycle.apps.kruise.io/timestamp`), RFC 3339. */
export const LIFECYCLE_TIMESTAMP_ANNOTATION = "ordinal.dev/lifecycle-timestamp";
/**
 * Set condition: True while a switchover (spec.roles.switchover) was requested and not answered
 * within its timeoutSeconds, naming the pods (src/core/switchover.ts); also Progressing's reason then.
 */
export const SWITCHOVER_TIMED_OUT_CONDITION = "SwitchoverTimedOut";
/** Set condition: True while a lifecycle hook holds one or more pods (PreparingDelete, PreparingUpdate). */
export const LIFECYCLE_HELD_CONDITION = "LifecycleHookHeld";

/**
 * A pod label (Kruise's `apps.kruise.io/specified-delete`): the pod is deleted and recreated at
 * its ordinal, counted against maxUnavailable. Any value counts, as Kruise checks presence; write "true".
 */
export const SPECIFIED_DELETE_LABEL = "ordinal.dev/specified-delete";

/**
 * On a pod holding a role of spec.roles.switchover.roles: the reconciler asks the application to
 * hand the role away (the value is the request's time, RFC 3339) before it updates or deletes the
 * pod (src/core/switchover.ts). Only the reconciler writes it (src/admission/validate-pods.ts).
 */
export const SWITCHOVER_REQUEST_ANNOTATION = "ordinal.dev/switchover-requested";

/**
 * The control keys of a pod: labels and annotations whose presence or value steers the
 * reconciler (the chosen deletion, the lifecycle state and its time, the in-place update state, the
 * puller mark and its image). They belong on one pod, written by the reconciler or, for the chosen
 * deletion, by someone who may delete that pod (src/admission/specified-delete.ts) — never by a
 * template: the set's validation refuses them in spec.template and in a lifecycle hook's
 * labelsHandler, a pod built from a template never takes them from it (pod.ts) and an in-place
 * update never copies or removes them (src/core/inplace-calculate.ts), so a set stored before
 * that validation cannot churn its pods either.
 */
export const POD_CONTROL_LABELS: readonly string[] = [SPECIFIED_DELETE_LABEL, LIFECYCLE_STATE_LABEL, PULLER_LABEL];
/** The control annotations of a pod (see POD_CONTROL_LABELS). */
export const POD_CONTROL_ANNOTATIONS: readonly string[] = [INPLACE_STATE_ANNOTATION, LIFECYCLE_TIMESTAMP_ANNOTATION, PULLER_IMAGE_ANNOTATION, SWITCHOVER_REQUEST_ANNOTATION];
