import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from "../api/k8s.ts";
import { GROUP, VERSION } from "../api/statefulset.ts";
import { COMPONENT, INPLACE_STATE_ANNOTATION, PULLER_LABEL, SET_NAME_LABEL, SPECIFIED_DELETE_LABEL } from "../objects/constants.ts";
import { R, type ResourceRef } from "../kube/resources.ts";
import type { ServerVersion } from "../kube/client.ts";

/**
 * src/webhook-config owns how the apiserver is told about Ordinal's webhooks: the configurations
 * (this file, the source of truth), applying and repairing them (registration.ts) and the
 * generated webhooks/*.yaml (gen-webhooks.ts); `ordinal register` (src/cli/register.ts) calls
 * registration.ts. It imports the API names and the kube client, never the admission handlers.
 *
 * The source of truth for Ordinal's webhook registrations. `webhooks/*.yaml` are generated from
 * these objects (`npm run gen`), `ordinal register` and every reconcile pass
 * apply them (registration.ts), and the hono app serves `WEBHOOK_PATHS`.
 */

export const WEBHOOK_PATHS = {
  mutatePods: "/mutate/pods",
  mutateStatefulSets: "/mutate/statefulsets",
  validatePods: "/validate/pods",
  /** The chosen-deletion label: only from someone who may delete the pod (src/admission/specified-delete.ts). */
  validateSpecifiedDelete: "/validate/specified-delete",
  validateStatefulSets: "/validate/statefulsets",
  validateImageLists: "/validate/imagelists",
  /** Wake-only rules: always allowed; the request wakes the reconciler (src/admission/wakes.ts). */
  wake: "/validate/wake",
} as const;

/** Configuration object names (Mutating and Validating configurations are separate kinds). */
export const CONFIG_NAME = "ordinal";
/** The optional configuration that sends apps/v1 StatefulSets to Ordinal's validation too. */
export const APPS_V1_CONFIG_NAME = "ordinal-apps-v1";

/** A namespace labelled `ordinal.dev/webhooks=disabled` is skipped by every hook (the escape hatch). */
export const WEBHOOKS_OPT_OUT_LABEL = "ordinal.dev/webhooks";

/** Where a webhook template's url points until `register` fills in the real one. */
export const PLACEHOLDER_URL = "https://ordinal.invalid";

type Webhook = NonNullable<ValidatingWebhookConfiguration["webhooks"]>[number] & { reinvocationPolicy?: string };

interface HookSpec {
  /** Which configuration the hook belongs to. */
  config: "mutating" | "validating" | "apps-v1";
  /** The hook itself, without clientConfig (built from the url). */
  hook: Omit<Webhook, "clientConfig"> & { path: string };
  /**
   * CEL conditions that narrow the hook further on an apiserver that has them (1.28+, where
   * matchConditions are on by default; older ones drop the field, or refuse it): registration adds
   * them only when the apiserver's /version says so (`supportsMatchConditions`).
   */
  matchConditions?: MatchCondition[];
}

type MatchCondition = NonNullable<Webhook["matchConditions"]>[number];

/** MATCH_CONDITIONS_SINCE is the first minor version of Kubernetes 1 whose apiserver evaluates matchConditions by default (beta). */
const MATCH_CONDITIONS_SINCE = 28;

/** supportsMatchConditions returns whether an apiserver of version `v` evaluates webhook matchConditions (1.28 or later). */
function supportsMatchConditions(v: ServerVersion | undefined): boolean {
  if (!v) return false;
  const major = Number.parseInt(v.major, 10);
  const minor = Number.parseInt(v.minor, 10);
  return major > 1 || (major === 1 && minor >= MATCH_CONDITIONS_SINCE);
}

