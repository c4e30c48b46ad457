import { describe, expect, it } from "vitest";
import { watchResource, type Http, type OrderedEvent } from "./watch.ts";

const item = (name: string, rv: number) => ({ metadata: { name, namespace: "n", resourceVersion: String(rv) } });
const lines = (...evs: object[]) => new TextEncoder().encode(evs.map((e) => JSON.stringify(e)).join("\n") + "\n");

/** fakeHttp answers each GET with the next scripted answer (a list, a watch stream, a status); the last repeats after the script ends, aborting. */
function fakeHttp(script: ((path: string) => { status: number; body?: unknown; stream?: Uint8Array })[], abort: AbortController, seen: string[]): Http {
  let i = 0;
  return {
    async get(path) {
      seen.push(path);
      if (i >= script.length) {
        abort.abort();
        return { status: 500, json: async () => ({}), body: null };
      }
      const a = script[i++](path);
      return {
        status: a.status,
        json: async () => a.body,
        body: a.stream ? (async function* () { yield a.stream!; })() : null,
      };
    },
  };
}

describe("watchResource", () => {
  it("lists, watches from the list's version, resumes from the last event, and relists on 410 with the gap as resync events", async () => {
    const abort = new AbortController();
    const seen: string[] = [];
    const events: OrderedEvent[] = [];
    const http = fakeHttp(
      [
        () => ({ status: 200, body: { metadata: { resourceVersion: "10" }, items: [item("a", 5), item("b", 7)] } }),
        () => ({ status: 200, stream: lines({ type: "MODIFIED", object: item("a", 11) }, { type: "BOOKMARK", object: { metadata: { resourceVersion: "12" } } }) }),
        () => ({ status: 200, stream: lines({ type: "ERROR", object: { code: 410 } }) }),
        () => ({ status: 200, body: { metadata: { resourceVersion: "20" }, items: [item("a", 11), item("c", 18)] } }),
      ],
      abort,
      seen,
    );
    await watchResource(http, "pod", "/api/v1/pods", (e) => events.push(e), abort.signal);
    expect(events.map((e) => [e.type, e.object.metadata.name, e.rv, e.resync ?? false])).toEqual([
      ["ADDED", "a", 5, true],
      ["ADDED", "b", 7, true],
      ["MODIFIED", "a", 11, false],
      ["ADDED", "c", 18, true],
      ["DELETED", "b", 20, true],
    ]);
    expect(seen.slice(0, 4)).toEqual([
      "/api/v1/pods",
      "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion=10",
      "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion=12",
      "/api/v1/pods",
    ]);
  });
});
