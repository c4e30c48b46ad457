/**
 * src/auth owns how the apiserver authenticates to Ordinal's webhooks: bearer JWTs (this file:
 * issue, verify, keys) and the HTTP middleware that checks them or a verified mTLS client
 * certificate (webhook-auth.ts). It may import jose, hono's types and src/log/log.ts's
 * Logger type; nothing from src/admission, src/core or the runtimes.
 */
import { calculateJwkThumbprint, exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importJWK, importPKCS8, SignJWT, type CryptoKey, type JSONWebKeySet, type JWK } from "jose";
import { importPublicJwk, importSpkiPem, jwkThumbprint, verifyJwt, type JwtClaims, type PublicJwk, type VerificationKey } from "./jwt-verify.ts";
import { DEFAULT_TOKEN_AUDIENCE, DEFAULT_TOKEN_ISSUER, DEFAULT_TOKEN_SUBJECT, DEFAULT_TOKEN_TTL } from "./token-defaults.ts";

/**
 * The bearer JWT the apiserver presents to Ordinal's webhooks. `ordinal token` signs one with a
 * private key (ES256 or EdDSA); the webhook server verifies it against the public key, given as a
 * JWKS or as a PEM SPKI key. The apiserver sends it from the kubeconfig named in its admission
 * configuration (a user named after the webhook's host:port, with `token: …`).
 */

export const TOKEN_ALGORITHMS = ["ES256", "EdDSA"] as const;
export type TokenAlgorithm = (typeof TOKEN_ALGORITHMS)[number];

export interface IssueTokenOptions {
  /** PKCS#8 PEM private key, as written by `generateWebhookKeys`. */
  privateKeyPem?: string;
  /** Or a private JWK (with `d`). */
  jwk?: JWK;
  audience?: string;
  issuer?: string;
  subject?: string;
  /** Seconds, or a jose time span such as "365d" or "12h". */
  ttl?: number | string;
}

/** issueWebhookToken returns a signed JWT for the apiserver to present to the webhooks. */
export async function issueWebhookToken(opts: IssueTokenOptions): Promise<string> {
  const { key, alg, kid } = await importPrivateKey(opts);
  const ttl = opts.ttl ?? DEFAULT_TOKEN_TTL;
  return new SignJWT({})
    .setProtectedHeader({ alg, kid, typ: "JWT" })
    .setIssuer(opts.issuer ?? DEFAULT_TOKEN_ISSUER)
    .setAudience(opts.audience ?? DEFAULT_TOKEN_AUDIENCE)
    .setSubject(opts.subject ?? DEFAULT_TOKEN_SUBJECT)
    .setIssuedAt()
    .setExpirationTime(typeof ttl === "number" ? Math.floor(Date.now() / 1000) + ttl : ttl)
    .sign(key);
}

export interface WebhookKeys {
  /** PKCS#8 PEM: keep secret; signs tokens. */
  privateKeyPem: string;
  /** SPKI PEM: verifies tokens (WEBHOOK_PUBLIC_KEY). */
  publicKeyPem: string;
  /** The public key as a JWKS with `kid`, `alg`, `use` (WEBHOOK_JWKS). */
  jwks: JSONWebKeySet;
}

/** generateWebhookKeys makes a fresh signing key pair in the three forms Ordinal reads. */
export async function generateWebhookKeys(alg: TokenAlgorithm = "ES256"): Promise<WebhookKeys> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    privateKeyPem: await exportPKCS8(privateKey),
    publicKeyPem: await exportSPKI(publicKey),
    jwks: { keys: [{ ...jwk, kid, alg, use: "sig" }] },
  };
}

export interface VerifierOptions {
  /** A JWKS (object or JSON text) of accepted public keys; while rotating, the old and the new key. */
  jwks?: JSONWebKeySet | string;
  /** Or one SPKI PEM public key (ES256 P-256 or Ed25519). */
  publicKeyPem?: string;
  audience?: string;
  issuer?: string;
  /** The expected `sub`; defaults to DEFAULT_TOKEN_SUBJECT. */
  subject?: string;
  /** Injectable clock (ms since the epoch), for tests. */
  now?: () => number;
}

/** Seconds of clock difference tolerated between the token's issuer and this server. */
export const CLOCK_SKEW_SECONDS = 60;
/** Verified tokens remembered (until their `exp`) so the hot path skips the signature check. */
export const VERIFIED_TOKEN_CACHE_SIZE = 64;

/** Verifies a token; resolves to its claims or rejects with the reason. */
export type TokenVerifier = (token: string) => Promise<JwtClaims>;

/**
 * createTokenVerifier returns a verifier for webhook tokens: signature by a configured key, an
 * allowed algorithm, an `exp` that has not passed, an `iat` not in the future (both within
 * CLOCK_SKEW_SECONDS), and the expected issuer, audience and subject. A verified token is
 * remembered, keyed by its exact text, until its `exp` (at most VERIFIED_TOKEN_CACHE_SIZE of
 * them), since the apiserver presents the same token on every call and the signature check is
 * most of a request's CPU. Throws at once when neither `jwks` nor `publicKeyPem` is given or the
 * JWKS is not JSON; keys are imported on first use (`checkTokenVerifierKeys` imports them early).
 */
