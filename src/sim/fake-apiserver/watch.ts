// WATCH: `GET <collection>?watch=true` as the apiserver answers it: a 200 whose body is one JSON
// event per line ({type, object}), from a resourceVersion (events after it, from a bounded history;
// older than the history: one ERROR event with a 410 Expired Status, as the watch cache sends) or
// without one (ADDED for every object that exists, then what changes). Label and field selectors
// filter as the apiserver's cacher does: an object that stops matching comes as DELETED, one that
// starts matching as ADDED. Objects in events carry kind and apiVersion. `timeoutSeconds` ends the
// stream; so does the client's abort. A resourceVersion that is not a number is a 400 before any
// stream. Not done: bookmarks (1.20 sends one about 2 s before timeoutSeconds ends the watch).

import { badRequest, expired } from "./errors.ts";
import type { Obj } from "./json.ts";
import { apiVersionOf, type ResourceDef } from "./kinds/types.ts";
import { checkFields } from "./listing.ts";
import type { Change } from "./rest.ts";
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import type { Store } from "./store.ts";


interface Recorded {
  rv: number;
  change: Change;
}

type WatchType = "ADDED" | "MODIFIED" | "DELETED";

/** WatchHub records every stored change and streams them to the open watches. */
export class WatchHub {
  private readonly history: Recorded[] = [];
  /** The resourceVersion a watch can resume from at the earliest (every change after it is kept). */
  private floor = 0;
  private readonly watchers = new Set<(r: Recorded) => void>();

  constructor(
    private readonly store: Store,
    /** How many changes a watch can resume from (the apiserver's watch cache keeps a window too). */
    private readonly historySize = 10_000,
  ) {}

  /** record keeps a change (at the store's current resourceVersion) and hands it to the open watches. */
  record(change: Change): void {
    const r = { rv: this.store.resourceVersion(), change };
    this.history.push(r);
    if (this.history.length > this.historySize) this.floor = this.history.splice(0, this.history.length - this.historySize).pop()!.rv;
    for (const w of this.watchers) w(r);
  }

  /** watch returns the streaming response of a watch request on `def` (namespace undefined: every namespace). */
  watch(def: ResourceDef, namespace: string | undefined, query: URLSearchParams, signal: AbortSignal | undefined): Response {
    const labels = parseLabelSelector(query.get("labelSelector") ?? "");
    const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
    const getters = checkFields(def, fields);
    const inScope = (o: Obj) => namespace === undefined || (o.metadata as Obj).namespace === namespace;
    const matches = (o: Obj | undefined) => !!o && inScope(o) && matchesLabels(labels, (o.metadata as Obj).labels) && matchesFields(fields, o, getters);
    const from = query.get("resourceVersion") ?? "";
    if (from !== "" && !/^\d+$/.test(from)) throw badRequest(`resourceVersion: Invalid value: "${from}": strconv.ParseUint: parsing ${JSON.stringify(from)}: invalid syntax`);
    const timeout = Number(query.get("timeoutSeconds") ?? "0");
    const encoder = new TextEncoder();
    const typed = (o: Obj): Obj => ({ ...o, kind: def.kind, apiVersion: apiVersionOf(def) });
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false;
        const send = (type: WatchType | "ERROR", object: Obj) => controller.enqueue(encoder.encode(`${JSON.stringify({ type, object })}\n`));
        const onChange = ({ rv, change }: Recorded) => {
          if (change.def !== def) return;
          const now = matches(change.obj);
          const before = change.type === "modified" && matches(change.old);
          if (change.type === "deleted") {
            if (now) send("DELETED", typed({ ...change.obj, metadata: { ...(change.obj.metadata as Obj), resourceVersion: String(rv) } }));
          } else if (now) send(change.type === "added" || !before ? "ADDED" : "MODIFIED", typed(change.obj));
          // Leaving the selector: the cacher sends the object as it was, at the new resourceVersion.
          else if (before && change.old) send("DELETED", typed({ ...change.old, metadata: { ...(change.old.metadata as Obj), resourceVersion: String(rv) } }));
        };
        stop = () => {
          if (closed) return;
          closed = true;
          this.watchers.delete(onChange);
          clearTimeout(timer);
          signal?.removeEventListener("abort", stop);
          try {
            controller.close();
          } catch {
            // already cancelled by the reader
          }
        };
        const timer = timeout > 0 ? setTimeout(stop, timeout * 1000) : undefined;
        signal?.addEventListener("abort", stop);
        if (from === "" || from === "0") {
          for (const o of this.store.list(def, namespace)) if (matches(o)) send("ADDED", typed(o));
        } else {
          const rv = Number(from);
          if (rv < this.floor) {
            send("ERROR", expired(`too old resource version: ${from} (${this.floor + 1})`).status as unknown as Obj);
            stop();
            return;
          }
          for (const r of this.history) if (r.rv > rv) onChange(r);
        }
        this.watchers.add(onChange);
      },
      cancel: () => stop(),
    });
    return new Response(body, { status: 200, headers: { "content-type": "application/json", "transfer-encoding": "chunked" } });
  }
}
