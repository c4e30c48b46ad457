import { stringify } from "yaml";
import { isAlreadyExists, isConflict, type KubeClient, type KubeObject } from "../kube/client.ts";
import { parseFlags } from "./args.ts";
import { base64, diff } from "./patch.ts";
import { webhookConfigurations, type DesiredConfig, type WebhookTarget } from "./webhook-configs.ts";

/**
 * Registration: apply Ordinal's webhook configurations and keep them applied. Each reconcile pass
 * calls `ensureWebhookRegistration`, which repairs drift (missing configuration, wrong url or
 * caBundle, missing webhook entries) and leaves alone what it does not own.
 */

/**
 * Fields of each webhook entry Ordinal owns: where to call, what to send, and the contract of the
 * handler. failurePolicy, timeoutSeconds, selectors, matchPolicy and reinvocationPolicy are set when
 * the entry is created and afterwards belong to the operator.
 */
const OWNED_HOOK_FIELDS = ["clientConfig", "rules", "sideEffects", "admissionReviewVersions"] as const;

export interface RegistrationResult {
  /** `Kind/name` of each configuration created, updated or already as desired. */
  created: string[];
  updated: string[];
  unchanged: string[];
}

export interface RegistrationOptions extends WebhookTarget {
  validateAppsV1StatefulSets?: boolean;
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
    for (const field of OWNED_HOOK_FIELDS) have[field] = structuredClone(want[field]);
  }
  return next;
}

/**
 * ensureWebhookRegistration makes the cluster's webhook configurations match Ordinal's for the
 * server at `opts.url`: creates missing ones and merges into existing ones (mergeConfiguration),
 * writing only when something changed. A write conflict is retried with a fresh read.
 */
export async function ensureWebhookRegistration(client: KubeClient, opts: RegistrationOptions): Promise<RegistrationResult> {
  const result: RegistrationResult = { created: [], updated: [], unchanged: [] };
  for (const desired of webhookConfigurations(opts, opts)) {
    const outcome = await ensureOne(client, desired);
    result[outcome].push(`${desired.object.kind}/${desired.object.metadata?.name}`);
  }
  return result;
}

async function ensureOne(client: KubeClient, { resource, object }: DesiredConfig): Promise<keyof RegistrationResult> {
  const desired = object as ConfigObject;
  const name = desired.metadata?.name ?? "";
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = await client.get<ConfigObject>(resource, undefined, name);
      if (!existing) {
        await client.create(resource, undefined, desired);
        return "created";
      }
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

/** File access the CLI gives the commands (Node's fs in src/node; an object in tests). */
export interface CommandIO {
  readFile(path: string): Promise<string>;
  writeFile?(path: string, data: string, opts?: { mode?: number }): Promise<void>;
  mkdir?(path: string): Promise<void>;
}

export const REGISTER_USAGE =
  "usage: ordinal register --url https://HOST[:PORT] [--ca-bundle FILE] [--validate-apps-v1] [--dry-run]\n" +
  "  Applies Ordinal's Mutating/ValidatingWebhookConfigurations pointing at the webhook server at --url,\n" +
  "  trusting the PEM certificates in --ca-bundle (default: the apiserver's system roots).\n" +
  "  --dry-run prints them as YAML instead.";

/**
 * registerCommand implements `ordinal register`: it applies the webhook configurations and
 * returns what it did, one `Kind/name created|updated|unchanged` line each (YAML with --dry-run).
 */
export async function registerCommand(args: readonly string[], client: KubeClient | undefined, io: CommandIO): Promise<string> {
  const flags = parseFlags(args, { url: "string", "ca-bundle": "string", "validate-apps-v1": "boolean", "dry-run": "boolean", help: "boolean" });
  if (flags.help) return REGISTER_USAGE;
  if (!flags.url) throw new Error(`--url is required\n${REGISTER_USAGE}`);
  const url = checkWebhookUrl(flags.url);
  const caBundle = flags["ca-bundle"] ? caBundleFromPem(await io.readFile(flags["ca-bundle"]), flags["ca-bundle"]) : undefined;
  const opts: RegistrationOptions = { url, caBundle, validateAppsV1StatefulSets: flags["validate-apps-v1"] };
  if (flags["dry-run"]) return webhookConfigurations(opts, opts).map((c) => stringify(c.object)).join("---\n");
  if (!client) throw new Error("no apiserver client: set KUBECONFIG or KUBE_API_URL");
  const r = await ensureWebhookRegistration(client, opts);
  return [...r.created.map((n) => `${n} created`), ...r.updated.map((n) => `${n} updated`), ...r.unchanged.map((n) => `${n} unchanged`)].join("\n");
}

/** checkWebhookUrl returns the base URL without trailing slash, or throws: the apiserver calls https only, without query or fragment. */
export function checkWebhookUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`--url ${JSON.stringify(raw)} is not a URL; e.g. https://127.0.0.1:28443`);
  }
  if (u.protocol !== "https:") throw new Error(`--url must be https:// (the apiserver calls webhooks over TLS only), got ${raw}`);
  if (u.search || u.hash || u.username || u.password) throw new Error(`--url must not carry a query, fragment or user info: ${raw}`);
  return raw.replace(/\/+$/, "");
}

/** caBundleFromPem returns the base64 a clientConfig.caBundle holds, after checking the text is PEM certificates. */
export function caBundleFromPem(pem: string, source = "CA bundle"): string {
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
    throw new Error(`${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return base64(new TextEncoder().encode(pem));
}
