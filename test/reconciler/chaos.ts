/**
 * A fault-injecting fetch around the fake apiserver, for randomized reconcile runs: before a
 * request it may answer 409/429/500 or throw a network error without applying it; after applying
 * it may lose the response (a timeout after the server acted); at a chosen request it "crashes"
 * the reconciler (throws Crash, which nothing catches), as a process dying between two requests.
 */
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/reconciler/loop.ts";

export { mulberry32 } from "../../src/sim/fake-apiserver/random.ts";

class Crash extends Error {
  constructor() {
    super("simulated crash");
  }
}

export interface ChaosOptions {
  random: () => number;
  /** Chance per request of a fault (0..1). */
  rate: number;
  /** Crash when the request counter reaches this number (undefined: never). */
  crashAt?: () => number | undefined;
  /** Observes every request that reached the server, with its response status. */
  observe?: (method: string, path: string, status: number, body: unknown) => void | Promise<void>;
}

const status = (code: number, reason: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message: `injected ${reason}`, code }), {
    status: code,
    headers: { "Content-Type": "application/json", ...headers },
  });

/** chaosFetch returns a fetch that injects faults into `inner` and counts requests. */
function chaosFetch(inner: FetchLike, o: ChaosOptions): FetchLike & { count: number; faults: Record<string, number> } {
  const faults: Record<string, number> = {};
  const bump = (k: string) => (faults[k] = (faults[k] ?? 0) + 1);
  const f = async (input: string | URL | Request, init?: RequestInit) => {
    f.count++;
    if (o.crashAt?.() === f.count) {
      bump("crash");
      throw new Crash();
    }
    const method = init?.method ?? "GET";
    const url = new URL(String(input));
    const roll = o.random();
    if (roll < o.rate) {
      const kind = Math.floor(o.random() * 5);
      switch (kind) {
        case 0:
          bump("409");
          if (method !== "GET") return status(409, "Conflict");
          break;
        case 1:
          bump("429");
          return status(429, "TooManyRequests", { "Retry-After": "1" });
        case 2:
          bump("500");
          return status(500, "InternalError");
        case 3:
          bump("network");
          throw new TypeError("fetch failed (injected)");
        case 4: {
          bump("lost-response");
          const res = await inner(input, init);
          await o.observe?.(method, url.pathname, res.status, init?.body ? JSON.parse(String(init.body)) : undefined);
          throw new TypeError("response lost (injected timeout)");
        }
      }
    }
    const res = await inner(input, init);
    await o.observe?.(method, url.pathname, res.status, init?.body ? JSON.parse(String(init.body)) : undefined);
    return res;
  };
  f.count = 0;
  f.faults = faults;
  return f;
}

/**
 * crashingReconciler returns the reconciler's client over `inner` with faults injected (rate
 * 0.08), its counting fetch, and `invoke`: one reconcile invocation that, while `chaos()`, crashes
 * with chance 0.3 after 1–12 more requests. A crash (or an error escaping the invocation) ends
 * that "process": the next invocation has a new Lease holder identity.
 */
export function crashingReconciler(
  inner: FetchLike,
  o: { random: () => number; chaos: () => boolean; leaseNamespace: string; now: () => Date; observe?: ChaosOptions["observe"] },
) {
  let crashAt: number | undefined;
  let holder = 0;
  const fetch = chaosFetch(inner, { random: o.random, rate: 0.08, crashAt: () => (o.chaos() ? crashAt : undefined), observe: o.observe });
  const client = createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {}, maxAttempts: 2 });
  const invoke = async () => {
    crashAt = o.chaos() && o.random() < 0.3 ? fetch.count + 1 + Math.floor(o.random() * 12) : undefined;
    try {
      await runReconcile(client, { log: silentLogger, holder: `h${holder}`, leaseNamespace: o.leaseNamespace, budgetMs: 1, maxPasses: 1, now: o.now });
    } catch (e) {
      if (!(e instanceof Crash) && !(e instanceof Error)) throw e;
      holder++;
    }
  };
  return { client, fetch, invoke };
}
