import { ensureWebhookRegistration, REGISTRATION_ANNOTATION, type RegistrationMode } from "./webhook-config/registration.ts";
import type { Logger } from "./log/log.ts";
import type { AppDeps } from "./http/app.ts";
import type { KubeClient, ServerVersion } from "./kube/client.ts";
import type { AuthConfig } from "./auth/webhook-auth.ts";
import { authConfigFrom } from "./auth/settings.ts";
import { setting, type LogLevel } from "./settings.ts";
import { DEFAULT_RECONCILER_USERNAME, usernameFromToken } from "./deploy/identity.ts";

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
  /** Subrequests one Worker invocation may make. */
  maxSubrequests: number;
  /** LOG_LEVEL, when set. */
  logLevel?: LogLevel;
  /** Where the apiserver reaches our webhooks, for registration repair (optional). */
  webhookUrl?: string;
  /** Or, in a cluster: the Service (`namespace/name`) in front of the webhook server. */
  webhookService?: { namespace: string; name: string };
  webhookCaBundle?: string;
  /** WEBHOOK_REGISTRATION: create (default), update (deploy/: no `create` RBAC needed) or off. */
  webhookRegistration: RegistrationMode;
}


/**
 * reconcilerUsernameFrom returns the username the apiserver gives the reconciler, the only caller
 * allowed to change a managed pod's identity: RECONCILER_USERNAME when set, else the identity of
 * the ServiceAccount token in KUBE_TOKEN, else the ServiceAccount deploy/ installs.
 */
export function reconcilerUsernameFrom(vars: Readonly<Record<string, string | undefined>>): string {
  return setting(vars, "RECONCILER_USERNAME") || usernameFromToken(setting(vars, "KUBE_TOKEN")) || DEFAULT_RECONCILER_USERNAME;
}

/**
 * settingsFrom returns the settings in `vars`; missing values get documented defaults, and a value
 * src/settings.ts refuses throws a SettingError naming the variable.
 * The webhooks' authentication is read by src/auth/settings.ts (WEBHOOK_AUTH=none turns it off
 * explicitly, see README: managed clusters).
 */
export function settingsFrom(vars: Readonly<Record<string, string | undefined>>): OrdinalSettings {
  return {
    auth: authConfigFrom(vars),
    reconcilerUsername: reconcilerUsernameFrom(vars),
    validateAppsV1StatefulSets: setting(vars, "VALIDATE_APPS_V1_STATEFULSETS"),
    leaseNamespace: setting(vars, "LEASE_NAMESPACE"),
    budgetMs: setting(vars, "RECONCILE_BUDGET_MS"),
    maxSubrequests: setting(vars, "MAX_SUBREQUESTS"),
    logLevel: setting(vars, "LOG_LEVEL"),
    webhookUrl: setting(vars, "WEBHOOK_URL"),
    webhookService: setting(vars, "WEBHOOK_SERVICE"),
    webhookCaBundle: setting(vars, "WEBHOOK_CA_BUNDLE"),
    webhookRegistration: setting(vars, "WEBHOOK_REGISTRATION"),
  };
}

/** appDepsFrom returns the AppDeps fields that come straight from settings. */
export const appDepsFrom = (s: OrdinalSettings): Pick<AppDeps, "auth" | "reconcilerUsername" | "validateAppsV1StatefulSets"> => ({
  auth: s.auth,
  reconcilerUsername: s.reconcilerUsername,
  validateAppsV1StatefulSets: s.validateAppsV1StatefulSets,
});

/** How long registration repair trusts the apiserver version it read (an upgrade is seen within this). */
const SERVER_VERSION_TTL_MS = 10 * 60_000;

/**
 * registrationRepair returns the before-pass hook that keeps the webhook configurations
 * registered at WEBHOOK_URL (or WEBHOOK_SERVICE), or undefined when none is configured or
 * WEBHOOK_REGISTRATION is off. It reads the apiserver's version (which decides the hooks'
 * matchConditions) once per SERVER_VERSION_TTL_MS, not per pass, and warns when a configuration
 * is missing and not created (mode update) or left alone (annotation): once per change, not per pass.
 */
export function registrationRepair(client: KubeClient, s: OrdinalSettings, o: { log?: Logger; now?: () => number } = {}): (() => Promise<void>) | undefined {
  const url = s.webhookUrl;
  const service = s.webhookService;
  const mode = s.webhookRegistration;
  if ((!url && !service) || mode === "off") return undefined;
  const now = o.now ?? Date.now;
  let version: { value: ServerVersion; readAt: number } | undefined;
  let reported = "";
  return async () => {
    if (!version || now() - version.readAt >= SERVER_VERSION_TTL_MS) version = { value: await client.serverVersion(), readAt: now() };
    const r = await ensureWebhookRegistration(client, {
      url: url ?? "",
      service: url ? undefined : service,
      caBundle: s.webhookCaBundle,
      validateAppsV1StatefulSets: s.validateAppsV1StatefulSets,
      serverVersion: version.value,
      mode,
    });
    const report = JSON.stringify([r.missing, r.left]);
    if (report === reported) return;
    reported = report;
    if (r.missing.length > 0) {
      o.log?.warn("webhook configuration missing; not re-created (WEBHOOK_REGISTRATION=update): kubectl apply -k deploy/ restores it", { configurations: r.missing });
    }
    if (r.left.length > 0) {
      o.log?.warn(`webhook configuration left alone: it carries the ${REGISTRATION_ANNOTATION} annotation (remove it to hand the configuration back)`, { configurations: r.left });
    }
  };
}
