import { isAlreadyExists, isConflict, type KubeClient, type KubeObject } from "../kube/client.ts";
import { base64, diff } from "../admission/patch.ts";
import { webhookConfigurations, type ConfigurationOptions, type DesiredConfig, type WebhookTarget } from "./webhook-configs.ts";

/**
 * Registration: apply Ordinal's webhook configurations and keep them applied. Each reconcile pass
 * calls `ensureWebhookRegistration`, which repairs drift (missing configuration, wrong url or
 * caBundle, missing webhook entries) and leaves alone what it does not own. An operator keeps
 * Ordinal's hands off a configuration with the annotation `ordinal.dev/registration: off`, and
 * mode `update` (deploy/'s default, which needs no `create` RBAC) never re-creates a deleted one.
 */

/** A configuration carrying this annotation is left alone by registration (value `off`). */
export const REGISTRATION_ANNOTATION = "ordinal.dev/registration";

/**
 * How registration treats the cluster's configurations (WEBHOOK_REGISTRATION): `create` creates
 * missing ones and repairs existing ones (needs `create` on webhook configurations, which RBAC
 * cannot limit by name: deploy/rbac-webhook-create.yaml); `update` only repairs existing ones
 * (deploy/'s default); `off` registers nothing.
 */
export type RegistrationMode = "create" | "update" | "off";

/**
 * Fields of each webhook entry Ordinal owns: where to call, what to send (rules, and on 1.28+ the
 * matchConditions, which are removed again when the desired entry has none), and the contract of the
 * handler. failurePolicy, timeoutSeconds, selectors, matchPolicy and reinvocationPolicy are set when
 * the entry is created and afterwards belong to the operator.
 */
const OWNED_HOOK_FIELDS = ["clientConfig", "rules", "matchConditions", "sideEffects", "admissionReviewVersions"] as const;

export interface RegistrationResult {
  /** `Kind/name` of each configuration created, updated or already as desired. */
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Absent and not created (mode `update`): an operator deleted it, or `kubectl apply -k deploy/` has not run. */
  missing: string[];
  /** Carrying the `ordinal.dev/registration` annotation: left as the operator has it. */
  left: string[];
}

export interface RegistrationOptions extends WebhookTarget, ConfigurationOptions {
  /** `create` (default) or `update`: whether a missing configuration is created. */
  mode?: Exclude<RegistrationMode, "off">;
}

interface WebhookEntry {
  name: string;
  [k: string]: unknown;
}
type ConfigObject = KubeObject & { webhooks?: WebhookEntry[] };

/**
 * mergeConfiguration returns `existing` with Ordinal's part of `desired` put in: our labels added
 * (others kept), our webhook entries added when missing and their owned fields set; other webhook
 * entries, labels, annotations and fields untouched.
 */
export function mergeConfiguration(existing: ConfigObject, desired: ConfigObject): ConfigObject {
  const next = structuredClone(existing);
  next.metadata = { ...next.metadata, labels: { ...next.metadata?.labels, ...desired.metadata?.labels } };
  const hooks = (next.webhooks ??= []);
  for (const want of desired.webhooks ?? []) {
    const have = hooks.find((w) => w.name === want.name);
    if (!have) {
      hooks.push(structuredClone(want));
      continue;
    }
    for (const field of OWNED_HOOK_FIELDS) {
      if (want[field] === undefined) delete have[field];
      else have[field] = structuredClone(want[field]);
    }
  }
  return next;
}

/**
 * ensureWebhookRegistration makes the cluster's webhook configurations match Ordinal's for the
 * server at `opts.url`: creates missing ones (mode `create` only) and merges into existing ones
 * (mergeConfiguration) unless they carry the `ordinal.dev/registration` annotation, writing only
 * when something changed. A write conflict is retried with a fresh read. The
 * apiserver's version (`opts.serverVersion`, else GET /version) decides whether hooks carry
 * matchConditions.
 */
export async function ensureWebhookRegistration(client: KubeClient, opts: RegistrationOptions): Promise<RegistrationResult> {
  const result: RegistrationResult = { created: [], updated: [], unchanged: [], missing: [], left: [] };
  const serverVersion = opts.serverVersion ?? (await client.serverVersion());
  for (const desired of webhookConfigurations(opts, { ...opts, serverVersion })) {
    const outcome = await ensureOne(client, desired, opts.mode ?? "create");
    result[outcome].push(`${desired.object.kind}/${desired.object.metadata?.name}`);
  }
  return result;
}

async function ensureOne(client: KubeClient, { resource, object }: DesiredConfig, mode: "create" | "update"): Promise<keyof RegistrationResult> {
  const desired = object as ConfigObject;
  const name = desired.metadata?.name ?? "";
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = await client.get<ConfigObject>(resource, undefined, name);
      if (!existing) {
        if (mode !== "create") return "missing";
        await client.create(resource, undefined, desired);
        return "created";
      }
      if (existing.metadata?.annotations?.[REGISTRATION_ANNOTATION] !== undefined) return "left";
      const next = mergeConfiguration(existing, desired);
      if (diff(existing, next).length === 0) return "unchanged";
      await client.update(resource, undefined, next);
      return "updated";
    } catch (e) {
      if (attempt < 3 && (isConflict(e) || isAlreadyExists(e))) continue;
      throw e;
    }
  }
}

/** caBundleFromPem returns the base64 a clientConfig.caBundle holds, after checking the text is PEM certificates. */
export function caBundleFromPem(pem: string, source = "CA bundle"): string {
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
    throw new Error(`${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return base64(new TextEncoder().encode(pem));
}
