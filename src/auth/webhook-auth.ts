import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "../log/log.ts";
import { checkTokenVerifierKeys, createTokenVerifier, type VerifierOptions } from "./token.ts";

/**
 * How webhook callers (the apiserver) authenticate: a bearer JWT verified against configured
 * public keys, and/or — on Node, where the TLS server checks client certificates — a client
 * certificate that the server verified against its CA AND whose CN or a SAN is one of the
 * expected names. At least one must be configured.
 */
export interface AuthConfig {
  jwt?: VerifierOptions;
  /**
   * Accept requests whose TLS client certificate the server verified (see
   * AppDeps.clientCertificate) and whose subject CN or a DNS/URI SAN is one of these names.
   */
  mtlsClientNames?: readonly string[];
  /** WEBHOOK_AUTH=none: accept every caller (chosen explicitly; see docs/security.md, "Auth modes"). */
  unauthenticated?: boolean;
}

/** The verified client certificate of a request, as the runtime's TLS server saw it. */
export interface ClientCertificate {
  /** Subject common name. */
  cn?: string;
  /** subjectAltName entries without their type prefix (DNS, URI, IP). */
  sans: string[];
}

/**
 * clientCertificateNames returns the names a peer certificate answers to: its CN and each
 * `DNS:`/`URI:`/`IP Address:` entry of Node's `subjectaltname` string.
 */
function clientCertificateNames(cert: ClientCertificate): string[] {
  return [...(cert.cn ? [cert.cn] : []), ...cert.sans];
}

/** parseSubjectAltName splits Node's `subjectaltname` ("DNS:a, IP Address:1.2.3.4") into values. */
export function parseSubjectAltName(san: string | undefined): string[] {
  if (!san) return [];
  return san
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|URI|IP Address):(.*)$/.exec(entry.trim())?.[1])
    .filter((v): v is string => v !== undefined && v !== "");
}

/**
 * webhookAuth returns a middleware that answers 401 (JSON, with `WWW-Authenticate: Bearer`) unless
 * the request carries a valid bearer JWT, or no Authorization header and a verified client
 * certificate with an expected name when mTLS is allowed. Throws at once when the config allows
 * nothing, or allows mTLS without the runtime's certificate accessor or without expected names.
 */
export function webhookAuth(config: AuthConfig, log: Logger, clientCertificate?: (c: Context) => ClientCertificate | undefined): MiddlewareHandler {
  const names = config.mtlsClientNames;
  if (config.unauthenticated && !config.jwt && !names) return (_c, next) => next();
  if (!config.jwt && !names) {
    throw new Error("webhook authentication is not configured: give a JWT public key (JWKS or PEM) or enable mTLS");
  }
  if (names && names.length === 0) {
    throw new Error("mTLS needs the names the apiserver's client certificate carries (WEBHOOK_MTLS_CLIENT_NAMES, its CN or a SAN): any certificate of the CA is not enough");
  }
  if (names && !clientCertificate) {
    throw new Error("mTLS authentication needs clientCertificate(c) from the runtime (Node's TLS server)");
  }
  const verify = config.jwt ? createTokenVerifier(config.jwt) : undefined;
  // Where the runtime cannot refuse to start (the Worker), an unusable key is a 503 that says so,
  // not a 401 to every caller. Node's `serve` checks the keys before listening.
  let keysChecked: Promise<string | undefined> | undefined;
  const keyProblem = () =>
    (keysChecked ??= checkTokenVerifierKeys(config.jwt!).then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    ));
  const unauthorized = (c: Context, reason: string) => {
    log.warn("webhook request refused", { path: c.req.path, status: 401, reason });
    return c.json({ error: "Unauthorized", message: reason }, 401, { "WWW-Authenticate": 'Bearer realm="ordinal"' });
  };
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined) {
      if (!names) return unauthorized(c, "no bearer token (Authorization: Bearer <jwt>)");
      const cert = clientCertificate?.(c);
      if (!cert) return unauthorized(c, config.jwt ? "no bearer token and no verified client certificate" : "no verified client certificate");
      const presented = clientCertificateNames(cert);
      if (!presented.some((n) => names.includes(n))) {
        return unauthorized(c, `client certificate names ${JSON.stringify(presented.slice(0, 5))} include none of the expected ${JSON.stringify(names)}`);
      }
      return next();
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return unauthorized(c, "Authorization header is not 'Bearer <jwt>'");
    if (!verify) return unauthorized(c, "bearer tokens are not accepted here; use a client certificate");
    const problem = await keyProblem();
    if (problem) {
      log.error("webhook public key is unusable", { error: problem });
      return c.json({ error: "ServiceUnavailable", message: `the webhook's public key is unusable: ${problem}; fix WEBHOOK_JWKS or WEBHOOK_PUBLIC_KEY` }, 503);
    }
    try {
      await verify(m[1]);
    } catch (e) {
      return unauthorized(c, `invalid bearer token: ${e instanceof Error ? e.message : String(e)}`);
    }
    return next();
  };
}
