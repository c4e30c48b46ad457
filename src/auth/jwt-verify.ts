/**
 * Verification of the webhooks' bearer JWTs with Web Crypto alone (the Worker does not bundle
 * jose; signing, key generation and export stay with jose in token.ts, on Node). Only what
 * Ordinal's tokens use: compact JWS, ES256 (P-256) and EdDSA/Ed25519, public keys from a JWKS or
 * an SPKI PEM, and jose's checks and wording for the header and the claims, so a refusal reads
 * as it did (`"exp" claim timestamp check failed`, `unexpected "aud" claim value`, …). Checked
 * against tokens jose signs and against forged ones (test/auth/token.test.ts, jwt-verify.test.ts).
 */

/** A JWK as a JWKS carries it (public members only are read). */
export interface PublicJwk {
  kty?: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  [member: string]: unknown;
}

/** The claims of a verified token. */
export interface JwtClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  nbf?: number;
  [claim: string]: unknown;
}

/** A verification key, the JWS algorithms it verifies, and for a JWKS member what selects it. */
export interface VerificationKey {
  key: CryptoKey;
  family: "ES256" | "EdDSA";
  /** The JWK's selection members, when the key is a JWKS member (a PEM key is the only key). */
  jwk?: { kid?: unknown; alg?: unknown; use?: unknown; keyOps?: unknown };
}

export interface ClaimChecks {
  issuer: string;
  audience: string;
  subject: string;
  /** Seconds of clock difference tolerated on exp and nbf. */
  clockTolerance: number;
  /** Seconds since the epoch. */
  now: number;
}

/** The JWS algorithms accepted, and the key family each needs. */
const ALGORITHMS: Record<string, VerificationKey["family"]> = { ES256: "ES256", EdDSA: "EdDSA", Ed25519: "EdDSA" };
const SUBTLE: Record<VerificationKey["family"], { import: EcKeyImportParams | Algorithm; verify: EcdsaParams | Algorithm; kty: string; crv: string }> = {
  ES256: { import: { name: "ECDSA", namedCurve: "P-256" }, verify: { name: "ECDSA", hash: "SHA-256" }, kty: "EC", crv: "P-256" },
  EdDSA: { import: { name: "Ed25519" }, verify: { name: "Ed25519" }, kty: "OKP", crv: "Ed25519" },
};

const utf8 = new TextEncoder();

/** base64urlBytes decodes base64url (no padding), throwing `what` when it is not. */
function base64urlBytes(s: string, what: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error(what);
  let bin: string;
  try {
    bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw new Error(what);
  }
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function jsonObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Error(what);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(what);
  return v as Record<string, unknown>;
}

/** familyOfJwk returns the algorithm family of a public JWK (by kty and crv), or undefined. */
function familyOfJwk(jwk: PublicJwk): VerificationKey["family"] | undefined {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  return undefined;
}

/** importPublicJwk returns a verification key for an ES256 or Ed25519 public JWK; rejects any other. */
export async function importPublicJwk(jwk: PublicJwk): Promise<VerificationKey> {
  const family = familyOfJwk(jwk);
  if (!family) throw new Error(`unsupported key (kty ${jwk.kty}, crv ${jwk.crv}): use ES256 (P-256) or EdDSA (Ed25519)`);
  const s = SUBTLE[family];
  // Only the public members: Web Crypto refuses some `alg` values jose accepts (EdDSA on ECDSA keys…).
  const members = family === "ES256" ? { kty: s.kty, crv: s.crv, x: jwk.x, y: jwk.y } : { kty: s.kty, crv: s.crv, x: jwk.x };
  const key = await crypto.subtle.importKey("jwk", members as JsonWebKey, s.import, false, ["verify"]);
  return { key, family, jwk: { kid: jwk.kid, alg: jwk.alg, use: jwk.use, keyOps: jwk.key_ops } };
}

/** importSpkiPem returns a verification key for an SPKI PEM public key of the given family; rejects another. */
export async function importSpkiPem(pem: string, family: VerificationKey["family"]): Promise<VerificationKey> {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  return { key: await crypto.subtle.importKey("spki", der, SUBTLE[family].import, false, ["verify"]), family };
}

/** jwkThumbprint is RFC 7638's SHA-256 thumbprint of a public EC or OKP JWK (jose's calculateJwkThumbprint). */
export async function jwkThumbprint(jwk: PublicJwk): Promise<string> {
  const members = jwk.kty === "EC" ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : jwk.kty === "OKP" ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x } : undefined;
  if (!members || Object.values(members).some((v) => typeof v !== "string")) throw new Error(`cannot compute the thumbprint of a key of kty ${jwk.kty}`);
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8.encode(JSON.stringify(members)))));
}

