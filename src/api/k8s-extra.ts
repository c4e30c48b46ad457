/** Types re-exported under the names the schemas use. */
export type { V1PodSpec as PodSpec, V1PersistentVolumeClaimSpec as PersistentVolumeClaimSpec } from "@kubernetes/client-node";
