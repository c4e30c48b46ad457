// verifyJwt (Web Crypto only, what the Worker bundles) against jose's jwtVerify (what it replaced):
// on tokens jose signs with varied headers and claims, and on forged ones, both accept the same
// tokens and refuse the others with the same reason.
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type JWTHeaderParameters } from "jose";
import { describe, expect, it } from "vitest";
import { importPublicJwk, jwkThumbprint, verifyJwt, type VerificationKey } from "../../src/auth/jwt-verify.ts";

const NOW = 1_800_000_000;
const checks = { issuer: "ordinal", audience: "ordinal-webhooks", subject: "kube-apiserver", clockTolerance: 60, now: NOW };
const good = { iss: "ordinal", aud: "ordinal-webhooks", sub: "kube-apiserver", iat: NOW - 10, exp: NOW + 600 };

/** joseVerdict is what jose's jwtVerify said: the claims, or its error message. */
async function joseVerdict(token: string, jwks: { keys: JWK[] }): Promise<unknown> {
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
      algorithms: ["ES256", "EdDSA", "Ed25519"],
      audience: checks.audience,
      issuer: checks.issuer,
      subject: checks.subject,
      requiredClaims: ["exp", "iat"],
      clockTolerance: checks.clockTolerance,
      currentDate: new Date(NOW * 1000),
    });
    return payload;
  } catch (e) {
    return (e as Error).message;
  }
}

async function ourVerdict(token: string, keys: VerificationKey[]): Promise<unknown> {
  try {
    return await verifyJwt(token, keys, checks);
  } catch (e) {
    return (e as Error).message;
  }
}

const bytes64 = (b: Uint8Array) => btoa(String.fromCharCode(...b)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const b64 = (v: unknown) => bytes64(new TextEncoder().encode(JSON.stringify(v)));

/** signRaw signs any header (jose's SignJWT refuses some, such as unknown critical extensions) with an ES256 key. */
async function signRaw(header: Record<string, unknown>, claims: Record<string, unknown>, key: CryptoKey): Promise<string> {
  const input = `${b64(header)}.${b64(claims)}`;
  const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(input));
  return `${input}.${bytes64(new Uint8Array(sig))}`;
}

describe("verifyJwt", () => {
  it("accepts and refuses what jose's jwtVerify does, with its reasons", async () => {
    const es = await generateKeyPair("ES256", { extractable: true });
    const ed = await generateKeyPair("EdDSA", { extractable: true });
    const other = await generateKeyPair("ES256", { extractable: true });
    const esJwk = { ...(await exportJWK(es.publicKey)), kid: "es", alg: "ES256", use: "sig" };
    const edJwk = { ...(await exportJWK(ed.publicKey)), kid: "ed", alg: "EdDSA" };
    const jwks = { keys: [esJwk, edJwk] };
    const keys = await Promise.all(jwks.keys.map(importPublicJwk));
    const sign = (claims: Record<string, unknown>, header: JWTHeaderParameters, key = es.privateKey) => new SignJWT(claims).setProtectedHeader(header).sign(key);
    const valid = await sign(good, { alg: "ES256", kid: "es" });
    const [h, p, s] = valid.split(".");
    const tokens: Record<string, string> = {
      valid,
      "EdDSA": await sign(good, { alg: "EdDSA", kid: "ed" }, ed.privateKey),
      "Ed25519 alg name": await sign(good, { alg: "Ed25519", kid: "ed" }, ed.privateKey),
      "no kid": await sign(good, { alg: "ES256" }),
      "unknown kid": await sign(good, { alg: "ES256", kid: "zz" }),
      "another key": await sign(good, { alg: "ES256", kid: "es" }, other.privateKey),
      "crit unknown": await signRaw({ alg: "ES256", kid: "es", crit: ["exp"], exp: 1 }, good, es.privateKey),
      "crit empty": await signRaw({ alg: "ES256", kid: "es", crit: [] }, good, es.privateKey),
      "crit b64 true": await signRaw({ alg: "ES256", kid: "es", crit: ["b64"], b64: true }, good, es.privateKey),
      "crit b64 missing": await signRaw({ alg: "ES256", kid: "es", crit: ["b64"] }, good, es.privateKey),
      "alg none": `${b64({ alg: "none" })}.${p}.`,
      "alg HS256": `${b64({ alg: "HS256", kid: "es" })}.${p}.${s}`,
      "tampered payload": `${h}.${b64({ ...good, sub: "admin" })}.${s}`,
      "two parts": `${h}.${p}`,
      "header not JSON": `bm90IGpzb24.${p}.${s}`,
      "aud list": await sign({ ...good, aud: ["x", checks.audience] }, { alg: "ES256", kid: "es" }),
      "aud list without ours": await sign({ ...good, aud: ["x"] }, { alg: "ES256", kid: "es" }),
      "no iss": await sign({ ...good, iss: undefined }, { alg: "ES256", kid: "es" }),
      "no aud": await sign({ ...good, aud: undefined }, { alg: "ES256", kid: "es" }),
      "no iat, no exp": await sign({ ...good, iat: undefined, exp: undefined }, { alg: "ES256", kid: "es" }),
      "exp a string": await sign({ ...good, exp: "soon" }, { alg: "ES256", kid: "es" }),
      "iat a string": await sign({ ...good, iat: "now" }, { alg: "ES256", kid: "es" }),
      "expired within tolerance": await sign({ ...good, exp: NOW - 30 }, { alg: "ES256", kid: "es" }),
      expired: await sign({ ...good, exp: NOW - 60 }, { alg: "ES256", kid: "es" }),
      "nbf within tolerance": await sign({ ...good, nbf: NOW + 60 }, { alg: "ES256", kid: "es" }),
      "nbf later": await sign({ ...good, nbf: NOW + 61 }, { alg: "ES256", kid: "es" }),
      "payload an array": `${h}.${b64([1])}.${s}`,
    };
    for (const [name, token] of Object.entries(tokens)) {
      const theirs = await joseVerdict(token, jwks);
      expect({ name, verdict: await ourVerdict(token, keys) }).toEqual({ name, verdict: theirs });
    }
    // An ES256 token when the JWKS has two ES256 keys without kids: jose refuses it (multiple matches), so do we.
    const twoKids = { keys: [{ ...esJwk, kid: undefined }, { ...(await exportJWK(other.publicKey)) }] };
    const noKid = tokens["no kid"];
    expect(await ourVerdict(noKid, await Promise.all(twoKids.keys.map(importPublicJwk)))).toBe(await joseVerdict(noKid, twoKids));
  });

  it("computes RFC 7638 thumbprints as jose does", async () => {
    for (const alg of ["ES256", "EdDSA"] as const) {
      const jwk = await exportJWK((await generateKeyPair(alg, { extractable: true })).publicKey);
      expect(await jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(jwk));
    }
  });
});
