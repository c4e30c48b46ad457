import { stringify } from "yaml";
import type { KubeClient } from "../kube/client.ts";
import { parseFlags } from "../cli/args.ts";
import { base64 } from "../admission/patch.ts";
import { ensureWebhookRegistration, type RegistrationOptions } from "./registration.ts";
import { webhookConfigurations } from "./webhook-configs.ts";

/**
 * `ordinal register`: the command-line face of registration.ts, kept apart so the Worker bundle
 * (which only repairs registration) does not carry the YAML printer.
 */

/** File access the CLI gives the commands (Node's fs in src/node; an object in tests). */
export interface CommandIO {
  readFile(path: string): Promise<string>;
  writeFile?(path: string, data: string, opts?: { mode?: number }): Promise<void>;
  mkdir?(path: string): Promise<void>;
  /** Atomic replace (rename(2)); files a reader polls are written next to it and renamed over it. */
  rename?(from: string, to: string): Promise<void>;
}

const REGISTER_USAGE =
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
