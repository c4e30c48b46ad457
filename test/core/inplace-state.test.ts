/** The in-place update state kept on the pod: the state annotation, the InPlaceUpdateReady gate, and the time helpers. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { gateCondition, isGateFalse, isInPlaceUpdating, readInPlaceState, timeMs, wholeSeconds, writeInPlaceState, type InPlaceUpdateState } from "../../src/core/inplace-state.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";

describe("in-place state annotation", () => {
  const s: InPlaceUpdateState = { revision: "web-2", updateTime: "2026-11-21T12:00:00Z", oldImageIDs: { app: "id1" }, images: { app: "app:2" } };
  const annotated = (value: string) => ({ metadata: { annotations: { [INPLACE_STATE_ANNOTATION]: value } } }) as Pod;
  const broken: InPlaceUpdateState = { revision: "", updateTime: "", oldImageIDs: {}, images: {} };
  const json = (over: Record<string, unknown>) => JSON.stringify({ ...s, ...over });

  it("round-trips", () => {
    expect(readInPlaceState(annotated(writeInPlaceState(s)))).toEqual(s);
    expect(readInPlaceState(annotated(json({ oldImageIDs: {}, images: {} })))).toEqual({ ...s, oldImageIDs: {}, images: {} });
    const withIDs = { ...s, oldContainerIDs: { app: "containerd://c1" } };
    expect(readInPlaceState(annotated(writeInPlaceState(withIDs)))).toEqual(withIDs);
  });

  it.each([
    ["not JSON", "{"],
    ["null", "null"],
    ["an array", "[]"],
    ["a number", "7"],
    ["a string", '"web-2"'],
    ["no revision", json({ revision: undefined })],
    ["a number for revision", '{"revision":1}'],
    ["no updateTime", json({ updateTime: undefined })],
    ["no oldImageIDs", json({ oldImageIDs: undefined })],
    ["oldImageIDs null", json({ oldImageIDs: null })],
    ["oldImageIDs a string", json({ oldImageIDs: "id1" })],
    ["oldImageIDs an array", json({ oldImageIDs: ["id1"] })],
    ["an oldImageID not a string", json({ oldImageIDs: { app: "id1", side: 2 } })],
    ["no images", json({ images: undefined })],
    ["an image not a string", json({ images: { app: "app:2", side: null } })],
    ["oldContainerIDs an array", json({ oldContainerIDs: ["containerd://c1"] })],
    ["an oldContainerID not a string", json({ oldContainerIDs: { app: 1 } })],
  ])("%s reads as present but matching no revision", (_, value) => {
    expect(readInPlaceState(annotated(value))).toEqual(broken);
  });

  it.each([
    ["no annotation", { metadata: { annotations: { other: "x" } } }],
    ["no annotations", { metadata: {} }],
    ["no metadata", {}],
  ])("%s: absent", (_, pod) => {
    expect(readInPlaceState(pod as Pod)).toBeUndefined();
    expect(isInPlaceUpdating(pod as Pod)).toBe(false);
  });
});

describe("gate and state readers", () => {
  const gated = (status: string) => ({ status: { conditions: [{ type: "Ready", status: "False" }, { type: "InPlaceUpdateReady", status }] } }) as Pod;
  it.each([
    ["gate False", gated("False"), true, true],
    ["gate True", gated("True"), false, false],
    ["gate Unknown", gated("Unknown"), false, false],
    ["no gate", { status: { conditions: [{ type: "Ready", status: "False" }] } }, false, false],
    ["no status", { metadata: {} }, false, false],
    ["gate True, state annotation present", { ...gated("True"), metadata: { annotations: { [INPLACE_STATE_ANNOTATION]: "{}" } } }, false, true],
  ])("%s: isGateFalse %s, isInPlaceUpdating %s", (_, pod, gateFalse, updating) => {
    expect(isGateFalse(pod as Pod)).toBe(gateFalse);
    expect(isInPlaceUpdating(pod as Pod)).toBe(updating);
  });

  it("gateCondition returns the InPlaceUpdateReady condition, undefined without status", () => {
    expect(gateCondition(gated("False"))).toEqual({ type: "InPlaceUpdateReady", status: "False" });
    expect(gateCondition({} as Pod)).toBeUndefined();
  });

  it.each([
    ["2026-11-21T12:00:00.999Z", "2026-11-21T12:00:00Z"],
    ["2026-11-21T12:00:59.001Z", "2026-11-21T12:00:59Z"],
    ["2026-11-21T12:00:00.000Z", "2026-11-21T12:00:00Z"],
    ["1969-12-31T23:59:59.500Z", "1969-12-31T23:59:59Z"],
  ])("wholeSeconds floors %s to %s", (at, want) => {
    expect(wholeSeconds(new Date(at))).toBe(want);
  });

  it.each<[string, unknown, number]>([
    ["an RFC 3339 string", "2026-11-21T12:00:00Z", Date.UTC(2026, 10, 21, 12)],
    ["a Date", new Date("2026-11-21T12:00:00.250Z"), Date.UTC(2026, 10, 21, 12, 0, 0, 250)],
    ["absent", undefined, NaN],
    ["a number", 5, NaN],
    ["an unparsable string", "yesterday", NaN],
  ])("timeMs of %s", (_, v, want) => {
    expect(timeMs(v)).toBe(want);
  });
});
