/**
 * ShardReconciler, the Worker's Durable Object per shard: the single writer of the namespaces
 * that hash onto its shard (src/schedule/shard-runner.ts does the work). Reached only through
 * the SHARDS binding (wrangler.toml), by name `shard-<index>`:
 * - `POST /wake {index, wake: {namespace, name, write?}}` (the webhooks forward each wake, with the
 *   write its admission announces): a targeted pass of that set at once; answers 204 once the
 *   shard's queue was drained.
 * - `POST /poke {index}` (each cron tick): the full (safety) pass now, with whatever else is due
 *   (a set no wake announced waits at most one tick, whatever the alarm says).
 * - `alarm()`: the sets whose requeueAfter came, and the full (safety) pass every
 *   RECONCILE_INTERVAL_MS; then the alarm is set for the next of them.
 * The namespace a drain reads is noted in storage (`reading`) until the drain ends: one left behind
 * when the object starts again is what its last invocation died reading: the suspect (`suspect`),
 * quarantined when an invocation dies reading it again (src/reconciler/namespace-guard.ts, as
 * Node's reconcile thread does; one death alone may be a deploy or an eviction).
 * The object's holder identity on its Lease and in its User-Agent (`ordinal-worker-<index>-<8 hex
 * digits>`, `holder`) is made on its first run and kept: a new instance after an eviction or a
 * deploy renews its Lease at once, while another object (another shard, or a second deployment on
 * the same cluster) never passes for it.
 * A shard whose index is no longer below RECONCILE_SHARDS (the count was lowered) deletes its
 * alarm and storage, so two objects never write the same namespace for long.
 *
 * Module start stays small: the reconciler is loaded on the object's first event.
 */
import type { Env } from "./env.ts";
import type { ShardRunner } from "../schedule/shard-runner.ts";

/** The parts of the Durable Object state this class uses. */
interface DurableObjectStateLike {
  storage: {
    get<T>(key: string): Promise<T | undefined>;
    put(key: string, value: unknown, options?: { allowUnconfirmed?: boolean }): Promise<void>;
    delete(key: string, options?: { allowUnconfirmed?: boolean }): Promise<boolean>;
    deleteAll(): Promise<void>;
    setAlarm(at: number, options?: { allowUnconfirmed?: boolean }): Promise<void>;
    deleteAlarm(): Promise<void>;
  };
}

const INDEX_KEY = "index";
/** The namespace a drain is reading (ShardStore.reading): left behind when the invocation died reading it. */
const READING_KEY = "reading";
/** The namespace the invocation before died reading (ShardStore.suspect): quarantined if it happens again. */
const SUSPECT_KEY = "suspect";
/** The object's holder identity on its Lease (src/lease/identity.ts): made on its first run, kept across evictions and restarts. */
const HOLDER_KEY = "holder";

/** messageOf returns the shard index and wake of a message body (its write unchecked yet), or a reason it is not one. */
function messageOf(body: unknown, withWake: boolean): { index: number; wake?: { namespace: string; name: string; write?: unknown } } | string {
  if (typeof body !== "object" || body === null) return "body must be a JSON object";
  const { index, wake } = body as { index?: unknown; wake?: { namespace?: unknown; name?: unknown; write?: unknown } };
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return "index must be a whole number";
  if (!withWake) return { index };
  if (typeof wake?.namespace !== "string" || wake.namespace === "" || typeof wake.name !== "string") return "wake must be {namespace, name}";
  return { index, wake: { namespace: wake.namespace, name: wake.name, write: wake.write } };
}

export class ShardReconciler {
  private runner: Promise<ShardRunner | undefined> | undefined;

  constructor(
    private readonly state: DurableObjectStateLike,
    private readonly env: Env,
  ) {}

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST" || (path !== "/wake" && path !== "/poke")) return new Response("POST /wake or /poke", { status: 404 });
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return new Response("body must be JSON", { status: 400 });
    }
    const m = messageOf(body, path === "/wake");
    if (typeof m === "string") return new Response(m, { status: 400 });
    if ((await this.state.storage.get<number>(INDEX_KEY)) !== m.index) await this.state.storage.put(INDEX_KEY, m.index);
    const runner = await this.runnerOf(m.index);
    if (!runner) return new Response("no shard here", { status: 410 });
    if (m.wake) {
      const { announcedWriteOf } = await import("./build-shard-runner.ts");
      await runner.wake({ namespace: m.wake.namespace, name: m.wake.name, write: announcedWriteOf(m.wake.write) });
    }
    else await runner.poke();
    return new Response(null, { status: 204 });
  }

  async alarm(): Promise<void> {
    const index = await this.state.storage.get<number>(INDEX_KEY);
    const runner = index === undefined ? undefined : await this.runnerOf(index);
    await runner?.alarm();
  }

  /** runnerOf returns the shard's runner (built once), or undefined when the shard is retired or no cluster is configured. */
  private runnerOf(index: number): Promise<ShardRunner | undefined> {
    this.runner ??= this.newRunner(index);
    return this.runner;
  }

  private async newRunner(index: number): Promise<ShardRunner | undefined> {
    const { buildShardRunner } = await import("./build-shard-runner.ts");
    const { storage } = this.state;
    const identity = { load: () => storage.get(HOLDER_KEY), save: (holder: string) => storage.put(HOLDER_KEY, holder) };
    const runner = await buildShardRunner(this.env, index, {
      load: () => this.state.storage.get("schedule"),
      // A woken set's early write is unconfirmed (as `reading` below): its pass's requests are not
      // held back until it is durable; it is in the runtime's hands, so an isolate that dies keeps it.
      save: (s, early) => this.state.storage.put("schedule", s, { allowUnconfirmed: !!early }),
      setAlarm: (at, early) => this.state.storage.setAlarm(at, { allowUnconfirmed: !!early }),
      // Unconfirmed: the list it precedes is not held back until the write is durable (it is in the
      // runtime's hands before the list is sent, so an isolate that dies reading leaves it behind).
      reading: {
        load: () => this.state.storage.get<string>(READING_KEY),
        save: async (ns) => void (ns === undefined ? await this.state.storage.delete(READING_KEY, { allowUnconfirmed: true }) : await this.state.storage.put(READING_KEY, ns, { allowUnconfirmed: true })),
      },
      suspect: {
        load: () => this.state.storage.get<string>(SUSPECT_KEY),
        save: async (ns) => void (ns === undefined ? await this.state.storage.delete(SUSPECT_KEY) : await this.state.storage.put(SUSPECT_KEY, ns)),
      },
    }, identity);
    if (runner === "retired") {
      await this.state.storage.deleteAlarm();
      await this.state.storage.deleteAll();
      return undefined;
    }
    return runner;
  }
}
