import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importJWK,
  importPKCS8,
  importSPKI,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from "jose";
import { parseFlags } from "./args.ts";
import type { CommandIO } from "./register-command.ts";

/**
 * The bearer JWT the apiserver presents to Ordinal's webhooks. `ordinal token` signs one with a
 * private key (ES256 or EdDSA); the webhook server verifies it against the public key, given as a
 * JWKS or as a PEM SPKI key. The apiserver sends it from the kubeconfig named in its admission
 * configuration (a user named after the webhook's host:port, with `token: …`).
 */

export const TOKEN_ALGORITHMS = ["ES256", "EdDSA"] as const;
export type TokenAlgorithm = (typeof TOKEN_ALGORITHMS)[number];
export const DEFAULT_TOKEN_ISSUER = "ordinal";
export const DEFAULT_TOKEN_AUDIENCE = "ordinal-webhooks";
export const DEFAULT_TOKEN_SUBJECT = "kube-apiserver";
/** The apiserver reads the token once at start; rotate by issuing a new one and restarting it. */
export const DEFAULT_TOKEN_TTL = "365d";

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
  /** A JWKS (object or JSON text) of accepted public keys. */
  jwks?: JSONWebKeySet | string;
  /** Or one SPKI PEM public key (ES256 P-256 or Ed25519). */
  publicKeyPem?: string;
  audience?: string;
  issuer?: string;
}

/** Verifies a token; resolves to its claims or rejects with the reason. */
export type TokenVerifier = (token: string) => Promise<JWTPayload>;

/**
 * createTokenVerifier returns a verifier for webhook tokens: signature by a configured key, an
 * allowed algorithm, not expired, the expected issuer and audience. Throws at once when neither
 * `jwks` nor `publicKeyPem` is given or the JWKS is not JSON; a PEM is imported on first use.
 */
export function createTokenVerifier(opts: VerifierOptions): TokenVerifier {
  const claims = {
    algorithms: [...TOKEN_ALGORITHMS, "Ed25519"],
    audience: opts.audience ?? DEFAULT_TOKEN_AUDIENCE,
    issuer: opts.issuer ?? DEFAULT_TOKEN_ISSUER,
  };
  if (opts.jwks) {
    const set = typeof opts.jwks === "string" ? parseJwks(opts.jwks) : opts.jwks;
    let keys: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;
    return async (token) => {
      keys ??= withThumbprintKids(set).then(createLocalJWKSet);
      return (await jwtVerify(token, await keys, claims)).payload;
    };
  }
  if (opts.publicKeyPem) {
    const pem = opts.publicKeyPem;
    let key: Promise<CryptoKey> | undefined;
    return async (token) => {
      key ??= importPublicPem(pem);
      return (await jwtVerify(token, await key, claims)).payload;
    };
  }
  throw new Error("webhook token verification needs a public key: a JWKS (WEBHOOK_JWKS) or a PEM (WEBHOOK_PUBLIC_KEY)");
}

/**
 * withThumbprintKids gives each key without a `kid` its JWK thumbprint as kid, the kid our tokens
 * carry when signed with a PEM key, so a hand-made JWKS without kids still matches them.
 */
async function withThumbprintKids(set: JSONWebKeySet): Promise<JSONWebKeySet> {
  return { keys: await Promise.all(set.keys.map(async (k) => (k.kid ? k : { ...k, kid: await calculateJwkThumbprint(k) }))) };
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

async function importPublicPem(pem: string): Promise<CryptoKey> {
  for (const alg of TOKEN_ALGORITHMS) {
    try {
      return await importSPKI(pem, alg);
    } catch {
      // try the next algorithm
    }
  }
  throw new Error("the webhook public key is not an ES256 (P-256) or Ed25519 SPKI PEM key");
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

export const TOKEN_USAGE =
  "usage: ordinal token --key FILE [--audience A] [--issuer I] [--subject S] [--ttl 365d]\n" +
  "       ordinal token --generate-keys DIR [--alg ES256|EdDSA] [--audience A] …\n" +
  "  Prints a JWT for the apiserver's admission kubeconfig. --generate-keys writes DIR/private.pem,\n" +
  "  DIR/public.pem and DIR/jwks.json first and signs with the new key. --key takes a PKCS#8 PEM\n" +
  "  or a private JWK (JSON).";

/**
 * tokenCommand implements `ordinal token` and returns the token (the CLI prints it). File access
 * comes from `io` (Node's fs in src/node), so this module stays runtime-neutral.
 */
export async function tokenCommand(args: readonly string[], io: CommandIO): Promise<string> {
  const flags = parseFlags(args, {
    key: "string",
    "generate-keys": "string",
    alg: "string",
    audience: "string",
    issuer: "string",
    subject: "string",
    ttl: "string",
    help: "boolean",
  });
  if (flags.help) return TOKEN_USAGE;
  const claims = { audience: flags.audience, issuer: flags.issuer, subject: flags.subject, ttl: parseTtl(flags.ttl) };
  if (flags["generate-keys"]) {
    if (flags.key) throw new Error(`--key and --generate-keys exclude each other\n${TOKEN_USAGE}`);
    if (!io.writeFile) throw new Error("this runtime cannot write files");
    const alg = flags.alg ?? "ES256";
    if (alg !== "ES256" && alg !== "EdDSA") throw new Error(`--alg must be ES256 or EdDSA, got ${alg}`);
    const dir = flags["generate-keys"].replace(/\/+$/, "");
    const keys = await generateWebhookKeys(alg);
    await io.mkdir?.(dir);
    await io.writeFile(`${dir}/private.pem`, keys.privateKeyPem, { mode: 0o600 });
    await io.writeFile(`${dir}/public.pem`, keys.publicKeyPem, { mode: 0o644 });
    await io.writeFile(`${dir}/jwks.json`, `${JSON.stringify(keys.jwks, null, 2)}\n`, { mode: 0o644 });
    return issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ...claims });
  }
  if (!flags.key) throw new Error(`--key FILE or --generate-keys DIR is required\n${TOKEN_USAGE}`);
  const text = (await io.readFile(flags.key)).trim();
  if (text.startsWith("{")) return issueWebhookToken({ jwk: JSON.parse(text) as JWK, ...claims });
  return issueWebhookToken({ privateKeyPem: text, ...claims });
}

/** parseTtl accepts seconds ("3600") or a jose time span ("365d", "12h"). */
function parseTtl(ttl: string | undefined): number | string | undefined {
  if (ttl === undefined) return undefined;
  if (/^\d+$/.test(ttl)) return Number(ttl);
  if (!/^\d+\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i.test(ttl)) {
    throw new Error(`--ttl must be seconds or a span like 365d, 12h, got ${ttl}`);
  }
  return ttl;
}
