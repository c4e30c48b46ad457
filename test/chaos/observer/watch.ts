/**
 * The observer's own list-and-watch (it shares no client with the reconciler): list, then watch
 * from the list's resourceVersion; a watch that ends is resumed from the last event; a 410 (Gone:
 * the version is too old, e.g. after an apiserver restart) lists again, and what changed in the
 * gap is handed on as `resync` events (a deletion not seen as it happened, an object's latest
 * state), which the rules store but do not judge as transitions.
 */
import { readFileSync } from "node:fs";
import { Agent, fetch } from "undici";
import type { Kind, WatchEvent } from "./state.ts";

/** An event with its resourceVersion, which orders it among the other watches' events (one etcd: one revision counter). */
export type OrderedEvent = WatchEvent & { rv: number };

interface Item {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

export interface Http {
  get(path: string, signal: AbortSignal): Promise<{ status: number; json(): Promise<unknown>; body: AsyncIterable<Uint8Array> | null }>;
}

/** httpFor returns a GET to the apiserver with the token, trusting `caFile` when given. */
export function httpFor(apiUrl: string, token: string, caFile?: string): Http {
  const dispatcher = new Agent({ connect: caFile ? { ca: readFileSync(caFile, "utf8") } : {} });
  return {
    async get(path, signal) {
      const res = await fetch(`${apiUrl}${path}`, { dispatcher, signal, headers: { Authorization: `Bearer ${token}`, Accept: "application/json", "User-Agent": "ordinal-chaos-observer" } });
      return { status: res.status, json: () => res.json(), body: res.body as AsyncIterable<Uint8Array> | null };
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((r) => {
  const t = setTimeout(r, ms);
  signal.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
});

const keyOf = (o: Item) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const rvOf = (o: Item) => Number(o.metadata.resourceVersion ?? 0);

/** Gone is thrown when the apiserver no longer has the version a watch resumes from. */
class Gone extends Error {}

/** watchResource lists and watches `path` until `signal` aborts, handing each event to `sink`; `onError` hears each failure (the loop retries after 1 s). */
export async function watchResource(http: Http, kind: Kind, path: string, sink: (e: OrderedEvent) => void, signal: AbortSignal, onError: (e: unknown) => void = () => {}): Promise<void> {
  const known = new Map<string, Item>();
  let rv: string | undefined;
  while (!signal.aborted) {
    try {
      if (rv === undefined) {
        rv = await relist(http, kind, path, known, sink, signal);
      }
      rv = await watchFrom(http, kind, path, rv, known, sink, signal);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof Gone) rv = undefined;
      else {
        onError(e);
        await sleep(1000, signal);
      }
    }
  }
}

/** relist lists the resource and hands on what changed since `known` (everything, the first time); returns the list's resourceVersion. */
async function relist(http: Http, kind: Kind, path: string, known: Map<string, Item>, sink: (e: OrderedEvent) => void, signal: AbortSignal): Promise<string> {
  const res = await http.get(path, signal);
  if (res.status !== 200) throw new Error(`list ${path}: HTTP ${res.status}`);
  const list = (await res.json()) as { metadata?: { resourceVersion?: string }; items?: Item[] };
  const at = Date.now();
  const listRv = list.metadata?.resourceVersion ?? "0";
  const seen = new Set<string>();
  for (const item of list.items ?? []) {
    const k = keyOf(item);
    seen.add(k);
    const before = known.get(k);
    if (before?.metadata.resourceVersion === item.metadata.resourceVersion) continue;
    known.set(k, item);
    sink({ kind, type: before ? "MODIFIED" : "ADDED", object: item, at, resync: true, rv: rvOf(item) });
  }
  for (const [k, item] of known) {
    if (seen.has(k)) continue;
    known.delete(k);
    sink({ kind, type: "DELETED", object: item, at, resync: true, rv: Number(listRv) });
  }
  return listRv;
}

/** watchFrom watches from `rv` until the apiserver ends the watch; returns the last resourceVersion seen. Throws Gone on a 410. */
async function watchFrom(http: Http, kind: Kind, path: string, rv: string, known: Map<string, Item>, sink: (e: OrderedEvent) => void, signal: AbortSignal): Promise<string> {
  const sep = path.includes("?") ? "&" : "?";
  const res = await http.get(`${path}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion=${encodeURIComponent(rv)}`, signal);
  if (res.status === 410) throw new Gone();
  if (res.status !== 200 || !res.body) throw new Error(`watch ${path}: HTTP ${res.status}`);
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const ev = JSON.parse(line) as { type: string; object: Item & { code?: number } };
      if (ev.type === "ERROR") {
        if (ev.object.code === 410) throw new Gone();
        throw new Error(`watch ${path}: ${JSON.stringify(ev.object)}`);
      }
      rv = ev.object.metadata.resourceVersion ?? rv;
      if (ev.type === "BOOKMARK") continue;
      const type = ev.type as WatchEvent["type"];
      if (type === "DELETED") known.delete(keyOf(ev.object));
      else known.set(keyOf(ev.object), ev.object);
      sink({ kind, type, object: ev.object, at: Date.now(), rv: rvOf(ev.object) });
    }
  }
  return rv;
}