export function createTokenVerifier(opts: VerifierOptions): TokenVerifier {
  const now = opts.now ?? Date.now;
  const claims = {
    audience: opts.audience || DEFAULT_TOKEN_AUDIENCE,
    issuer: opts.issuer || DEFAULT_TOKEN_ISSUER,
    subject: opts.subject || DEFAULT_TOKEN_SUBJECT,
    clockTolerance: CLOCK_SKEW_SECONDS,
  };
  const keys = keyResolver(opts);
  const verified = new Map<string, { payload: JwtClaims; exp: number }>();
  return async (token) => {
    const t = now();
    const hit = verified.get(token);
    if (hit && hit.exp * 1000 > t) return hit.payload;
    if (hit) verified.delete(token);
    const seconds = Math.floor(t / 1000);
    const payload = await verifyJwt(token, await keys(), { ...claims, now: seconds });
    if (payload.iat! > seconds + CLOCK_SKEW_SECONDS) {
      throw new Error(`"iat" claim is in the future (${payload.iat! - seconds} s ahead; check the clocks of the token's issuer and this server)`);
    }
    if (verified.size >= VERIFIED_TOKEN_CACHE_SIZE) verified.delete(verified.keys().next().value!);
    verified.set(token, { payload, exp: payload.exp! });
    return payload;
  };
}

/** keyResolver returns a memoized importer of the configured key(s); throws when none is configured. */
function keyResolver(opts: VerifierOptions): () => Promise<VerificationKey[]> {
  let keys: Promise<VerificationKey[]> | undefined;
  if (opts.jwks) {
    const set = typeof opts.jwks === "string" ? parseJwks(opts.jwks) : opts.jwks;
    return () => (keys ??= importJwks(set));
  }
  if (opts.publicKeyPem) {
    const pem = opts.publicKeyPem;
    return () => (keys ??= importPublicPem(pem).then((k) => [k]));
  }
  throw new Error("webhook token verification needs a public key: a JWKS (WEBHOOK_JWKS) or a PEM (WEBHOOK_PUBLIC_KEY)");
}

/**
 * checkTokenVerifierKeys imports every configured key once and resolves when all are usable, or
 * rejects with what is wrong, so a server can refuse to start instead of answering 401 forever.
 */
export async function checkTokenVerifierKeys(opts: VerifierOptions): Promise<void> {
  await keyResolver(opts)();
}

/** importJwks returns the keys of the set, each checked to import as an ES256 or Ed25519 public key. */
async function importJwks(set: JSONWebKeySet): Promise<VerificationKey[]> {
  if (set.keys.length === 0) throw new Error("the webhook JWKS has no keys");
  const withKids = await withThumbprintKids(set);
  return Promise.all(
    withKids.keys.map(async (k, i) => {
      if ("d" in k) throw new Error(`the webhook JWKS key ${i} (kid ${k.kid}) is a private key: publish only public keys`);
      try {
        return await importPublicJwk(k as PublicJwk);
      } catch (e) {
        throw new Error(`the webhook JWKS key ${i} (kid ${k.kid}) is not a usable ES256 or Ed25519 public key: ${(e as Error).message}`, { cause: e });
      }
    }),
  );
}

/**
 * withThumbprintKids gives each key without a `kid` its JWK thumbprint as kid, the kid our tokens
 * carry when signed with a PEM key, so a hand-made JWKS without kids still matches them.
 */
async function withThumbprintKids(set: JSONWebKeySet): Promise<JSONWebKeySet> {
  return { keys: await Promise.all(set.keys.map(async (k) => (k.kid ? k : { ...k, kid: await jwkThumbprint(k as PublicJwk) }))) };
}

function parseJwks(text: string): JSONWebKeySet {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`the webhook JWKS is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (typeof v !== "object" || v === null || !Array.isArray((v as JSONWebKeySet).keys)) {
    throw new Error('the webhook JWKS must be {"keys": [...]}');
  }
  return v as JSONWebKeySet;
}

async function importPublicPem(pem: string): Promise<VerificationKey> {
  if (!/-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----/.test(pem)) {
    throw new Error("the webhook public key (WEBHOOK_PUBLIC_KEY) is not a PEM SPKI key (-----BEGIN PUBLIC KEY-----)");
  }
  for (const alg of TOKEN_ALGORITHMS) {
    try {
      return await importSpkiPem(pem, alg);
    } catch {
      // try the next algorithm
    }
  }
  throw new Error("the webhook public key (WEBHOOK_PUBLIC_KEY) is not an ES256 (P-256) or Ed25519 SPKI PEM key");
}

async function importPrivateKey(opts: IssueTokenOptions): Promise<{ key: CryptoKey; alg: TokenAlgorithm; kid: string }> {
  if (opts.jwk) {
    const alg = algOfJwk(opts.jwk);
    const key = (await importJWK(opts.jwk, alg, { extractable: true })) as CryptoKey;
    return { key, alg, kid: opts.jwk.kid ?? (await calculateJwkThumbprint(opts.jwk)) };
  }
  if (opts.privateKeyPem) {
    for (const alg of TOKEN_ALGORITHMS) {
      let key: CryptoKey;
      try {
        key = await importPKCS8(opts.privateKeyPem, alg, { extractable: true });
      } catch {
        continue;
      }
      // The thumbprint covers public members only, so it equals the public JWK's (the JWKS kid).
      return { key, alg, kid: await calculateJwkThumbprint(await exportJWK(key)) };
    }
    throw new Error("the signing key is not an ES256 (P-256) or Ed25519 PKCS#8 PEM private key");
  }
  throw new Error("issuing a webhook token needs a private key (PEM or JWK)");
}

function algOfJwk(jwk: JWK): TokenAlgorithm {
  if (jwk.alg === "ES256" || (jwk.kty === "EC" && jwk.crv === "P-256")) return "ES256";
  if (jwk.alg === "EdDSA" || jwk.alg === "Ed25519" || (jwk.kty === "OKP" && jwk.crv === "Ed25519")) return "EdDSA";
  throw new Error(`unsupported signing key (kty ${jwk.kty}, crv ${jwk.crv}): use ES256 (P-256) or EdDSA (Ed25519)`);
}