// kube-system never reaches a hook, nor does a namespace that opted out. The name label exists from
// Kubernetes 1.21; on 1.20 NotIn on an absent label matches, so there the install labels kube-system
// with the opt-out label (`ordinal manifests --kube-version 1.20`; README).
const namespaceSelector = {
  matchExpressions: [
    { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
    { key: WEBHOOKS_OPT_OUT_LABEL, operator: "NotIn", values: ["disabled"] },
  ],
};
// Only pods carrying our set-name label (every pod the reconciler creates) reach the pod hooks.
const managedPods = { matchExpressions: [{ key: SET_NAME_LABEL, operator: "Exists" }] };

// Ordinal's pods carrying the chosen-deletion label (old or new object: one that adds it reaches the hook).
const chosenPods = { matchExpressions: [...managedPods.matchExpressions, { key: SPECIFIED_DELETE_LABEL, operator: "Exists" }] };

// Image puller pods (src/core/puller-pod.ts): their status is the ImageList's progress.
const pullerPods = { matchExpressions: [{ key: PULLER_LABEL, operator: "Exists" }] };

/**
 * Wake-only hooks (WEBHOOK_PATHS.wake) always allow: they exist so the reconciler hears of what
 * no other hook sees (a set's delete or scale, a managed pod's delete, a claim's create or delete,
 * a puller pod's progress). Ignore and the shortest timeout: down, they cost latency (the periodic
 * pass still comes), never an admission; hung, one second per matching request.
 */
const WAKE_ONLY = { failurePolicy: "Ignore", timeoutSeconds: 1 } as const;

const common = {
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  matchPolicy: "Equivalent",
  namespaceSelector,
};

/** Ordinal's hooks; why each has its failurePolicy is written beside them in the YAML, from WHY in gen-webhooks.ts. */
export const HOOKS: readonly HookSpec[] = [
  {
    config: "mutating",
    hook: {
      name: "pods.mutate.ordinal.dev",
      path: WEBHOOK_PATHS.mutatePods,
      rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"], scope: "Namespaced" }],
      failurePolicy: "Fail",
      reinvocationPolicy: "IfNeeded",
      timeoutSeconds: 10,
      objectSelector: managedPods,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "pods.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validatePods,
      rules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"], scope: "Namespaced" },
        {
          apiGroups: [""],
          apiVersions: ["v1"],
          operations: ["UPDATE"],
          resources: ["pods/status", "pods/ephemeralcontainers", "pods/resize"],
          scope: "Namespaced",
        },
      ],
      failurePolicy: "Ignore",
      timeoutSeconds: 5,
      objectSelector: managedPods,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "statefulsets.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validateStatefulSets,
      rules: [{ apiGroups: [GROUP], apiVersions: [VERSION], operations: ["CREATE", "UPDATE"], resources: ["statefulsets"], scope: "Namespaced" }],
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "imagelists.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validateImageLists,
      rules: [{ apiGroups: [GROUP], apiVersions: [VERSION], operations: ["CREATE", "UPDATE"], resources: ["imagelists"], scope: "Namespaced" }],
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "bindings.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validatePods,
      rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods/binding"], scope: "Namespaced" }],
      failurePolicy: "Ignore",
      // The smallest the API allows: a hung server delays each binding it sees by this much.
      timeoutSeconds: 1,
      ...common,
    },
    // Only a Binding that carries the reserved annotation can be refused: on 1.28+ no other one is sent.
    matchConditions: [
      {
        name: "carries-inplace-update-state",
        expression: `has(object.metadata.annotations) && '${INPLACE_STATE_ANNOTATION}' in object.metadata.annotations`,
      },
    ],
  },
  {
    config: "validating",
    hook: {
      name: "specified-delete.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validateSpecifiedDelete,
      rules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"], scope: "Namespaced" },
        { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/status"], scope: "Namespaced" },
      ],
      failurePolicy: "Fail",
      timeoutSeconds: 5,
      objectSelector: chosenPods,
      ...common,
    },
    // Only a request that adds the label can be refused: on 1.28+ no other one is sent (so a pod
    // chosen already is not held up while the webhook is down).
    matchConditions: [
      {
        name: "adds-specified-delete",
        expression:
          `has(object.metadata.labels) && '${SPECIFIED_DELETE_LABEL}' in object.metadata.labels && ` +
          `(oldObject == null || !has(oldObject.metadata.labels) || !('${SPECIFIED_DELETE_LABEL}' in oldObject.metadata.labels))`,
      },
    ],
  },
  {
    config: "validating",
    hook: {
      name: "statefulsets.wake.ordinal.dev",
      path: WEBHOOK_PATHS.wake,
      rules: [
        { apiGroups: [GROUP], apiVersions: [VERSION], operations: ["DELETE"], resources: ["statefulsets", "imagelists"], scope: "Namespaced" },
        { apiGroups: [GROUP], apiVersions: [VERSION], operations: ["UPDATE"], resources: ["statefulsets/scale"], scope: "Namespaced" },
      ],
      ...WAKE_ONLY,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "pods.wake.ordinal.dev",
      path: WEBHOOK_PATHS.wake,
      rules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["pods"], scope: "Namespaced" },
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["persistentvolumeclaims"], scope: "Namespaced" },
      ],
      ...WAKE_ONLY,
      objectSelector: managedPods,
      ...common,
    },
  },
  {
    config: "validating",
    hook: {
      name: "pullers.wake.ordinal.dev",
      path: WEBHOOK_PATHS.wake,
      rules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["pods"], scope: "Namespaced" },
        { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/status"], scope: "Namespaced" },
      ],
      ...WAKE_ONLY,
      objectSelector: pullerPods,
      ...common,
    },
  },
  {
    config: "apps-v1",
    hook: {
      name: "statefulsets.apps.validate.ordinal.dev",
      path: WEBHOOK_PATHS.validateStatefulSets,
      rules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["statefulsets"], scope: "Namespaced" }],
      failurePolicy: "Ignore",
      timeoutSeconds: 5,
      ...common,
    },
  },
  {
    config: "mutating",
    hook: {
      name: "statefulsets.mutate.ordinal.dev",
      path: WEBHOOK_PATHS.mutateStatefulSets,
      rules: [{ apiGroups: [GROUP], apiVersions: [VERSION], operations: ["CREATE", "UPDATE"], resources: ["statefulsets"], scope: "Namespaced" }],
      failurePolicy: "Ignore",
      timeoutSeconds: 5,
      ...common,
    },
  },
];

