import { ensureWebhookRegistration } from "./admission/registration.ts";
import type { AppDeps } from "./http/app.ts";
import type { KubeClient } from "./kube/client.ts";
import type { AuthConfig } from "./http/auth.ts";

/**
 * Settings shared by both runtimes, read from a string map (Worker vars/secrets or process.env).
 * Only the names live here; each runtime supplies the values its own way.
 */
export interface OrdinalSettings {
  auth: AuthConfig;
  reconcilerUsername: string;
  validateAppsV1StatefulSets: boolean;
  leaseNamespace: string;
  budgetMs: number;
  /** Where the apiserver reaches our webhooks, for registration repair (optional). */
  webhookUrl?: string;
  webhookCaBundle?: string;
}

const truthy = (v: string | undefined) => v === "1" || v === "true" || v === "yes";

/** settingsFrom returns the settings in `vars`; unknown or missing values get documented defaults. */
export function settingsFrom(vars: Record<string, string | undefined>): OrdinalSettings {
  const jwks = vars.WEBHOOK_JWKS;
  const pem = vars.WEBHOOK_PUBLIC_KEY;
  return {
    auth: {
      jwt: jwks || pem ? { jwks: jwks || undefined, publicKeyPem: jwks ? undefined : pem, audience: vars.WEBHOOK_AUDIENCE, issuer: vars.WEBHOOK_ISSUER } : undefined,
      mtlsVerified: truthy(vars.WEBHOOK_MTLS),
    },
    reconcilerUsername: vars.RECONCILER_USERNAME || "ordinal-reconciler",
    validateAppsV1StatefulSets: truthy(vars.VALIDATE_APPS_V1_STATEFULSETS),
    leaseNamespace: vars.LEASE_NAMESPACE || "ordinal-system",
    budgetMs: Number(vars.RECONCILE_BUDGET_MS || 45_000),
    webhookUrl: vars.WEBHOOK_URL || undefined,
    webhookCaBundle: vars.WEBHOOK_CA_BUNDLE || undefined,
  };
}

/** appDepsFrom returns the AppDeps fields that come straight from settings. */
export const appDepsFrom = (s: OrdinalSettings): Pick<AppDeps, "auth" | "reconcilerUsername" | "validateAppsV1StatefulSets"> => ({
  auth: s.auth,
  reconcilerUsername: s.reconcilerUsername,
  validateAppsV1StatefulSets: s.validateAppsV1StatefulSets,
});

/**
 * registrationRepair returns the before-pass hook that keeps the webhook configurations
 * registered at WEBHOOK_URL, or undefined when no URL is configured.
 */
export function registrationRepair(client: KubeClient, s: OrdinalSettings): (() => Promise<void>) | undefined {
  const url = s.webhookUrl;
  if (!url) return undefined;
  return async () => {
    await ensureWebhookRegistration(client, { url, caBundle: s.webhookCaBundle, validateAppsV1StatefulSets: s.validateAppsV1StatefulSets });
  };
}
