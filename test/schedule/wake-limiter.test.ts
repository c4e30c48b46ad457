import { describe, expect, it } from "vitest";
import { WakeLimiter } from "../../src/schedule/wake-limiter.ts";

function limiter(maxKeys = 10_000) {
  let t = 0;
  const l = new WakeLimiter(() => t, { burst: 3, perSecond: 10 }, { burst: 5, perSecond: 100 }, maxKeys);
  return { l, advance: (ms: number) => void (t += ms) };
}

describe("WakeLimiter", () => {
  it("a set gets its burst at once, then one pass per 1/rate", () => {
    const { l, advance } = limiter();
    expect([l.take("a"), l.take("a"), l.take("a")]).toEqual([0, 0, 0]);
    expect(l.take("a")).toBe(100);
    advance(99);
    expect(l.take("a")).toBe(1);
    advance(1);
    expect(l.take("a")).toBe(0);
  });

  it("another set is not held back by a busy one, but all sets share the global burst", () => {
    const { l } = limiter();
    for (let i = 0; i < 3; i++) l.take("a");
    expect(l.take("b")).toBe(0);
    expect(l.take("c")).toBe(0);
    expect(l.take("d")).toBe(10); // global: 5 taken, 100 a second
  });

  it("made-up names beyond maxKeys are bounded by the global bucket alone", () => {
    const { l, advance } = limiter(2);
    expect(l.take("a")).toBe(0);
    expect(l.take("b")).toBe(0);
    expect(l.take("c")).toBe(0);
    expect(l.take("d")).toBe(0);
    expect(l.take("e")).toBe(0);
    expect(l.take("f")).toBeGreaterThan(0);
    advance(10_000);
    // Refilled buckets are forgotten: new names are tracked again.
    expect(l.take("g")).toBe(0);
  });
});

describe("WakeLimiter: namespaces", () => {
  it("many names of one namespace get its rate; another namespace still gets passes at once (per source)", () => {
    let t = 0;
    const l = new WakeLimiter(() => t, { burst: 3, perSecond: 10 }, { burst: 100, perSecond: 50 }, 10_000, { burst: 4, perSecond: 2 });
    expect(Array.from({ length: 4 }, (_, i) => l.take(`team/s${i}`, "team"))).toEqual([0, 0, 0, 0]);
    expect(l.take("team/s4", "team")).toBe(500);
    expect(l.take("other/web", "other")).toBe(0);
    t += 500;
    expect(l.take("team/s4", "team")).toBe(0);
  });
});
