/**
 * readSlices (src/reconciler/pass-reads.ts, issue 35): a namespace whose sets expect more than
 * SLICE_OBJECTS objects is read in slices of its sets, each by a selector naming them, so what a
 * pass holds follows a slice (npm run bench: 10,000 sets × 10 pods in one namespace).
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/client.ts";
import { readSlices, SLICE_OBJECTS } from "../../src/reconciler/pass-reads.ts";

const set = (name: string, replicas: unknown, templates = 0): KubeObject => ({ metadata: { name }, spec: { replicas, volumeClaimTemplates: Array.from({ length: templates }, () => ({})) } });
const ALL = "ordinal.dev/statefulset";

describe("readSlices", () => {
  it("reads a namespace that expects at most SLICE_OBJECTS objects at once, by the selector it was given", () => {
    const sets = [set("a", 10), set("b", 10)];
    expect(readSlices(sets, ALL)).toEqual([{ sets, selector: ALL }]);
  });

  it("a targeted pass (a selector naming its set) is never sliced", () => {
    const sets = [set("a", SLICE_OBJECTS * 2)];
    expect(readSlices(sets, `${ALL}=a`)).toEqual([{ sets, selector: `${ALL}=a` }]);
  });

  it("cuts the sets, in order, into slices of at most SLICE_OBJECTS expected objects (1 + replicas × (1 + claim templates)), each read by the names of its sets", () => {
    const per = Math.floor(SLICE_OBJECTS / 3);
    const sets = ["a", "b", "c", "d", "e", "f", "g"].map((n) => set(n, per - 1));
    const slices = readSlices(sets, ALL);
    expect(slices.map((s) => s.selector)).toEqual([`${ALL} in (a,b,c)`, `${ALL} in (d,e,f)`, `${ALL} in (g)`]);
    expect(slices.flatMap((s) => s.sets)).toEqual(sets);
    const withClaims = readSlices([set("a", per - 1, 2), set("b", per - 1), set("c", per - 1)], ALL);
    expect(withClaims.map((s) => s.selector)).toEqual([`${ALL} in (a)`, `${ALL} in (b,c)`]);
  });

  it("a set expecting more than a slice is a slice of its own; replicas that are not a number count as 1", () => {
    const slices = readSlices([set("big", 1e9), set("x", "many"), set("y", -5)], ALL);
    expect(slices.map((s) => s.selector)).toEqual([`${ALL} in (big)`, `${ALL} in (x,y)`]);
  });

  it("keeps each selector within 12,000 characters", () => {
    const name = (i: number) => `s${String(i).padStart(60, "0")}`;
    const slices = readSlices(Array.from({ length: 1000 }, (_, i) => set(name(i), 9)), ALL);
    expect(slices.length).toBeGreaterThan(1);
    for (const s of slices) expect(s.selector.length).toBeLessThanOrEqual(12_000 + ALL.length + 6);
  });

  it("reads at once a namespace with a set whose name cannot be a label value (no selector could name it)", () => {
    const sets = [set("a".repeat(64), SLICE_OBJECTS), set("b", SLICE_OBJECTS)];
    expect(readSlices(sets, ALL)).toEqual([{ sets, selector: ALL }]);
  });
});
