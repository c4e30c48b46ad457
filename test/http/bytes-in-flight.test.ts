/**
 * BodyBudget (src/http/bytes-in-flight.ts): request bodies are counted as their bytes arrive, a
 * sender that falls behind the pace is cut, and the oldest request always proceeds. Before it,
 * requests were admitted in arrival order by the length they declared, so three bodies declared
 * at 3 MiB and trickled held every later request until Node's 15 s request timeout: the first
 * and third tests fail there (the small body waits; nothing is ever cut).
 */
import { describe, expect, it } from "vitest";
import { BodyBudget, type BodySource } from "../../src/http/bytes-in-flight.ts";
import { fakeBudgetClock as fakeClock } from "../support/budget-clock.ts";

/** source returns a body the test feeds chunk by chunk; `cancelled` tells whether the budget closed it. */
function source(): BodySource & { push(s: string): void; end(): void; cancelled: boolean } {
  const queued: (Uint8Array | undefined)[] = [];
  let pending: ((v: Uint8Array | undefined) => void) | undefined;
  const deliver = (v: Uint8Array | undefined) => {
    if (pending) {
      const p = pending;
      pending = undefined;
      p(v);
    } else queued.push(v);
  };
  const s = {
    cancelled: false,
    read: () => (queued.length ? Promise.resolve(queued.shift()) : new Promise<Uint8Array | undefined>((r) => (pending = r))),
    cancel: () => void (s.cancelled = true),
    push: (text: string) => deliver(new TextEncoder().encode(text)),
    end: () => deliver(undefined),
  };
  return s;
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("BodyBudget", () => {
  it("serves a small body at once while three trickling senders hold only the bytes they sent", async () => {
    const clock = fakeClock();
    const budget = new BodyBudget({ maxBytes: 8 * 1024 * 1024, maxBody: 3 * 1024 * 1024, clock });
    const slow = [source(), source(), source()];
    const pending = slow.map((s) => budget.receive(s));
    for (const s of slow) s.push("{");
    const small = source();
    const got = budget.receive(small);
    small.push('{"a":1}');
    small.end();
    const r = await got;
    expect(r).toMatchObject({ ok: true, text: '{"a":1}' });
    await settle();
    expect(budget.held).toBe(3 + 7);
    expect(slow.every((s) => !s.cancelled)).toBe(true);
    if (r.ok) r.release();
    expect(budget.held).toBe(3);
    // The trickling ones are cut once behind the pace: 1 s plus their 1 byte at 2 MiB/s.
    clock.advance(1001);
    const cut = await Promise.all(pending);
    expect(cut.map((x) => x.ok || x.reason)).toEqual(["too slow", "too slow", "too slow"]);
    expect(slow.every((s) => s.cancelled)).toBe(true);
    expect(budget.held).toBe(0);
  });

  it("makes a chunk that does not fit wait, lets the oldest request through, and does not count waiting against a sender", async () => {
    const clock = fakeClock();
    const budget = new BodyBudget({ maxBytes: 10, maxBody: 100, clock, graceMs: 100, minBytesPerS: 1000 });
    const a = source();
    const b = source();
    const ra = budget.receive(a);
    const rb = budget.receive(b);
    a.push("123456");
    b.push("1234");
    await settle();
    expect(budget.held).toBe(10);
    b.push("56"); // does not fit, b is not the oldest: waits
    await settle();
    expect(budget.held).toBe(10);
    a.push("78"); // a is the oldest: proceeds over the bound
    await settle();
    expect(budget.held).toBe(12);
    clock.advance(50);
    a.end();
    const done = await ra;
    expect(done).toMatchObject({ ok: true, text: "12345678" });
    // b waited from 0 to now; its pace counts from its start less that wait.
    clock.advance(120); // 170 ms since start, b had 4 bytes (due at 104 ms without the wait)
    await settle();
    expect(b.cancelled).toBe(false);
    if (done.ok) done.release();
    await settle();
    expect(budget.held).toBe(6);
    b.end();
    expect(await rb).toMatchObject({ ok: true, text: "123456" });
  });

  it("cuts a sender that stops, refuses a body over maxBody, and treats a failed read as closed", async () => {
    const clock = fakeClock();
    const budget = new BodyBudget({ maxBytes: 1000, maxBody: 5, clock, graceMs: 100, minBytesPerS: 1000 });
    const stalled = source();
    const big = source();
    const broken: BodySource = { read: () => Promise.reject(new Error("ECONNRESET")), cancel: () => undefined };
    const rs = budget.receive(stalled);
    const rbig = budget.receive(big);
    stalled.push("abcd");
    big.push("123456");
    expect(await rbig).toMatchObject({ ok: false, status: 413, reason: "too large" });
    expect(big.cancelled).toBe(true);
    expect(await budget.receive(broken)).toMatchObject({ ok: false, status: 408, reason: "closed" });
    clock.advance(103);
    await settle();
    expect(stalled.cancelled).toBe(false); // due at 100 + 4 ms
    clock.advance(1);
    expect(await rs).toMatchObject({ ok: false, status: 408, reason: "too slow", received: 4 });
    expect(budget.held).toBe(0);
  });
});
