/**
 * src/deploy owns what `kubectl apply -k deploy/` installs, generated from code so names agree
 * with the program's defaults: the namespace and ServiceAccount (identity.ts), the Deployment of
 * `ordinal serve`, its Service and PodDisruptionBudget, and the webhook configurations pointing at
 * that Service. `npm run gen` writes them under deploy/; `ordinal manifests` prints them.
 * deploy/rbac.yaml stays hand-written (test/deploy/rbac.test.ts checks it against the code).
 */
import { WEBHOOKS_OPT_OUT_LABEL, webhookConfigurations } from "../webhook-config/webhook-configs.ts";
import { INSTALL_NAMESPACE, SERVICE_ACCOUNT } from "./identity.ts";

type Json = Record<string, unknown>;

const SERVER_NAME = "ordinal";
const WEBHOOK_SERVICE = "ordinal-webhooks";
export const TLS_SECRET = "ordinal-webhook-tls";
/** The image name deploy/ uses; kustomization.yaml's `images:` maps it to a registry and tag. */
const IMAGE = "ordinal";
const PORT = 8443;
const partOf = { "app.kubernetes.io/part-of": "ordinal" };
const selector = { "app.kubernetes.io/name": SERVER_NAME };

export interface ServerOptions {
  image?: string;
  replicas?: number;
  namespace?: string;
  /** The cluster's Kubernetes minor version (1.x); unset: the current API (policy/v1, 1.21+). */
  kubeMinor?: number;
}

/** The first minor version of Kubernetes 1 with policy/v1 PodDisruptionBudget and the kubernetes.io/metadata.name namespace label. */
const POLICY_V1_SINCE = 21;

/**
 * kubeSystemOptOut returns, for a cluster older than 1.21, kube-system with the webhooks' opt-out
 * label: there the namespace has no kubernetes.io/metadata.name label for the hooks'
 * namespaceSelector to exclude it by (docs/security.md). Applying it only adds the label.
 */
export const kubeSystemOptOut = (kubeMinor: number | undefined): Json[] =>
  kubeMinor !== undefined && kubeMinor < POLICY_V1_SINCE ? [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system", labels: { [WEBHOOKS_OPT_OUT_LABEL]: "disabled" } } }] : [];

/** namespaceManifests returns the Namespace and the reconciler's ServiceAccount. */
export const namespaceManifests = (ns = INSTALL_NAMESPACE): Json[] => [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: partOf } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: SERVICE_ACCOUNT, namespace: ns, labels: partOf } },
];

/**
 * SERVER_MEMORY: the server's memory, chosen together (docs/operations.md, "Memory"). The
 * container's limit holds Node itself (code, TLS, buffers: about 50 MiB), the serving thread's heap
 * (old generation capped by NODE_OPTIONS; what it holds of admission bodies at once is bounded,
 * src/http/bytes-in-flight.ts), and the reconcile thread's (RECONCILE_HEAP_MB, its young
 * generation capped in src/node/reconcile-thread.ts; what a pass holds of one namespace follows it,
 * src/reconciler/namespace-budget.ts): 50 + 96 + 24 + 128 + 16 + list and body buffers < 384.
 */
const SERVER_MEMORY = { limitMi: 384, requestMi: 160, servingHeapMb: 96, servingSemiSpaceMb: 8, reconcileHeapMb: 128 };

