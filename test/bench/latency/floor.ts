/**
 * The floor under the Worker's reaction time (bench:latency --worker-only): how long one apiserver
 * round trip takes from where each controller sends it, measured in the same run, side by side:
 * from Node straight to the apiserver (TLS, token: what kube-controller-manager and `ordinal serve`
 * pay), from Node through `kubectl proxy`, and from a bare Worker under `wrangler dev` through
 * `kubectl proxy` (no hono, no Ordinal: a module that only fetches), as the Worker's passes send
 * theirs; and the other direction, what each webhook call the apiserver makes to the Worker rides
 * on (https to `wrangler dev`, GET /healthz). Each is ROUNDS sequential GETs of one pod list page; the medians and 90th percentiles.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import type { FetchLike } from "../../../src/kube/http.ts";

const ROUNDS = 60;
const PATH = "/api/v1/namespaces/default/pods?limit=1";

/** A bare Worker: GET /rt?n=N sends N sequential GETs of `${TARGET}${PATH}` and answers each one's ms (workerd's clock moves on I/O: each includes its fetch). */
const BARE_WORKER = `export default {
  async fetch(request, env) {
    const n = Number(new URL(request.url).searchParams.get("n") ?? "1");
    const out = [];
    for (let i = 0; i < n; i++) {
      const t = Date.now();
      await (await fetch(env.TARGET + ${JSON.stringify(PATH)})).arrayBuffer();
      out.push(Date.now() - t);
    }
    return Response.json(out);
  },
};
`;

/** timed returns the ms of ROUNDS sequential GETs through `f`. */
async function timed(f: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const row = (label: string, xs: number[]) => `| ${label} | ${pct(xs, 0.5).toFixed(1)} ms | ${pct(xs, 0.9).toFixed(1)} ms |`;

/**
 * measureFloor returns a markdown table of the three round trips: the apiserver through `direct`
 * (the bench's admin transport), the `kubectl proxy` at `proxyUrl` from Node, and from a bare
 * Worker started under `wrangler dev` on `port` (its files and log in `dir`).
 */
export async function measureFloor(o: { direct: FetchLike; server: string; token: string; proxyUrl: string; dir: string; port: number; webhook: { url: string; fetch: FetchLike }; log: (s: string) => void }): Promise<string> {
  mkdirSync(`${o.dir}/bare-worker`, { recursive: true });
  writeFileSync(`${o.dir}/bare-worker/index.js`, BARE_WORKER);
  writeFileSync(`${o.dir}/bare-worker/wrangler.toml`, `name = "bare"\nmain = "index.js"\ncompatibility_date = "2026-04-01"\nsend_metrics = false\n`);
  const args = ["wrangler", "dev", "--config", `${o.dir}/bare-worker/wrangler.toml`, "--ip", "127.0.0.1", "--port", String(o.port), "--inspector-port", String(o.port + 1), "--var", `TARGET:${o.proxyUrl}`, "--show-interactive-dev-session=false"];
  const worker: ChildProcess = spawn("npx", args, { env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" }, stdio: "ignore", detached: true });
  try {
    const url = `http://127.0.0.1:${o.port}/rt`;
    for (let i = 0; i < 200; i++) {
      if ((await fetch(`${url}?n=1`).catch(() => undefined))?.ok) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    o.log(`floor: ${ROUNDS} sequential GETs from each place`);
    const headers = { authorization: `Bearer ${o.token}` };
    const direct = await timed(async () => (await o.direct(`${o.server}${PATH}`, { headers })).arrayBuffer());
    const proxied = await timed(async () => (await fetch(`${o.proxyUrl}${PATH}`)).arrayBuffer());
    const fromWorker = (await (await fetch(`${url}?n=${ROUNDS}`)).json()) as number[];
    const toWorker = await timed(async () => (await o.webhook.fetch(`${o.webhook.url}/healthz`)).arrayBuffer());
    return ["| one apiserver round trip (a pod list page) | median | p90 |", "|---|---|---|", row("Node → apiserver (TLS, token)", direct), row("Node → kubectl proxy → apiserver", proxied), row("bare Worker (`wrangler dev`) → kubectl proxy → apiserver", fromWorker), row("Node → Ordinal's Worker (`wrangler dev`, https) GET /healthz: a webhook call's transport", toWorker)].join("\n");
  } finally {
    try {
      process.kill(-worker.pid!, "SIGTERM");
    } catch {
      /* gone */
    }
  }
}
