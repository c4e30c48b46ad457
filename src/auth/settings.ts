/**
 * Which callers the webhooks accept, from the runtime's variables (Worker vars/secrets or
 * process.env): WEBHOOK_JWKS / WEBHOOK_PUBLIC_KEY (+ WEBHOOK_AUDIENCE, _ISSUER, _SUBJECT) for
 * JWTs, WEBHOOK_MTLS and WEBHOOK_MTLS_CLIENT_NAMES for client certificates, WEBHOOK_AUTH=none to
 * turn authentication off explicitly (see README: auth modes).
 */
import { setting } from "../settings.ts";
import type { AuthConfig } from "./webhook-auth.ts";

/** authConfigFrom returns the AuthConfig `vars` ask for, or throws when WEBHOOK_AUTH names no mode. */
export function authConfigFrom(vars: Record<string, string | undefined>): AuthConfig {
  const jwks = vars.WEBHOOK_JWKS;
  const pem = vars.WEBHOOK_PUBLIC_KEY;
  const mode = vars.WEBHOOK_AUTH || "";
  if (!["", "none", "jwt", "mtls"].includes(mode)) throw new Error(`WEBHOOK_AUTH must be jwt, mtls or none, got ${JSON.stringify(mode)}`);
  return {
    jwt: jwks || pem ? { jwks: jwks || undefined, publicKeyPem: jwks ? undefined : pem, audience: vars.WEBHOOK_AUDIENCE, issuer: vars.WEBHOOK_ISSUER, subject: vars.WEBHOOK_SUBJECT } : undefined,
    mtlsClientNames: setting(vars, "WEBHOOK_MTLS") ? (vars.WEBHOOK_MTLS_CLIENT_NAMES ?? "").split(",").map((n) => n.trim()).filter(Boolean) : undefined,
    ...(mode === "none" ? { unauthenticated: true } : {}),
  };
}

/** isAuthConfigured is false when the webhooks would accept no caller at all (then they answer 503). */
export const isAuthConfigured = (a: AuthConfig) => !!(a.jwt || a.mtlsClientNames || a.unauthenticated);
