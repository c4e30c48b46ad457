import { describe, expect, it } from "vitest";
import { Orderer } from "./orderer.ts";
import type { OrderedEvent } from "./watch.ts";

const ev = (rv: number, at: number, resync = false): OrderedEvent => ({ kind: "pod", type: "MODIFIED", object: { metadata: { name: `p${rv}` } }, at, rv, resync });

describe("Orderer", () => {
  it("releases what settled in resourceVersion order, keeps the rest, and counts a live event that comes after a later one", () => {
    const o = new Orderer();
    o.push(ev(5, 0));
    o.push(ev(3, 0));
    o.push(ev(9, 50));
    expect(o.release(10).map((e) => e.rv)).toEqual([3, 5]);
    o.push(ev(4, 60));
    o.push(ev(2, 60, true));
    expect(o.release(100).map((e) => e.rv)).toEqual([2, 4, 9]);
    expect(o.late).toBe(1);
  });
});
