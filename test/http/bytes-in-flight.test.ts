/**
 * bytesInFlight (src/http/bytes-in-flight.ts): the webhooks hold a bounded amount of request JSON
 * at once (issue 35: G1's 64 parallel reviews of 1.1 MB pods). Before it, every request was read
 * and parsed as it came: these fail (all three run at once).
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bytesInFlight } from "../../src/http/bytes-in-flight.ts";

/** setup returns an app whose handler waits until released, and what is running. */
function setup(maxBytes: number) {
  const running: string[] = [];
  const release = new Map<string, () => void>();
  const app = new Hono();
  app.post("/x/:id", bytesInFlight(maxBytes, 100), async (c) => {
    const id = c.req.param("id");
    running.push(id);
    await new Promise<void>((r) => release.set(id, r));
    running.splice(running.indexOf(id), 1);
    return c.text(await c.req.text());
  });
  const send = async (id: string, body: string, chunked = false) => (await app.request(`/x/${id}`, { method: "POST", body, headers: chunked ? {} : { "content-length": String(body.length) } })).text();
  const settle = () => new Promise((r) => setTimeout(r, 10));
  return { running, release, send, settle };
}

describe("bytesInFlight", () => {
  it("serves requests while their bodies fit, the next in arrival order as one ends", async () => {
    const { running, release, send, settle } = setup(10);
    const a = send("a", "123456");
    const b = send("b", "1234");
    const c = send("c", "12");
    const d = send("d", "1");
    await settle();
    expect(running).toEqual(["a", "b"]);
    release.get("a")!();
    await settle();
    // c (2 bytes) and d (1 byte) fit beside b now; d never overtook c.
    expect(running).toEqual(["b", "c", "d"]);
    for (const id of ["b", "c", "d"]) release.get(id)!();
    expect(await Promise.all([a, b, c, d])).toEqual(["123456", "1234", "12", "1"]);
  });

  it("runs a request larger than the bound alone, and counts one of unknown length as `unknownSize`", async () => {
    const { running, release, send, settle } = setup(10);
    const big = send("big", "x".repeat(50));
    const small = send("small", "1");
    await settle();
    expect(running).toEqual(["big"]);
    release.get("big")!();
    await settle();
    expect(running).toEqual(["small"]);
    // 1 byte runs beside it when it says so; the same byte without a length is taken as 100: it waits.
    const declared = send("declared", "z");
    const chunked = send("chunked", "y", true);
    await settle();
    expect(running).toEqual(["small", "declared"]);
    release.get("small")!();
    release.get("declared")!();
    await settle();
    expect(running).toEqual(["chunked"]);
    release.get("chunked")!();
    expect(await Promise.all([big, small, declared, chunked])).toEqual(["x".repeat(50), "1", "z", "y"]);
  });
});
