import { generateWebhookKeys, issueWebhookToken } from "../auth/token.ts";
import type { JWK } from "jose";
import { parseFlags } from "../cli/args.ts";
import type { CommandIO } from "../webhook-config/register-command.ts";

/** `ordinal token`: the CLI around src/auth/token.ts (issue and write the apiserver's admission JWT). */

const TOKEN_USAGE =
  "usage: ordinal token --key FILE [--audience A] [--issuer I] [--subject S] [--ttl 7d] [--out FILE]\n" +
  "       ordinal token --generate-keys DIR [--alg ES256|EdDSA] [--audience A] …\n" +
  "  Prints a JWT for the apiserver's admission kubeconfig. --generate-keys writes DIR/private.pem,\n" +
  "  DIR/public.pem and DIR/jwks.json first and signs with the new key. --key takes a PKCS#8 PEM\n" +
  "  or a private JWK (JSON). --out FILE replaces FILE atomically (mode 0600) instead of printing:\n" +
  "  point the admission kubeconfig's `tokenFile` at it; the apiserver re-reads it about every minute,\n" +
  "  so running this daily (default lifetime 7 days) rotates the token without restarting anything.";

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
    out: "string",
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
    return deliver(await issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ...claims }), flags.out, io);
  }
  if (!flags.key) throw new Error(`--key FILE or --generate-keys DIR is required\n${TOKEN_USAGE}`);
  const text = (await io.readFile(flags.key)).trim();
  const token = text.startsWith("{") ? await issueWebhookToken({ jwk: JSON.parse(text) as JWK, ...claims }) : await issueWebhookToken({ privateKeyPem: text, ...claims });
  return deliver(token, flags.out, io);
}

/** deliver returns the token to print, or writes it to `out` atomically and says so. */
async function deliver(token: string, out: string | undefined, io: CommandIO): Promise<string> {
  if (!out) return token;
  if (!io.writeFile || !io.rename) throw new Error("this runtime cannot write files");
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
    throw new Error(`--ttl must be seconds or a span like 365d, 12h, got ${ttl}`);
  }
  return ttl;
}
