/**
 * A watch on one collection of the real apiserver that keeps the latest object by name and the
 * arrival time of every event, so the benchmark can tell when a condition first held (a set's
 * status says done, a pod was created, a pod turned Ready) as a watching controller would see it.
 * `waitFor` checks the watches' state in memory (no requests) every few milliseconds.
 */
import type { FetchLike } from "../../../src/kube/http.ts";

export interface Watched {
  metadata?: { name?: string; uid?: string; generation?: number; resourceVersion?: string; deletionTimestamp?: unknown };
}

export interface WatchEvent<T> {
  type: string;
  object: T;
  /** Date.now() when the event arrived. */
  at: number;
}

export interface ApiAccess {
  server: string;
  token: string;
  fetch: FetchLike;
}

/** Watch holds what a watch has seen so far: every event with its arrival time, and the latest object by name. */
export class Watch<T extends Watched> {
  readonly events: WatchEvent<T>[] = [];
  readonly objects = new Map<string, T>();
  /** Why the stream ended early, if it did. */
  failure: Error | undefined;

  constructor(private readonly abort: AbortController) {}

  /** add records one event. */
  add(e: WatchEvent<T>): void {
    this.events.push(e);
    const name = e.object.metadata?.name ?? "";
    if (e.type === "DELETED") this.objects.delete(name);
    else this.objects.set(name, e.object);
  }

  stop(): void {
    this.abort.abort();
  }
}

/**
 * startWatch opens a watch on the collection at `path` (all events from now, ADDED for what
 * exists). A stream that ends (the apiserver's watch timeout, a dropped connection) is reopened
 * from the last resourceVersion seen; the watch fails after 5 reopenings in a row that fail.
 */
export async function startWatch<T extends Watched>(api: ApiAccess, path: string): Promise<Watch<T>> {
  const abort = new AbortController();
  const w = new Watch<T>(abort);
  const open = async () => {
    const rv = w.events.at(-1)?.object.metadata?.resourceVersion;
    const res = await api.fetch(`${api.server}${path}?watch=1${rv ? `&resourceVersion=${rv}` : ""}`, { headers: { authorization: `Bearer ${api.token}` }, signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`watch ${path}: HTTP ${res.status} ${await res.text()}`);
    return res.body;
  };
  let body = await open();
  void (async () => {
    for (let failures = 0; !abort.signal.aborted; ) {
      try {
        if (await pump(body, w)) failures = 0;
        body = await open();
      } catch (e) {
        if (abort.signal.aborted) return;
        if (++failures >= 5) {
          w.failure = new Error(`watch ${path} ended: ${String(e)}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
        try {
          body = await open();
        } catch {
          /* counted on the next round */
        }
      }
    }
  })();
  return w;
}

/** pump feeds each line of the watch stream (one JSON event) into `w` until the stream ends; returns whether it saw an event. */
async function pump<T extends Watched>(body: ReadableStream<Uint8Array>, w: Watch<T>): Promise<boolean> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let seen = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return seen;
    const at = Date.now();
    buf += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const e = JSON.parse(line) as { type: string; object: T };
      if (e.type === "ERROR") throw new Error(JSON.stringify(e.object));
      w.add({ type: e.type, object: e.object, at });
      seen = true;
    }
  }
}

/** WaitTimeout is what waitFor throws when `done` did not hold in time (a watch's failure is thrown as itself). */
export class WaitTimeout extends Error {}

/** waitFor returns Date.now() once `done()` holds (checked every 5 ms), or throws after timeoutMs or when a watch failed. */
export async function waitFor(done: () => boolean, watches: Watch<Watched>[], timeoutMs: number, what: string): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const failed = watches.find((w) => w.failure);
    if (failed) throw failed.failure!;
    if (done()) return Date.now();
    if (Date.now() > until) throw new WaitTimeout(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