/**
 * usable is whether a key may verify a token of this algorithm and kid: its family; for a JWKS
 * member, jose's selection (the token's kid if it has one, the key's alg if it names one, use
 * "sig" and key_ops with "verify" where given).
 */
function usable(k: VerificationKey, alg: string, kid: unknown): boolean {
  if (k.family !== ALGORITHMS[alg]) return false;
  const j = k.jwk;
  if (!j) return true;
  if (kid !== undefined && kid !== j.kid) return false;
  if (j.alg !== undefined && j.alg !== alg) return false;
  if (j.use !== undefined && j.use !== "sig") return false;
  return j.keyOps === undefined || (Array.isArray(j.keyOps) && j.keyOps.includes("verify"));
}

/**
 * verifyJwt returns the claims of a compact JWS signed by one of `keys` with an accepted algorithm
 * whose claims pass `checks`: iss, sub and aud as given, exp and iat present and numeric, exp
 * not passed and nbf reached within the tolerance. Rejects with jose's reason otherwise.
 */
export async function verifyJwt(token: string, keys: readonly VerificationKey[], checks: ClaimChecks): Promise<JwtClaims> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new Error("Invalid Compact JWS");
  const [encodedHeader, encodedPayload, encodedSignature] = parts;
  const header = jsonObject(base64urlBytes(encodedHeader, "JWS Protected Header is invalid"), "JWS Protected Header is invalid");
  checkCritical(header);
  const alg = header.alg;
  if (typeof alg !== "string" || !alg) throw new Error('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (!Object.hasOwn(ALGORITHMS, alg)) throw new Error('"alg" (Algorithm) Header Parameter value not allowed');
  const candidates = keys.filter((k) => usable(k, alg, header.kid));
  if (candidates.length === 0) throw new Error("no applicable key found in the JSON Web Key Set");
  if (candidates.length > 1) throw new Error("multiple matching keys found in the JSON Web Key Set");
  const [k] = candidates;
  const signature = base64urlBytes(encodedSignature, "Failed to base64url decode the signature");
  const signed = utf8.encode(`${encodedHeader}.${encodedPayload}`);
  if (!(await crypto.subtle.verify(SUBTLE[k.family].verify, k.key, signature, signed).catch(() => false))) throw new Error("signature verification failed");
  const claims = jsonObject(base64urlBytes(encodedPayload, "Failed to base64url decode the payload"), "JWT Claims Set must be a top-level JSON object") as JwtClaims;
  return checkClaims(claims, checks);
}

/**
 * checkCritical refuses critical extensions (RFC 7515 4.1.11) as jose does: only `b64` is known,
 * and a JWT's payload must be encoded (jose refuses `b64: false` after the signature check; here
 * before it, with the same words).
 */
function checkCritical(header: Record<string, unknown>): void {
  const crit = header.crit;
  if (crit === undefined) return;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((c) => typeof c !== "string" || c.length === 0))
    throw new Error('"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
  for (const parameter of crit as string[]) {
    if (parameter !== "b64") throw new Error(`Extension Header Parameter "${parameter}" is not recognized`);
    if (header.b64 === undefined) throw new Error('Extension Header Parameter "b64" is missing');
  }
  if (typeof header.b64 !== "boolean") throw new Error('The "b64" (base64url-encode payload) Header Parameter must be a boolean');
  if (!header.b64) throw new Error("JWTs MUST NOT use unencoded payload");
}

/** checkClaims returns `claims` when they pass `checks` (jose's validateClaimsSet, in its order and words). */
function checkClaims(claims: JwtClaims, checks: ClaimChecks): JwtClaims {
  for (const claim of ["iss", "sub", "aud", "iat", "exp"]) if (!Object.hasOwn(claims, claim)) throw new Error(`missing required "${claim}" claim`);
  if (claims.iss !== checks.issuer) throw new Error('unexpected "iss" claim value');
  if (claims.sub !== checks.subject) throw new Error('unexpected "sub" claim value');
  const aud = claims.aud;
  if (!(typeof aud === "string" ? aud === checks.audience : Array.isArray(aud) && aud.includes(checks.audience))) throw new Error('unexpected "aud" claim value');
  const numeric = (claim: "iat" | "nbf" | "exp"): number | undefined => {
    const v = claims[claim];
    if (v === undefined) return undefined;
    if (typeof v !== "number") throw new Error(`"${claim}" claim must be a number`);
    return v;
  };
  numeric("iat");
  const nbf = numeric("nbf");
  if (nbf !== undefined && nbf > checks.now + checks.clockTolerance) throw new Error('"nbf" claim timestamp check failed');
  const exp = numeric("exp");
  if (exp !== undefined && exp <= checks.now - checks.clockTolerance) throw new Error('"exp" claim timestamp check failed');
  return claims;
}