/** serverEnv returns the Deployment's environment: the settings `ordinal serve` reads in the cluster. */
const serverEnv = (ns = INSTALL_NAMESPACE): ({ name: string; value: string } | { name: string; valueFrom: Json })[] => [
  { name: "HOST", value: "0.0.0.0" },
  { name: "PORT", value: String(PORT) },
  { name: "WEBHOOK_SERVICE", value: `${ns}/${WEBHOOK_SERVICE}` },
  { name: "WEBHOOK_TLS_SECRET", value: TLS_SECRET },
  // The apiserver of a managed cluster cannot present credentials to webhooks: see docs/security.md, "Auth modes".
  { name: "WEBHOOK_AUTH", value: "none" },
  { name: "LEASE_NAMESPACE", value: ns },
  // Repair existing webhook configurations, never create one: no cluster-wide create RBAC, and a
  // configuration an operator deleted stays deleted (docs/install.md: "Registration and RBAC").
  { name: "WEBHOOK_REGISTRATION", value: "update" },
  { name: "LOG_LEVEL", value: "info" },
  // The reconciler's own heap (a worker thread) within the container's limit (SERVER_MEMORY): a
  // pass that needs more restarts that thread, never the webhooks (src/node/reconcile-thread.ts).
  { name: "RECONCILE_HEAP_MB", value: String(SERVER_MEMORY.reconcileHeapMb) },
  // The serving thread's heap (SERVER_MEMORY): V8 collects before it grows past it.
  { name: "NODE_OPTIONS", value: `--max-old-space-size=${SERVER_MEMORY.servingHeapMb} --max-semi-space-size=${SERVER_MEMORY.servingSemiSpaceMb}` },
  // The replica's address: the Lease holder writes it on the Lease, and the standby forwards the
  // wakes its webhooks see there (src/node/wake-forward.ts).
  { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
  // The replica's name on the Leases it holds and in the apiserver's audit log (User-Agent ordinal/<pod>-<hex>).
  { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
  // 8 shards (Leases ordinal-reconciler-<i>-of-8): each replica announces itself, then takes its
  // share (8 split evenly over the live replicas: 4 each, whatever their start order; a replica
  // that joins later is handed its part within a retry period); when one dies the other takes
  // its shards as their Leases expire (30 s). A wake seen by a replica that does not hold its set's
  // shard is forwarded to the holder (src/schedule/shard-schedulers.ts, shard-share.ts).
  { name: "RECONCILE_SHARDS", value: "8" },
];

/** serverManifests returns the Deployment (2 replicas, non-root, read-only root), the Service and the PDB. */
export function serverManifests(o: ServerOptions = {}): Json[] {
  const ns = o.namespace ?? INSTALL_NAMESPACE;
  const meta = (name: string) => ({ name, namespace: ns, labels: { ...partOf, ...selector } });
  const probe = { httpGet: { path: "/healthz", port: PORT, scheme: "HTTPS" }, periodSeconds: 10 };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(SERVER_NAME),
      spec: {
        replicas: o.replicas ?? 2,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: { ...partOf, ...selector } },
          spec: {
            serviceAccountName: SERVICE_ACCOUNT,
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: "RuntimeDefault" } },
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: selector } } }],
              },
            },
            containers: [
              {
                name: "ordinal",
                image: o.image ?? IMAGE,
                args: ["serve"],
                env: serverEnv(ns),
                ports: [{ name: "https", containerPort: PORT }],
                readinessProbe: probe,
                livenessProbe: { ...probe, failureThreshold: 6 },
                resources: { requests: { cpu: "50m", memory: `${SERVER_MEMORY.requestMi}Mi` }, limits: { memory: `${SERVER_MEMORY.limitMi}Mi` } },
                securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(WEBHOOK_SERVICE),
      spec: { selector, ports: [{ name: "https", port: 443, targetPort: PORT }] },
    },
    {
      apiVersion: o.kubeMinor !== undefined && o.kubeMinor < POLICY_V1_SINCE ? "policy/v1beta1" : "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: meta(SERVER_NAME),
      spec: { minAvailable: 1, selector: { matchLabels: selector } },
    },
  ];
}

/**
 * webhookManifests returns the webhook configurations pointing at the Service. They carry no
 * caBundle: `ordinal serve` fills it in from its Secret on start and keeps it (kubectl apply
 * leaves a field it never set alone).
 */
export const webhookManifests = (ns = INSTALL_NAMESPACE): Json[] =>
  webhookConfigurations({ url: "", service: { namespace: ns, name: WEBHOOK_SERVICE } }).map((c) => c.object as Json);
