import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importPKCS8, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  createTokenVerifier,
  checkTokenVerifierKeys,
  CLOCK_SKEW_SECONDS,
  generateWebhookKeys,
  issueWebhookToken,
  TOKEN_ALGORITHMS,
  VERIFIED_TOKEN_CACHE_SIZE,
} from "../../src/auth/token.ts";
import { DEFAULT_TOKEN_AUDIENCE, DEFAULT_TOKEN_ISSUER, DEFAULT_TOKEN_SUBJECT } from "../../src/auth/token-defaults.ts";

/** signClaims signs the default claims with some replaced or (undefined) removed, as a forger would. */
async function signClaims(k: Awaited<ReturnType<typeof generateWebhookKeys>>, overrides: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { iss: DEFAULT_TOKEN_ISSUER, aud: DEFAULT_TOKEN_AUDIENCE, sub: DEFAULT_TOKEN_SUBJECT, iat: now, exp: now + 600, ...overrides };
  for (const [key, v] of Object.entries(claims)) if (v === undefined) delete claims[key];
  const key = await importPKCS8(k.privateKeyPem, "ES256");
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: k.jwks.keys[0].kid }).sign(key);
}

describe("issueWebhookToken / createTokenVerifier", () => {
  for (const alg of TOKEN_ALGORITHMS) {
    it(`${alg}: a token verifies against the JWKS and the PEM, with default issuer and audience`, async () => {
      const keys = await generateWebhookKeys(alg);
      const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
      expect(decodeProtectedHeader(token)).toMatchObject({ alg, kid: keys.jwks.keys[0].kid, typ: "JWT" });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({ iss: DEFAULT_TOKEN_ISSUER, aud: DEFAULT_TOKEN_AUDIENCE, sub: "kube-apiserver" });
      expect(claims.exp! - claims.iat!).toBe(7 * 24 * 3600);
      await expect(createTokenVerifier({ jwks: keys.jwks })(token)).resolves.toMatchObject({ iss: "ordinal" });
      await expect(createTokenVerifier({ jwks: JSON.stringify(keys.jwks) })(token)).resolves.toBeTruthy();
      await expect(createTokenVerifier({ publicKeyPem: keys.publicKeyPem })(token)).resolves.toBeTruthy();
    });
  }

  it("signs with a private JWK too", async () => {
    const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
    const jwk = await exportJWK(privateKey);
    const token = await issueWebhookToken({ jwk, audience: "a", issuer: "i", ttl: 60 });
    const pub = { ...jwk };
    delete pub.d;
    await expect(createTokenVerifier({ jwks: { keys: [pub] }, audience: "a", issuer: "i" })(token)).resolves.toMatchObject({ aud: "a" });
  });

  const refusals: { name: string; make: (k: Awaited<ReturnType<typeof generateWebhookKeys>>) => Promise<string>; error: RegExp }[] = [
    { name: "expired", make: (k) => issueWebhookToken({ privateKeyPem: k.privateKeyPem, ttl: -120 }), error: /"exp" claim timestamp check failed/ },
    // Issue 11 finding 5: these four used to be accepted.
    { name: "no exp", make: (k) => signClaims(k, { exp: undefined }), error: /missing required "exp" claim/ },
    { name: "no iat", make: (k) => signClaims(k, { iat: undefined }), error: /missing required "iat" claim/ },
    { name: "another subject", make: (k) => issueWebhookToken({ privateKeyPem: k.privateKeyPem, subject: "system:anonymous" }), error: /unexpected "sub" claim value/ },
    { name: "no subject", make: (k) => signClaims(k, { sub: undefined }), error: /missing required "sub" claim/ },
    { name: "iat in the future", make: (k) => signClaims(k, { iat: Math.floor(Date.now() / 1000) + 3600 }), error: /"iat" claim is in the future/ },
    { name: "wrong audience", make: (k) => issueWebhookToken({ privateKeyPem: k.privateKeyPem, audience: "else" }), error: /unexpected "aud" claim value/ },
    { name: "wrong issuer", make: (k) => issueWebhookToken({ privateKeyPem: k.privateKeyPem, issuer: "else" }), error: /unexpected "iss" claim value/ },
    {
      name: "signed by another key",
      make: async () => issueWebhookToken({ privateKeyPem: (await generateWebhookKeys()).privateKeyPem }),
      error: /no applicable key found|signature verification failed/,
    },
    { name: "not a JWT", make: async () => "not-a-jwt", error: /Invalid Compact JWS|JWS/ },
  ];
  for (const r of refusals) {
    it(`refuses a token: ${r.name}`, async () => {
      const keys = await generateWebhookKeys();
      const token = await r.make(keys);
      await expect(createTokenVerifier({ jwks: keys.jwks })(token)).rejects.toThrow(r.error);
    });
  }

  it("refuses alg none", async () => {
    const keys = await generateWebhookKeys();
    const none = `${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify({ iss: "ordinal", aud: DEFAULT_TOKEN_AUDIENCE }))}.`;
    await expect(createTokenVerifier({ jwks: keys.jwks })(none)).rejects.toThrow();
  });

  it("needs a key, and says so", () => {
    expect(() => createTokenVerifier({})).toThrow(/needs a public key/);
    expect(() => createTokenVerifier({ jwks: "{not json" })).toThrow(/not JSON/);
    expect(() => createTokenVerifier({ jwks: "{}" })).toThrow(/"keys"/);
  });

  it("a PEM that is not a supported key fails verification with a clear reason", async () => {
    const keys = await generateWebhookKeys();
    const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
    await expect(createTokenVerifier({ publicKeyPem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" })(token)).rejects.toThrow(
      /not an ES256 \(P-256\) or Ed25519 SPKI PEM/,
    );
  });
});

describe("createTokenVerifier: skew, cache, rotation, start-up checks", () => {
  it("tolerates CLOCK_SKEW_SECONDS of clock difference on exp and iat, not more", async () => {
    const keys = await generateWebhookKeys();
    const now = Math.floor(Date.now() / 1000);
    const verify = createTokenVerifier({ jwks: keys.jwks });
    await expect(verify(await signClaims(keys, { iat: now + CLOCK_SKEW_SECONDS - 5 }))).resolves.toBeTruthy();
    await expect(verify(await signClaims(keys, { iat: now - 600, exp: now - CLOCK_SKEW_SECONDS + 5 }))).resolves.toBeTruthy();
    await expect(verify(await signClaims(keys, { iat: now + CLOCK_SKEW_SECONDS + 30 }))).rejects.toThrow(/in the future/);
  });

  it("remembers a verified token until its exp, then checks it again", async () => {
    const keys = await generateWebhookKeys();
    let t = Date.now();
    const verify = createTokenVerifier({ jwks: keys.jwks, now: () => t });
    const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ttl: 600 });
    const first = await verify(token);
    expect(await verify(token)).toBe(first); // the cached claims object itself
    t += 601_000 + CLOCK_SKEW_SECONDS * 1000;
    await expect(verify(token)).rejects.toThrow(/"exp" claim timestamp check failed/);
    // A token that failed is never cached.
    await expect(verify("x.y.z")).rejects.toThrow();
  });

  it("remembers at most VERIFIED_TOKEN_CACHE_SIZE tokens: the oldest is checked again", async () => {
    const keys = await generateWebhookKeys();
    const verify = createTokenVerifier({ jwks: keys.jwks });
    const tokens = await Promise.all(Array.from({ length: VERIFIED_TOKEN_CACHE_SIZE + 1 }, (_, i) => signClaims(keys, { jti: `t${i}` })));
    const first = await verify(tokens[0]);
    for (const t of tokens.slice(1, VERIFIED_TOKEN_CACHE_SIZE)) await verify(t);
    expect(await verify(tokens[0])).toBe(first); // still one of the last VERIFIED_TOKEN_CACHE_SIZE
    await verify(tokens[VERIFIED_TOKEN_CACHE_SIZE]);
    const again = await verify(tokens[0]);
    expect(again).toEqual(first);
    expect(again).not.toBe(first); // evicted, so verified anew
  });

  it("accepts tokens of the old and the new key while both are in the JWKS (rotation)", async () => {
    const oldKeys = await generateWebhookKeys();
    const newKeys = await generateWebhookKeys("EdDSA");
    const verify = createTokenVerifier({ jwks: { keys: [...oldKeys.jwks.keys, ...newKeys.jwks.keys] } });
    await expect(verify(await issueWebhookToken({ privateKeyPem: oldKeys.privateKeyPem }))).resolves.toBeTruthy();
    await expect(verify(await issueWebhookToken({ privateKeyPem: newKeys.privateKeyPem }))).resolves.toBeTruthy();
    const after = createTokenVerifier({ jwks: newKeys.jwks });
    await expect(after(await issueWebhookToken({ privateKeyPem: oldKeys.privateKeyPem }))).rejects.toThrow();
  });

  // Issue 11 finding 9: a garbage key used to be found out only by the first request (401 forever).
  it("checkTokenVerifierKeys rejects an unusable key at start-up with a clear error", async () => {
    const keys = await generateWebhookKeys();
    await expect(checkTokenVerifierKeys({ publicKeyPem: "garbage" })).rejects.toThrow(/WEBHOOK_PUBLIC_KEY\) is not a PEM SPKI key/);
    await expect(checkTokenVerifierKeys({ publicKeyPem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" })).rejects.toThrow(/not an ES256/);
    await expect(checkTokenVerifierKeys({ jwks: { keys: [{ kty: "EC", crv: "P-256", x: "AA", y: "BB" }] } })).rejects.toThrow(/not a usable ES256 or Ed25519 public key/);
    await expect(checkTokenVerifierKeys({ jwks: { keys: [] } })).rejects.toThrow(/no keys/);
    const priv = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
    await expect(checkTokenVerifierKeys({ jwks: { keys: [priv] } })).rejects.toThrow(/is a private key/);
    await expect(checkTokenVerifierKeys({ publicKeyPem: keys.publicKeyPem })).resolves.toBeUndefined();
    await expect(checkTokenVerifierKeys({ jwks: keys.jwks })).resolves.toBeUndefined();
  });
});