export interface WebhookTarget {
  /** Base URL of the webhook server, e.g. https://127.0.0.1:28443 (paths are appended). */
  url: string;
  /** In a cluster: the Service in front of the server (port 443); wins over `url`. */
  service?: { namespace: string; name: string };
  /** base64 of the PEM CA bundle that verifies the server; omitted → system roots. */
  caBundle?: string;
}

export interface DesiredConfig {
  resource: ResourceRef;
  object: MutatingWebhookConfiguration | ValidatingWebhookConfiguration;
}

const MANAGED_BY_LABELS = { "app.kubernetes.io/managed-by": COMPONENT } as const;

export interface ConfigurationOptions {
  validateAppsV1StatefulSets?: boolean;
  /** The apiserver's version; unknown → the configurations every supported version accepts (no matchConditions). */
  serverVersion?: ServerVersion;
}

/**
 * webhookConfigurations returns the configurations to apply for a webhook server at `target`:
 * the MutatingWebhookConfiguration and ValidatingWebhookConfiguration `ordinal`, plus
 * ValidatingWebhookConfiguration `ordinal-apps-v1` when apps/v1 StatefulSets are validated too.
 * Hooks carry their matchConditions only for an apiserver known to evaluate them.
 */
export function webhookConfigurations(target: WebhookTarget, opts: ConfigurationOptions = {}): DesiredConfig[] {
  const base = target.url.replace(/\/+$/, "");
  const conditions = supportsMatchConditions(opts.serverVersion);
  const build = (config: HookSpec["config"]): Webhook[] =>
    HOOKS.filter((h) => h.config === config).map(({ hook: { path, name, ...rest }, matchConditions }) => ({
      name,
      clientConfig: {
        ...(target.service ? { service: { ...target.service, path, port: 443 } } : { url: `${base}${path}` }),
        ...(target.caBundle ? { caBundle: target.caBundle } : {}),
      },
      ...structuredClone(rest),
      ...(conditions && matchConditions ? { matchConditions: structuredClone(matchConditions) } : {}),
    }));
  const meta = (name: string) => ({ name, labels: { ...MANAGED_BY_LABELS } });
  const configs: DesiredConfig[] = [
    {
      resource: R.mutatingWebhooks,
      object: { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: meta(CONFIG_NAME), webhooks: build("mutating") },
    },
    {
      resource: R.validatingWebhooks,
      object: { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: meta(CONFIG_NAME), webhooks: build("validating") },
    },
  ];
  if (opts.validateAppsV1StatefulSets) {
    configs.push({
      resource: R.validatingWebhooks,
      object: { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: meta(APPS_V1_CONFIG_NAME), webhooks: build("apps-v1") },
    });
  }
  return configs;
}

/** What of an admission request its hook's rules match on. */
interface RuleTarget {
  resource: { group: string; resource: string };
  subResource?: string;
  operation: string;
}

/**
 * hooksSend is true when some hook served at `path` has a rule that sends the apiserver's request
 * `r` there (its group, resource with subresource, and operation; versions are Equivalent). A review
 * the registered rules would never send was made by someone else: the wake hook refuses it (400).
 */
export function hooksSend(path: string, r: RuleTarget): boolean {
  const resource = r.subResource ? `${r.resource.resource}/${r.subResource}` : r.resource.resource;
  return HOOKS.some(
    ({ hook }) =>
      hook.path === path &&
      (hook.rules ?? []).some((rule) => (rule.apiGroups ?? []).includes(r.resource.group) && (rule.resources ?? []).includes(resource) && (rule.operations ?? []).includes(r.operation)),
  );
}
