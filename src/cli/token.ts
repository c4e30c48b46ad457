/**
 * `ordinal token`: issues the JWT the apiserver presents to the webhooks (src/auth/token.ts does
 * the signing, imported when the command runs), optionally generating the key pair first or
 * writing the token to a file.
 */
import type { JWK } from "jose";
import { DEFAULT_TOKEN_AUDIENCE, DEFAULT_TOKEN_ISSUER, DEFAULT_TOKEN_SUBJECT, DEFAULT_TOKEN_TTL } from "../auth/token-defaults.ts";
import { UsageError, type Parsed } from "./args.ts";
import type { CommandIO } from "./io.ts";
import type { Command } from "./command.ts";

export const tokenCmd: Command = {
  name: "token",
  summary: "issue the JWT the apiserver presents to the webhooks",
  synopsis: "--key FILE | --generate-keys DIR [--alg ES256|EdDSA] [--audience A] [--issuer I] [--subject S] [--ttl 7d] [--out FILE]",
  details:
    "Prints a JWT for the apiserver's admission kubeconfig. --generate-keys writes DIR/private.pem,\n" +
    "DIR/public.pem and DIR/jwks.json first and signs with the new key. --out FILE replaces FILE\n" +
    "atomically (mode 0600) instead of printing: point the admission kubeconfig's `tokenFile` at it;\n" +
    "the apiserver re-reads it about every minute, so running this daily (default lifetime 7 days)\n" +
    "rotates the token without restarting anything.",
  options: {
    key: { type: "string", value: "FILE", help: "sign with this key: a PKCS#8 PEM or a private JWK (JSON)" },
    "generate-keys": { type: "string", value: "DIR", help: "write a new key pair and its JWKS to DIR, sign with it" },
    alg: { type: "string", value: "ALG", help: "the new key's algorithm: ES256 (default) or EdDSA" },
    audience: { type: "string", value: "A", help: `the token's aud (default ${DEFAULT_TOKEN_AUDIENCE})` },
    issuer: { type: "string", value: "I", help: `the token's iss (default ${DEFAULT_TOKEN_ISSUER})` },
    subject: { type: "string", value: "S", help: `the token's sub (default ${DEFAULT_TOKEN_SUBJECT})` },
    ttl: { type: "string", value: "T", help: `lifetime: seconds or a span like 12h, 365d (default ${DEFAULT_TOKEN_TTL})` },
    out: { type: "string", value: "FILE", help: "replace FILE atomically (0600) instead of printing" },
  },
  positionals: { max: 0 },
  async run(p, ctx) {
    ctx.out(await tokenCommand(p.values, ctx.io));
    return 0;
  },
};

/** tokenCommand returns the token to print (or the line saying where it was written). */
async function tokenCommand(flags: Parsed["values"], io: CommandIO): Promise<string> {
  const str = (k: string) => flags[k] as string | undefined;
  const { generateWebhookKeys, issueWebhookToken } = await import("../auth/token.ts");
  const claims = { audience: str("audience"), issuer: str("issuer"), subject: str("subject"), ttl: parseTtl(str("ttl")) };
  const generate = str("generate-keys");
  const key = str("key");
  if (generate) {
    if (key) throw new UsageError("--key and --generate-keys exclude each other");
    const alg = str("alg") ?? "ES256";
    if (alg !== "ES256" && alg !== "EdDSA") throw new UsageError(`--alg must be ES256 or EdDSA, got ${alg}`);
    const dir = generate.replace(/\/+$/, "");
    const keys = await generateWebhookKeys(alg);
    await io.mkdir(dir);
    await io.writeFile(`${dir}/private.pem`, keys.privateKeyPem, { mode: 0o600 });
    await io.writeFile(`${dir}/public.pem`, keys.publicKeyPem, { mode: 0o644 });
    await io.writeFile(`${dir}/jwks.json`, `${JSON.stringify(keys.jwks, null, 2)}\n`, { mode: 0o644 });
    return deliver(await issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ...claims }), str("out"), io);
  }
  if (!key) throw new UsageError("--key FILE or --generate-keys DIR is required");
  if (str("alg")) throw new UsageError("--alg goes with --generate-keys (the algorithm of --key is the key's own)");
  const text = (await io.readFile(key)).trim();
  const token = text.startsWith("{") ? await issueWebhookToken({ jwk: JSON.parse(text) as JWK, ...claims }) : await issueWebhookToken({ privateKeyPem: text, ...claims });
  return deliver(token, str("out"), io);
}

/** deliver returns the token to print, or writes it to `out` atomically and says so. */
async function deliver(token: string, out: string | undefined, io: CommandIO): Promise<string> {
  if (!out) return token;
  // Written beside the target and renamed over it: the apiserver never reads half a token.
  const tmp = `${out}.tmp-${Math.random().toString(36).slice(2, 10)}`;
  await io.writeFile(tmp, token, { mode: 0o600 });
  await io.rename(tmp, out);
  return `wrote a token to ${out}`;
}

/** parseTtl accepts seconds ("3600") or a jose time span ("365d", "12h"). */
function parseTtl(ttl: string | undefined): number | string | undefined {
  if (ttl === undefined) return undefined;
  if (/^\d+$/.test(ttl)) return Number(ttl);
  if (!/^\d+\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i.test(ttl)) {
    throw new UsageError(`--ttl must be seconds or a span like 365d, 12h, got ${ttl}`);
  }
  return ttl;
}
