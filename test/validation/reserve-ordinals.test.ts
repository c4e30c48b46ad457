// spec.reserveOrdinals at apply time (validateStatefulSet, apps.ordinal.dev): format, duplicates,
// overlaps, bounds, the hostname of the highest replica, and the warning for entries below start.
import { describe, expect, it } from "vitest";
import { MAX_RESERVE_ORDINALS } from "../../src/api/statefulset.ts";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { type Raw, messages, validSet, with_ } from "./helpers.ts";

const reserving = (list: unknown, edit: (s: Raw) => void = () => {}) =>
  validateStatefulSet(
    with_(validSet, (s) => {
      s.spec.reserveOrdinals = list;
      edit(s);
    }),
    undefined,
    { group: "apps.ordinal.dev" },
  );
const FORMAT = 'must be an ordinal (an integer ≥ 0) or a range "a-b" of ordinals with a ≤ b, each at most 2147483647';

describe("spec.reserveOrdinals", () => {
  it.each([
    ["ints", [1, 3]],
    ["a range and ints", [0, "2-4", 9]],
    ["adjacent ranges", ["1-2", "3-4"]],
    ["empty", []],
  ])("accepts %s", (_, list) => expect(reserving(list)).toEqual({ errors: [], warnings: [] }));

  it.each([
    ["a negative ordinal", [-1], [`spec.reserveOrdinals[0]: Invalid value: -1: ${FORMAT}`]],
    ["a backwards range", ["5-2"], [`spec.reserveOrdinals[0]: Invalid value: "5-2": ${FORMAT}`]],
    ["a string that is not a range", ["3"], [`spec.reserveOrdinals[0]: Invalid value: "3": ${FORMAT}`]],
    ["a range beyond int32", ["1-2147483648"], [`spec.reserveOrdinals[0]: Invalid value: "1-2147483648": ${FORMAT}`]],
    ["a duplicate int", [1, 2, 1], ["spec.reserveOrdinals[2]: Duplicate value: 1"]],
    ["a duplicate range", ["1-3", "1-3"], [`spec.reserveOrdinals[1]: Duplicate value: "1-3"`]],
    ["an int inside a range", ["1-3", 2], [`spec.reserveOrdinals[1]: Invalid value: 2: overlaps spec.reserveOrdinals[0] ("1-3")`]],
    ["a range over an earlier int", [2, "1-3"], [`spec.reserveOrdinals[1]: Invalid value: "1-3": overlaps spec.reserveOrdinals[0] (2)`]],
    ["overlapping ranges", ["1-5", "10-12", "4-6"], [`spec.reserveOrdinals[2]: Invalid value: "4-6": overlaps spec.reserveOrdinals[0] ("1-5")`]],
    ["a range inside a wide one, after another", ["0-100", 50, "60-70"], [
      `spec.reserveOrdinals[1]: Invalid value: 50: overlaps spec.reserveOrdinals[0] ("0-100")`,
      `spec.reserveOrdinals[2]: Invalid value: "60-70": overlaps spec.reserveOrdinals[0] ("0-100")`,
    ]],
    ["too many entries", Array.from({ length: MAX_RESERVE_ORDINALS + 1 }, (_, i) => i), [`spec.reserveOrdinals: Too many: ${MAX_RESERVE_ORDINALS + 1}: must have at most ${MAX_RESERVE_ORDINALS} items`]],
  ])("refuses %s", (_, list, want) => expect(messages(reserving(list).errors)).toEqual(want));

  it("refuses a list that pushes the highest replica beyond 2147483647", () => {
    expect(messages(reserving(["0-2147483646"], (s) => (s.spec.replicas = 2)).errors)).toEqual([
      `spec.reserveOrdinals: Invalid value: "1 entries": leave the highest replica at ordinal 2147483648, beyond 2147483647: reserve fewer ordinals or lower spec.replicas or spec.ordinals.start`,
    ]);
  });

  it("checks the hostname of the highest replica, reserved ordinals skipped", () => {
    const name61 = "a".repeat(61);
    // replicas 3 → ordinals 0, 1, 2; reserving 0-7 moves them to 8, 9, 10: "-10" does not fit.
    expect(reserving([], (s) => (s.metadata.name = name61)).errors).toEqual([]);
    expect(messages(reserving(["0-7"], (s) => (s.metadata.name = name61)).errors)).toEqual([
      `metadata.name: Invalid value: "${name61}": must be no more than 60 characters to leave room for the pod ordinal: the hostname "${name61}-10" is longer than 63 characters (would fail at pod creation)`,
    ]);
  });

  it("warns about entries below ordinals.start, which reserve nothing", () => {
    expect(reserving([1, "2-3", 7], (s) => (s.spec.ordinals = { start: 5 })).warnings).toEqual(['spec.reserveOrdinals 1, "2-3" below spec.ordinals.start (5) reserve nothing']);
  });
});
