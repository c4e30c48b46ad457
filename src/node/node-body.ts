import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { webBody, type BodySource } from "../http/bytes-in-flight.ts";

/**
 * nodeBody returns the request body read straight from @hono/node-server's IncomingMessage
 * (`c.env.incoming`), which costs less than the web stream `c.req.raw.body` (that builds a full
 * web Request); without one, the web stream. `cancel(true)` destroys the request (its connection
 * closes); `cancel(false)` discards the rest of the body as it comes (Node's request timeout bounds that).
 */
export function nodeBody(c: Context): BodySource {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return webBody(c.req.raw.body);
  const chunks = incoming[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    read: async () => {
      const next = await chunks.next();
      return next.done ? undefined : next.value;
    },
    cancel: (close) => void (close ? incoming.destroy() : incoming.resume()),
  };
}
