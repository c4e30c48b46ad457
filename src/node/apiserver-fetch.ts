/**
 * The Node reconciler's transport to the apiserver: a fetch over undici's `request` API instead of
 * WHATWG fetch. A pass over a shard of many small namespaces sends three or four lists per
 * namespace, and on these machines the client's own CPU per request was about 0.5–1 ms through
 * fetch (its spec machinery: Request/Headers objects, web streams for every body); through
 * `request` with the body read whole it is about two thirds of that (test/bench/shard-cost.ts
 * prints the pass figures). Node-only (undici's Agent), never in the Worker bundle.
 */
import { Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";
import type { FetchLike } from "../kube/http.ts";

/** TLS settings of the apiserver connection (all optional: none means the system's CAs). */
export interface ApiServerTls {
  ca?: string;
  cert?: string;
  key?: string;
  insecure?: boolean;
}

/** The `watch` values the apiserver reads as true (Go's strconv.ParseBool): `?watch=1` is a watch as much as `?watch=true`. */
const WATCH_TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);

/** What the Response constructor takes as a status text (HTTP's reason-phrase: tab, space, visible and obs-text characters). */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Statuses whose Response must have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * apiserverFetch returns a FetchLike over one keep-alive undici Agent with `tls`. It answers a
 * Response whose body was read whole when it is small (gets, writes, most lists), streamed once it
 * outgrows WHOLE_BODY_MAX_BYTES (wholeOrStreamed), or streams it when the request is a watch (`watch=true`, or any value the apiserver reads as true: its body never ends). It
 * rejects as undici does: the system or TLS error (its `code`, which networkCause words) or the
 * signal's reason (a TimeoutError for the client's per-request timeout). Redirects are not
 * followed (an apiserver does not send them) and no compression is asked for (the in-cluster
 * path is short; client-go's DisableCompression makes the same trade).
 */
export function apiserverFetch(tls: ApiServerTls = {}): FetchLike {
  const dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecure } });
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const res = await request(url, {
      method: (init?.method ?? "GET") as Dispatcher.HttpMethod,
      headers: init?.headers as Record<string, string> | undefined,
      body: init?.body as string | undefined,
      signal: init?.signal ?? undefined,
      dispatcher,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
    // The reason phrase too: an error whose body is no Status (a proxy's 502 page) is reported by it (http.ts toApiError);
    // one the Response constructor refuses (control characters) is left out rather than failing the answer.
    const answer = { status: res.statusCode, statusText: REASON_PHRASE.test(res.statusText) ? res.statusText : "", headers };
    if (NULL_BODY.has(answer.status)) {
      await res.body.dump();
      return new Response(null, answer);
    }
    const streams = WATCH_TRUE.has(new URL(url).searchParams.get("watch") ?? "");
    const body = streams ? (Readable.toWeb(res.body) as ReadableStream<Uint8Array>) : await wholeOrStreamed(res.body);
    return new Response(body, answer);
  };
}

/**
 * A body up to this size is read whole (the cheapest path: most answers are a few KB); a larger
 * one (a list page of a tenant's large objects) is streamed from there on, so the list decoder
 * (kube/list-stream.ts) holds one item at a time and the process never holds the page outside the
 * heap caps (issue 35: 100 pods of 1.1 MB made one 67 MB buffer per list).
 */
export const WHOLE_BODY_MAX_BYTES = 1 << 20;

/**
 * wholeOrStreamed returns the body as one buffer when it ends within WHOLE_BODY_MAX_BYTES, else a
 * stream that yields the chunks read so far and then the rest as the reader asks (back-pressure:
 * nothing more is read than the reader takes); cancelling it destroys the connection's body.
 */
async function wholeOrStreamed(body: Readable): Promise<ArrayBuffer | ReadableStream<Uint8Array>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  for (;;) {
    const next = await it.next();
    if (next.done) return new Uint8Array(Buffer.concat(chunks, size)).buffer;
    chunks.push(next.value);
    size += next.value.length;
    if (size > WHOLE_BODY_MAX_BYTES) break;
  }
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks.splice(0)) c.enqueue(chunk);
    },
    async pull(c) {
      const next = await it.next();
      if (next.done) c.close();
      else c.enqueue(next.value);
    },
    cancel() {
      body.destroy();
    },
  });
}
