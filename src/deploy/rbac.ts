/**
 * Least-privilege RBAC of the reconciler's ServiceAccount, as data: exactly the verbs the code
 * uses (test/deploy/rbac.test.ts scans src/ for the requests and fails on a verb granted but
 * unused or used but not granted). No get where list serves.
 * - Watch (with list) on what a set's pass reads: Ordinal's StatefulSets and ImageLists, pods,
 *   claims and revisions (those labelled ordinal.dev/statefulset: the selector is the request's,
 *   RBAC cannot narrow it): `ordinal serve`'s watch cache (src/schedule/watch-cache.ts).
 * - Pods: listed (only those carrying ordinal.dev/statefulset), created, deleted, patched
 *   (adoption, identity labels), read by name (an unlabelled orphan whose create met
 *   AlreadyExists); status patched (the InPlaceUpdateReady condition).
 * - Pods evicted (pods/eviction create): a pod chosen for deletion (ordinal.dev/specified-delete) is
 *   evicted, so PodDisruptionBudgets hold (src/reconciler/evict.ts).
 * - SubjectAccessReviews created: the chosen-deletion webhook asks whether whoever adds that label
 *   may delete the pod (src/admission/delete-access.ts). A review only answers a question; it grants nothing.
 * - PVCs: created and patched (retention-policy ownerReferences, expansion to a larger template request) but NEVER deleted: only the
 *   garbage collector deletes claims, and only when a retention policy put a reference there.
 * - ControllerRevisions: full lifecycle (history truncation deletes old ones).
 * - Ordinal StatefulSets: read (get: the mutating webhook's lookup); status patched only through
 *   the status subresource.
 * - ImageLists (pre-warm): listed, created and patched (a rollout's entries), deleted (one Ordinal
 *   created, once empty); status patched.
 *   Puller pods use the pod verbs above (list by label or by node, create, delete).
 * - ServiceAccounts: read by name (get), for the imagePullSecrets of a pre-warmed set's account.
 * - StorageClasses: listed (whether each allows volume expansion), only by a pass in which a claim
 *   should grow to its template (volumeClaimUpdateStrategy OnPodRollingUpdate).
 * - Namespaces: listed (names only used) by a shard of several (RECONCILE_SHARDS > 1), to read its
 *   own namespaces' sets and never another shard's.
 * - Events: created, and patched (count/lastTimestamp of a repeated event, kube's correlator).
 * - Webhook configurations: only Ordinal's, by name (get/update). `create` cannot be limited by name
 *   in RBAC and would let a pass re-create a configuration an operator deleted in an emergency, so
 *   it is not here: deploy/ runs WEBHOOK_REGISTRATION=update, and only `create` mode (the Worker's
 *   WEBHOOK_URL path) needs the optional deploy/rbac-webhook-create.yaml (webhookCreateRbacManifests).
 * - In its own namespace only (Role): the Leases that elect one active reconciler per shard (listed:
 *   a shard waits while another shard count's Lease is live, shard-leases.ts; each replica renews
 *   a Lease saying it runs, shard-share.ts, and deletes its own at stop and a dead replica's), and the
 *   Secret holding the webhook serving certificate (get by name; create once).
 */
import { APPS_V1_CONFIG_NAME, CONFIG_NAME } from "../webhook-config/webhook-configs.ts";
import { INSTALL_NAMESPACE, SERVICE_ACCOUNT } from "./identity.ts";
import { TLS_SECRET } from "./manifests.ts";

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const NAME = "ordinal-reconciler";
const labels = { "app.kubernetes.io/part-of": "ordinal" };

const CLUSTER_RULES: Rule[] = [
  { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch", "create", "delete", "patch"] },
  { apiGroups: [""], resources: ["pods/status"], verbs: ["patch"] },
  { apiGroups: [""], resources: ["pods/eviction"], verbs: ["create"] },
  { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
  { apiGroups: [""], resources: ["persistentvolumeclaims"], verbs: ["list", "watch", "create", "patch"] },
  { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
  { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["get"] },
  { apiGroups: ["storage.k8s.io"], resources: ["storageclasses"], verbs: ["list"] },
  { apiGroups: [""], resources: ["namespaces"], verbs: ["list"] },
  { apiGroups: ["apps"], resources: ["controllerrevisions"], verbs: ["get", "list", "watch", "create", "patch", "delete"] },
  { apiGroups: ["apps.ordinal.dev"], resources: ["statefulsets"], verbs: ["get", "list", "watch", "patch"] },
  { apiGroups: ["apps.ordinal.dev"], resources: ["statefulsets/status"], verbs: ["patch"] },
  { apiGroups: ["apps.ordinal.dev"], resources: ["imagelists"], verbs: ["list", "watch", "create", "patch", "delete"] },
  { apiGroups: ["apps.ordinal.dev"], resources: ["imagelists/status"], verbs: ["patch"] },
  {
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"],
    verbs: ["get", "update"],
    resourceNames: [CONFIG_NAME, APPS_V1_CONFIG_NAME],
  },
];

/** The optional grant (not in deploy/kustomization.yaml): registration mode `create`. */
const WEBHOOK_CREATE_RULES: Rule[] = [
  { apiGroups: ["admissionregistration.k8s.io"], resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], verbs: ["create"] },
];

const NAMESPACE_RULES: Rule[] = [
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "create", "update", "delete"] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: [TLS_SECRET] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
];

/** clusterRole returns a ClusterRole `name` with `rules` and its binding to the ServiceAccount in `ns`. */
function clusterRole(name: string, rules: Rule[], ns: string): Record<string, unknown>[] {
  const subjects = [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace: ns }];
  return [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name, labels }, rules },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name, labels }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name }, subjects },
  ];
}

/**
 * webhookCreateRbacManifests returns the optional ClusterRole (and binding) that lets registration
 * create missing webhook configurations (WEBHOOK_REGISTRATION=create): deploy/rbac-webhook-create.yaml.
 */
export const webhookCreateRbacManifests = (ns = INSTALL_NAMESPACE): Record<string, unknown>[] => clusterRole(`${NAME}-webhook-create`, WEBHOOK_CREATE_RULES, ns);

/** rbacManifests returns the ClusterRole, Role and their bindings to the ServiceAccount. */
export function rbacManifests(ns = INSTALL_NAMESPACE): Record<string, unknown>[] {
  const subjects = [{ kind: "ServiceAccount", name: SERVICE_ACCOUNT, namespace: ns }];
  return [
    ...clusterRole(NAME, CLUSTER_RULES, ns),
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: `${NAME}-own-namespace`, namespace: ns, labels }, rules: NAMESPACE_RULES },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `${NAME}-own-namespace`, namespace: ns, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${NAME}-own-namespace` },
      subjects,
    },
  ];
}
