/**
 * `ordinal register`: applies Ordinal's webhook configurations (src/webhook-config) pointing at a
 * webhook server, or prints them with --dry-run. Kept out of the Worker bundle, which only repairs
 * registration, so the Worker does not carry the YAML printer. src/webhook-config (and the YAML
 * printer) are imported when the command runs.
 */
import type { RegistrationOptions } from "../webhook-config/registration.ts";
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";

export const registerCmd: Command = {
  name: "register",
  summary: "apply the webhook configurations pointing at a webhook server",
  synopsis: "--url https://HOST[:PORT] [--ca-bundle FILE] [--validate-apps-v1] [--dry-run]",
  details:
    "Applies Ordinal's Mutating/ValidatingWebhookConfigurations pointing at the webhook server at --url,\n" +
    "trusting the PEM certificates in --ca-bundle (default: the apiserver's system roots).\n" +
    "Prints one line per configuration: created, updated, unchanged, or left alone when it carries\n" +
    "the ordinal.dev/registration annotation (an operator's hands-off; remove it to hand it back).\n" +
    "On Kubernetes 1.20 it also labels kube-system ordinal.dev/webhooks=disabled (the webhooks exclude kube-system\n" +
    "by a name label that namespaces carry from 1.21), or warns when it may not.",
  options: {
    url: { type: "string", value: "URL", help: "the webhook server, https://HOST[:PORT] (required)" },
    "ca-bundle": { type: "string", value: "FILE", help: "PEM certificates that sign the server's certificate" },
    "validate-apps-v1": { type: "boolean", help: "also validate apps/v1 StatefulSets (ordinal-apps-v1)" },
    "dry-run": { type: "boolean", help: "print the configurations as YAML instead of applying them" },
  },
  positionals: { max: 0 },
  async run({ values: v }, ctx) {
    if (!v.url) throw new UsageError("--url is required");
    const url = checkWebhookUrl(v.url as string);
    const { caBundleFromPem, ensureWebhookRegistration, REGISTRATION_ANNOTATION } = await import("../webhook-config/registration.ts");
    const caFile = v["ca-bundle"] as string | undefined;
    const caBundle = caFile ? caBundleFromPem(await ctx.io.readFile(caFile), caFile) : undefined;
    const opts: RegistrationOptions = { url, caBundle, validateAppsV1StatefulSets: v["validate-apps-v1"] === true };
    if (v["dry-run"]) {
      const [{ stringify }, { webhookConfigurations }] = await Promise.all([import("./yaml.ts"), import("../webhook-config/webhook-configs.ts")]);
      ctx.out(webhookConfigurations(opts, opts).map((c) => stringify(c.object)).join("---\n"));
      return 0;
    }
    const client = await ctx.client();
    const serverVersion = await client.serverVersion();
    const r = await ensureWebhookRegistration(client, { ...opts, serverVersion });
    // Before 1.21 the hooks cannot exclude kube-system by name: label it, as `ordinal manifests --kube-version 1.20` does.
    const { kubeSystemWarning, optOutKubeSystem } = await import("../webhook-config/kube-system-opt-out.ts");
    const optOut = await optOutKubeSystem(client, serverVersion);
    ctx.out(
      [
        ...r.created.map((n) => `${n} created`),
        ...r.updated.map((n) => `${n} updated`),
        ...r.unchanged.map((n) => `${n} unchanged`),
        ...r.left.map((n) => `${n} left alone (annotation ${REGISTRATION_ANNOTATION})`),
        ...("done" in optOut && optOut.done === "labelled" ? ["namespace/kube-system labelled ordinal.dev/webhooks=disabled (Kubernetes before 1.21: the webhooks cannot exclude it by name)"] : []),
      ].join("\n"),
    );
    if ("refused" in optOut) ctx.err(kubeSystemWarning(optOut.refused));
    return 0;
  },
};

/** checkWebhookUrl returns the base URL without trailing slash, or throws a UsageError: the apiserver calls https only, without query or fragment. */
function checkWebhookUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(raw)} is not a URL; e.g. https://127.0.0.1:28443`);
  }
  if (u.protocol !== "https:") throw new UsageError(`--url must be https:// (the apiserver calls webhooks over TLS only), got ${raw}`);
  if (u.search || u.hash || u.username || u.password) throw new UsageError(`--url must not carry a query, fragment or user info: ${raw}`);
  return raw.replace(/\/+$/, "");
}
