/**
 * `ordinal serve` replicas sharing shards on the fake apiserver (src/schedule/shard-schedulers.ts),
 * for tests under fake timers: each replica's client records its writes, checks each one against
 * the holder of its namespace's shard Lease at that instant (a write by anyone else is a
 * violation: two replicas acting on one shard), and can be killed (every later call fails) or
 * paused (every call waits until resumed: a process stopped with SIGSTOP).
 */
import { expect, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import type { ElectionTiming } from "../../src/lease/elector.ts";
import { ShardSchedulers } from "../../src/schedule/shard-schedulers.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "./fixtures.ts";

export const LEASES = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases";

/** A replica: its schedulers, its writes, its Lease writes, what it logged, and the faults it can be put through. */
export interface Replica {
  schedulers: ShardSchedulers;
  writes: string[];
  leaseWrites: string[];
  logged: string[];
  kill(): void;
  /** Every call from now on waits until resume() (its timers still run: it finds its Leases lapsed). */
  pause(): void;
  /** The response of its next write, and every call after it, waits until resume(): a process paused mid-pass. */
  pauseAfterNextWrite(): void;
  resume(): void;
}

/**
 * shardWorld returns a fake apiserver with a set in each of `namespaceCount` namespaces and a way
 * to start replicas of `count` shards on it (full passes every `intervalMs`, waiting sets looked at
 * again every `idleMs`).
 */
export function shardWorld(count: number, election: ElectionTiming, { namespaceCount = count, intervalMs = 1_000, idleMs = 500 } = {}) {
  const namespaces = Array.from({ length: namespaceCount }, (_, i) => `ns-${i}`);
  const fake = createFakeApiServer({ namespaces: [...namespaces, "ordinal-system"] });
  for (const namespace of namespaces) fake.seed(setManifest({ name: "web", namespace, replicas: 1, policy: "Parallel" }));
  const running: ShardSchedulers[] = [];
  const violations: string[] = [];
  /** holderOf returns who holds shard `i`'s Lease (of `of` shards) in the fake apiserver now ("" for nobody). */
  const holderOf = (i: number, of = count): string => fake.get<Lease>(`${LEASES}/${shardLeaseName(i, of)}`)?.spec?.holderIdentity ?? "";
  const podsIn = (ns: string) =>
    fake
      .list<Pod>(`/api/v1/namespaces/${ns}/pods`)
      .map((p) => p.metadata?.name)
      .sort();

  /** replica returns a replica (not started) of `shards` shards (default: the world's count). */
  function replica(holder: string, shards = count): Replica {
    let dead = false;
    let armed = false;
    let gate: Promise<void> | undefined;
    let open: () => void = () => {};
    const writes: string[] = [];
    const leaseWrites: string[] = [];
    const logged: string[] = [];
    const capture = (msg: string, fields?: Record<string, unknown>) => void logged.push(`${msg} ${JSON.stringify(fields ?? {})}`);
    const log: Logger = { info: capture, warn: capture, error: capture };
    const close = () => (gate = new Promise<void>((resolve) => (open = resolve)));
    const client = createKubeClient({
      baseUrl: "https://fake",
      sleep: async () => {},
      maxAttempts: 1,
      fetch: async (input, init) => {
        if (dead) throw new TypeError("fetch failed");
        if (gate) await gate;
        const url = new URL(String(input instanceof Request ? input.url : input));
        const ns = /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
        const method = init?.method ?? "GET";
        if (method !== "GET" && ns === "ordinal-system") leaseWrites.push(`${method} ${url.pathname}`);
        const write = method !== "GET" && ns !== undefined && ns !== "ordinal-system";
        if (write) {
          writes.push(`${method} ${url.pathname}`);
          const holds = holderOf(shardOf(ns, shards), shards);
          if (holds !== holder) violations.push(`${holder} wrote ${method} ${url.pathname} while ${holds || "nobody"} held shard ${shardOf(ns, shards)} of ${shards}`);
        }
        const res = await fake.fetch(input, init);
        if (write && armed) {
          armed = false;
          await close();
        }
        return res;
      },
    });
    const schedulers = new ShardSchedulers(client, { log, holder, leaseNamespace: "ordinal-system", intervalMs, budgetMs: 60_000, idleMs, election }, shards);
    running.push(schedulers);
    return {
      schedulers,
      writes,
      leaseWrites,
      logged,
      kill: () => (dead = true),
      pause: () => void close(),
      pauseAfterNextWrite: () => (armed = true),
      resume: () => {
        gate = undefined;
        open();
      },
    };
  }

  /** stopAll stops every replica started (advancing the fake clock, if faked, a lease duration meanwhile). */
  async function stopAll(): Promise<void> {
    const stopping = Promise.all(running.map((s) => s.stop().catch(() => undefined)));
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(election.durationMs);
    await stopping;
  }

  return { fake, namespaces, violations, holderOf, podsIn, replica, stopAll };
}

/** until advances the fake clock in 50 ms steps until `ok()` holds (or `maxMs` passed), expects it, and returns the fake ms it took. */
export async function until(ok: () => boolean, maxMs: number): Promise<number> {
  const start = Date.now();
  while (!ok() && Date.now() - start < maxMs) await vi.advanceTimersByTimeAsync(50);
  expect(ok()).toBe(true);
  return Date.now() - start;
}

/** sharing starts replicas `names` of `w` together and returns them once they hold `each` shards each (within 4 retry periods). */
export async function sharing(w: ReturnType<typeof shardWorld>, names: string[], each: number, retryPeriodMs: number): Promise<Replica[]> {
  const rs = names.map((n) => w.replica(n));
  for (const r of rs) r.schedulers.start();
  await until(() => sizes(...rs).every((n) => n === each), 4 * retryPeriodMs);
  return rs;
}

/** sizes returns how many shards each replica acts for now. */
export const sizes = (...rs: { schedulers: ShardSchedulers }[]): number[] => rs.map((r) => r.schedulers.held().length);
