/** `ordinal token`: the apiserver's admission JWT, through the CLI's one parser (files in a Map). */
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { createTokenVerifier, generateWebhookKeys } from "../../src/auth/token.ts";
import { main } from "../../src/cli/main.ts";
import { cliWorld } from "./helpers.ts";

/** token runs `ordinal token ARGS` over `files`; returns the exit code, what it printed and the files after. */
async function token(args: string[], files: Record<string, string> = {}) {
  const w = cliWorld(files);
  const code = await main(["token", ...args], w.ctx);
  return { code, out: w.out.join("\n"), err: w.err.join("\n"), files: w.io.files };
}

describe("ordinal token", () => {
  it("--generate-keys writes private.pem (0600), public.pem, jwks.json and prints a token they verify", async () => {
    const r = await token(["--generate-keys", "keys/", "--alg", "EdDSA", "--audience", "aud-x"]);
    expect(r.code).toBe(0);
    expect([...r.files.keys()].sort()).toEqual(["keys/jwks.json", "keys/private.pem", "keys/public.pem"]);
    expect(r.files.get("keys/private.pem")!.mode).toBe(0o600);
    expect(r.files.get("keys/private.pem")!.data).toMatch(/BEGIN PRIVATE KEY/);
    const jwks = r.files.get("keys/jwks.json")!.data;
    await expect(createTokenVerifier({ jwks, audience: "aud-x" })(r.out)).resolves.toBeTruthy();
    await expect(createTokenVerifier({ publicKeyPem: r.files.get("keys/public.pem")!.data, audience: "aud-x" })(r.out)).resolves.toBeTruthy();
    expect(decodeProtectedHeader(r.out).alg).toBe("EdDSA");
  });

  it("--key FILE signs with an existing PEM or JWK; --ttl in seconds or spans", async () => {
    const keys = await generateWebhookKeys();
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const files = { "k.pem": keys.privateKeyPem, "k.jwk": JSON.stringify(await exportJWK(privateKey)) };
    const t1 = (await token(["--key", "k.pem", "--ttl", "3600"], files)).out;
    await expect(createTokenVerifier({ jwks: keys.jwks })(t1)).resolves.toBeTruthy();
    const c = decodeJwt(t1);
    expect(c.exp! - c.iat!).toBe(3600);
    const t2 = (await token(["--key=k.jwk", "--ttl=12h"], files)).out;
    expect(decodeJwt(t2).exp! - decodeJwt(t2).iat!).toBe(12 * 3600);
  });

  it("--out FILE replaces the file atomically (0600) for the kubeconfig's tokenFile", async () => {
    const keys = await generateWebhookKeys();
    const r = await token(["--key", "k.pem", "--out", "dir/token"], { "k.pem": keys.privateKeyPem, "dir/token": "old" });
    expect(r.out).toBe("wrote a token to dir/token");
    expect([...r.files.keys()].sort()).toEqual(["dir/token", "k.pem"]);
    expect(r.files.get("dir/token")!.mode).toBe(0o600);
    await expect(createTokenVerifier({ jwks: keys.jwks })(r.files.get("dir/token")!.data)).resolves.toBeTruthy();
  });

  // Mistakes on the command line exit 2 with the usage; a file that cannot be read exits 1.
  const errors: [string[], number, RegExp][] = [
    [[], 2, /--key FILE or --generate-keys DIR is required/],
    [["--bogus"], 2, /unknown option --bogus/],
    [["--ky", "k.pem"], 2, /unknown option --ky; did you mean --key\?/],
    [["--key"], 2, /--key needs a value/],
    [["--key", "k.pem", "extra"], 2, /unexpected argument "extra"/],
    [["--key", "missing.pem"], 1, /ENOENT/],
    [["--key", "k.pem", "--alg", "EdDSA"], 2, /--alg goes with --generate-keys/],
    [["--generate-keys", "d", "--alg", "RS256"], 2, /--alg must be ES256 or EdDSA/],
    [["--generate-keys", "d", "--key", "k"], 2, /exclude each other/],
    [["--generate-keys", "d", "--ttl", "forever"], 2, /--ttl must be seconds or a span/],
  ];
  it.each(errors)("refuses %j (exit %i)", async (args, code, error) => {
    const r = await token(args, { "k.pem": "unused" });
    expect(r.code).toBe(code);
    expect(r.err).toMatch(error);
    expect(r.out).toBe("");
  });

  it("--help prints the usage with every option and what --out is for", async () => {
    const r = await token(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: ordinal token /);
    for (const o of ["--key FILE", "--generate-keys DIR", "--alg", "--audience", "--issuer", "--subject", "--ttl", "--out FILE"]) expect(r.out).toContain(o);
    expect(r.out).toMatch(/tokenFile/);
  });
});
