import type { Context, MiddlewareHandler } from "hono";
import { createTokenVerifier, type VerifierOptions } from "../admission/token.ts";
import { errorFields, type Logger } from "./log.ts";

/**
 * How webhook callers (the apiserver) authenticate: a bearer JWT verified against configured
 * public keys, and/or — on Node, where the TLS server checks client certificates — a verified
 * mTLS client certificate. At least one must be configured.
 */
export interface AuthConfig {
  jwt?: VerifierOptions;
  /** Accept requests whose TLS client certificate the server verified (see AppDeps.isClientCertVerified). */
  mtlsVerified?: boolean;
}

/**
 * webhookAuth returns a middleware that answers 401 (JSON, with `WWW-Authenticate: Bearer`) unless
 * the request carries a valid bearer JWT, or no Authorization header and a verified client
 * certificate when mTLS is allowed. Throws at once when the config allows nothing.
 */
export function webhookAuth(config: AuthConfig, log: Logger, isClientCertVerified?: (c: Context) => boolean): MiddlewareHandler {
  if (!config.jwt && !config.mtlsVerified) {
    throw new Error("webhook authentication is not configured: give a JWT public key (JWKS or PEM) or enable mTLS");
  }
  if (config.mtlsVerified && !isClientCertVerified) {
    throw new Error("mTLS authentication needs isClientCertVerified(c) from the runtime (Node's TLS server)");
  }
  const verify = config.jwt ? createTokenVerifier(config.jwt) : undefined;
  const unauthorized = (c: Context, reason: string) => {
    log.warn("webhook request refused", { path: c.req.path, status: 401, reason });
    return c.json({ error: "Unauthorized", message: reason }, 401, { "WWW-Authenticate": 'Bearer realm="ordinal"' });
  };
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined) {
      if (config.mtlsVerified && isClientCertVerified?.(c)) return next();
      return unauthorized(c, config.jwt ? "no bearer token (Authorization: Bearer <jwt>)" : "no verified client certificate");
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return unauthorized(c, "Authorization header is not 'Bearer <jwt>'");
    if (!verify) return unauthorized(c, "bearer tokens are not accepted here; use a client certificate");
    try {
      await verify(m[1]);
    } catch (e) {
      const { error } = errorFields(e);
      return unauthorized(c, `invalid bearer token: ${String(error)}`);
    }
    return next();
  };
}
