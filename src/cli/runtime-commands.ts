/**
 * The commands that run Ordinal itself: `serve` (webhooks + reconcile loop on Node) and
 * `reconcile` (one invocation). Flags are parsed here; the work is done in src/node and
 * src/reconciler, imported when the command runs (`ordinal --help` loads neither).
 */
import { setting } from "../settings.ts";
import { parseDuration, UsageError } from "./args.ts";
import type { Command } from "./command.ts";

/** num returns the flag's whole number, or `fallback` (a setting, already checked) when the flag is absent. */
const num = (v: unknown, flag: string, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

export const serveCmd: Command = {
  name: "serve",
  summary: "webhooks + reconcile loop on Node (an embedded simulated cluster when none is configured)",
  synopsis: "[--tls-cert F --tls-key F] [--client-ca F] [--port N]",
  options: {
    port: { type: "string", value: "N", help: "listen port (default $PORT or 8443)" },
    host: { type: "string", value: "ADDR", help: "listen address (default $HOST or 127.0.0.1)" },
    "tls-cert": { type: "string", value: "FILE", help: "serving certificate (default $TLS_CERT_FILE); https when set" },
    "tls-key": { type: "string", value: "FILE", help: "its key (default $TLS_KEY_FILE)" },
    "client-ca": { type: "string", value: "FILE", help: "verify client certificates against this CA (mTLS)" },
    "interval-ms": { type: "string", value: "MS", help: "reconcile every MS (default $RECONCILE_INTERVAL_MS or 10000)" },
    simulate: { type: "boolean", help: "use the embedded simulated cluster even when one is configured" },
    "exit-after-ms": { type: "string", value: "MS", help: "stop after MS (demos, tests)" },
  },
  positionals: { max: 0 },
  async run({ values: v }, ctx) {
    const { serveCommand } = await import("../node/serve.ts");
    const e = ctx.env;
    return serveCommand({
      port: num(v.port, "--port", setting(e, "PORT")),
      host: (v.host as string | undefined) ?? setting(e, "HOST"),
      tlsCert: (v["tls-cert"] as string | undefined) ?? setting(e, "TLS_CERT_FILE"),
      tlsKey: (v["tls-key"] as string | undefined) ?? setting(e, "TLS_KEY_FILE"),
      clientCa: (v["client-ca"] as string | undefined) ?? setting(e, "TLS_CLIENT_CA_FILE"),
      intervalMs: num(v["interval-ms"], "--interval-ms", setting(e, "RECONCILE_INTERVAL_MS")),
      simulate: v.simulate === true,
      exitAfterMs: num(v["exit-after-ms"], "--exit-after-ms", 0),
    }, e);
  },
};

export const reconcileCmd: Command = {
  name: "reconcile",
  summary: "one reconcile invocation against the configured cluster; exit 1 when a set failed",
  synopsis: "--once [--until-idle] [-n NS] [--budget 50s]",
  options: {
    once: { type: "boolean", help: "one invocation (required: the loop is `ordinal serve`)" },
    "until-idle": { type: "boolean", help: "keep passing until nothing is pending (within --budget)" },
    namespace: { type: "string", short: "n", value: "NS", help: "only sets in NS (default: all namespaces)" },
    "lease-namespace": { type: "string", value: "NS", help: "namespace of the Lease (default $LEASE_NAMESPACE or ordinal-system)" },
    budget: { type: "string", value: "DURATION", help: "time budget of the invocation (default 50s)" },
  },
  positionals: { max: 0 },
  async run({ values: v }, ctx) {
    if (!v.once) throw new UsageError("--once is required (the reconcile loop is `ordinal serve`)");
    const { reconcileCommand } = await import("./reconcile.ts");
    const result = await reconcileCommand(await ctx.client(), {
      untilIdle: v["until-idle"] === true,
      namespace: v.namespace as string | undefined,
      leaseNamespace: v["lease-namespace"] as string | undefined,
      budgetMs: v.budget ? parseDuration(v.budget as string, "--budget") : 50_000,
      out: ctx.out,
    });
    return result.errors > 0 ? 1 : 0;
  },
};
