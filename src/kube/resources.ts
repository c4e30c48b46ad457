/**
 * The API resources Ordinal touches, with their REST coordinates. `ResourceRef` is how the client
 * and the planner's actions name a kind; paths are built in one place (`resourcePath`).
 */
export interface ResourceRef {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural, lower case: "pods". */
  resource: string;
  kind: string;
  namespaced: boolean;
}

const ref = (group: string, version: string, resource: string, kind: string, namespaced = true): ResourceRef => ({
  group,
  version,
  resource,
  kind,
  namespaced,
});

export const R = {
  pods: ref("", "v1", "pods", "Pod"),
  pvcs: ref("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim"),
  events: ref("", "v1", "events", "Event"),
  nodes: ref("", "v1", "nodes", "Node", false),
  namespaces: ref("", "v1", "namespaces", "Namespace", false),
  serviceAccounts: ref("", "v1", "serviceaccounts", "ServiceAccount"),
  secrets: ref("", "v1", "secrets", "Secret"),
  storageClasses: ref("storage.k8s.io", "v1", "storageclasses", "StorageClass", false),
  controllerRevisions: ref("apps", "v1", "controllerrevisions", "ControllerRevision"),
  appsStatefulSets: ref("apps", "v1", "statefulsets", "StatefulSet"),
  statefulSets: ref("apps.ordinal.dev", "v1", "statefulsets", "StatefulSet"),
  imageLists: ref("apps.ordinal.dev", "v1", "imagelists", "ImageList"),
  leases: ref("coordination.k8s.io", "v1", "leases", "Lease"),
  /** Asked by the chosen-deletion webhook: may this user delete that pod (src/admission/delete-access.ts)? */
  subjectAccessReviews: ref("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false),
  /** policy/v1beta1: what 1.20 serves (policy/v1 from 1.21); read by tests and the fake apiserver's eviction. */
  podDisruptionBudgets: ref("policy", "v1beta1", "poddisruptionbudgets", "PodDisruptionBudget"),
  mutatingWebhooks: ref("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false),
  validatingWebhooks: ref("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false),
} as const;

/**
 * resourcePath returns the URL path of a collection (no name), an object, or a subresource.
 * `namespace` undefined on a namespaced resource means "all namespaces" (lists only).
 */
export function resourcePath(r: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const obj = name ? `/${encodeURIComponent(name)}` : "";
  const sub = name && subresource ? `/${subresource}` : "";
  return `${base}${ns}/${r.resource}${obj}${sub}`;
}
