import type { MiddlewareHandler } from "hono";

/**
 * MAX_BYTES_IN_FLIGHT bounds the request bodies the webhooks serve at once (one isolate, one
 * process): a set creating a batch of 64 pods of 1.1 MB each makes the apiserver send 64 reviews
 * of that size in parallel, each parsed, copied and diffed (several times its size in heap).
 */
export const MAX_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

/**
 * bytesInFlight returns a middleware that lets a request through while the bodies of the requests
 * being served add up to at most `maxBytes` (a request's size: its Content-Length, else
 * `unknownSize`); the others wait, in arrival order, before their body is read (a waiting request
 * holds its socket only). A request larger than `maxBytes` alone runs when no other does.
 */
export function bytesInFlight(maxBytes: number, unknownSize: number): MiddlewareHandler {
  let used = 0;
  const waiting: { size: number; go: () => void }[] = [];
  const admit = () => {
    while (waiting.length && (used === 0 || used + waiting[0].size <= maxBytes)) {
      const w = waiting.shift()!;
      used += w.size;
      w.go();
    }
  };
  return async (c, next) => {
    const length = Number(c.req.header("content-length") ?? "NaN");
    const size = Number.isSafeInteger(length) && length >= 0 ? length : unknownSize;
    await new Promise<void>((go) => {
      waiting.push({ size, go });
      admit();
    });
    try {
      await next();
    } finally {
      used -= size;
      admit();
    }
  };
}
