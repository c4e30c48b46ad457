/**
 * Kubernetes object types, taken from @kubernetes/client-node as types only: its runtime is never
 * bundled (it is 1.2 MB and its undici does not load in workerd).
 */
export type {
  V1Pod as Pod,
  V1PodTemplateSpec as PodTemplateSpec,
  V1PodCondition as PodCondition,
  V1Container as Container,
  V1ContainerStatus as ContainerStatus,
  V1Volume as Volume,
  V1PersistentVolumeClaim as PersistentVolumeClaim,
  V1ControllerRevision as ControllerRevision,
  V1OwnerReference as OwnerReference,
  V1Lease as Lease,
  CoreV1Event as Event,
  V1MutatingWebhookConfiguration as MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration as ValidatingWebhookConfiguration,
} from "@kubernetes/client-node";
