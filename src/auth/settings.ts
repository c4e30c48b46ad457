/**
 * Which callers the webhooks accept, from the runtime's variables (Worker vars/secrets or
 * process.env): WEBHOOK_JWKS / WEBHOOK_PUBLIC_KEY (+ WEBHOOK_AUDIENCE, _ISSUER, _SUBJECT) for
 * JWTs, WEBHOOK_MTLS and WEBHOOK_MTLS_CLIENT_NAMES for client certificates, WEBHOOK_AUTH=none to
 * turn authentication off explicitly (see README: auth modes).
 */
import { setting } from "../settings.ts";
import type { AuthConfig } from "./webhook-auth.ts";

/** authConfigFrom returns the AuthConfig `vars` ask for, or throws a SettingError naming a refused variable. */
export function authConfigFrom(vars: Readonly<Record<string, string | undefined>>): AuthConfig {
  const jwks = setting(vars, "WEBHOOK_JWKS");
  const pem = setting(vars, "WEBHOOK_PUBLIC_KEY");
  return {
    jwt: jwks || pem ? { jwks, publicKeyPem: jwks ? undefined : pem, audience: setting(vars, "WEBHOOK_AUDIENCE"), issuer: setting(vars, "WEBHOOK_ISSUER"), subject: setting(vars, "WEBHOOK_SUBJECT") } : undefined,
    mtlsClientNames: setting(vars, "WEBHOOK_MTLS") ? setting(vars, "WEBHOOK_MTLS_CLIENT_NAMES") : undefined,
    ...(setting(vars, "WEBHOOK_AUTH") === "none" ? { unauthenticated: true } : {}),
  };
}

/** isAuthConfigured is false when the webhooks would accept no caller at all (then they answer 503). */
export const isAuthConfigured = (a: AuthConfig) => !!(a.jwt || a.mtlsClientNames || a.unauthenticated);
