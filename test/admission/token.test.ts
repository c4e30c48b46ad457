import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import {
  createTokenVerifier,
  DEFAULT_TOKEN_AUDIENCE,
  DEFAULT_TOKEN_ISSUER,
  generateWebhookKeys,
  issueWebhookToken,
  tokenCommand,
  TOKEN_ALGORITHMS,
} from "../../src/admission/token.ts";
import { memoryIO } from "./helpers.ts";

describe("issueWebhookToken / createTokenVerifier", () => {
  for (const alg of TOKEN_ALGORITHMS) {
    it(`${alg}: a token verifies against the JWKS and the PEM, with default issuer and audience`, async () => {
      const keys = await generateWebhookKeys(alg);
      const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
      expect(decodeProtectedHeader(token)).toMatchObject({ alg, kid: keys.jwks.keys[0].kid, typ: "JWT" });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({ iss: DEFAULT_TOKEN_ISSUER, aud: DEFAULT_TOKEN_AUDIENCE, sub: "kube-apiserver" });
      expect(claims.exp! - claims.iat!).toBe(365 * 24 * 3600);
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
    { name: "expired", make: (k) => issueWebhookToken({ privateKeyPem: k.privateKeyPem, ttl: -10 }), error: /"exp" claim timestamp check failed/ },
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

describe("tokenCommand", () => {
  it("--generate-keys writes private.pem (0600), public.pem, jwks.json and prints a token they verify", async () => {
    const io = memoryIO();
    const token = await tokenCommand(["--generate-keys", "keys/", "--alg", "EdDSA", "--audience", "aud-x"], io);
    expect([...io.files.keys()].sort()).toEqual(["keys/jwks.json", "keys/private.pem", "keys/public.pem"]);
    expect(io.files.get("keys/private.pem")!.mode).toBe(0o600);
    expect(io.files.get("keys/private.pem")!.data).toMatch(/BEGIN PRIVATE KEY/);
    const jwks = io.files.get("keys/jwks.json")!.data;
    await expect(createTokenVerifier({ jwks, audience: "aud-x" })(token)).resolves.toBeTruthy();
    await expect(createTokenVerifier({ publicKeyPem: io.files.get("keys/public.pem")!.data, audience: "aud-x" })(token)).resolves.toBeTruthy();
    expect(decodeProtectedHeader(token).alg).toBe("EdDSA");
  });

  it("--key FILE signs with an existing PEM or JWK; --ttl in seconds or spans", async () => {
    const keys = await generateWebhookKeys();
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const io = memoryIO({ "k.pem": keys.privateKeyPem, "k.jwk": JSON.stringify(await exportJWK(privateKey)) });
    const t1 = await tokenCommand(["--key", "k.pem", "--ttl", "3600"], io);
    await expect(createTokenVerifier({ jwks: keys.jwks })(t1)).resolves.toBeTruthy();
    const c = decodeJwt(t1);
    expect(c.exp! - c.iat!).toBe(3600);
    const t2 = await tokenCommand(["--key=k.jwk", "--ttl=12h"], io);
    expect(decodeJwt(t2).exp! - decodeJwt(t2).iat!).toBe(12 * 3600);
  });

  const errors: [string[], RegExp][] = [
    [[], /--key FILE or --generate-keys DIR is required/],
    [["--bogus"], /unknown option --bogus/],
    [["--key"], /--key needs a value/],
    [["--key", "missing.pem"], /ENOENT/],
    [["--generate-keys", "d", "--alg", "RS256"], /--alg must be ES256 or EdDSA/],
    [["--generate-keys", "d", "--key", "k"], /exclude each other/],
    [["--generate-keys", "d", "--ttl", "forever"], /--ttl must be seconds or a span/],
  ];
  for (const [args, error] of errors) {
    it(`refuses ${JSON.stringify(args)}`, async () => {
      await expect(tokenCommand(args, memoryIO())).rejects.toThrow(error);
    });
  }

  it("--help prints usage", async () => {
    expect(await tokenCommand(["--help"], memoryIO())).toMatch(/usage: ordinal token/);
  });
});
