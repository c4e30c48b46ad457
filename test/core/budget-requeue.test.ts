/** updateStrategyOf(...).maxUnavailable (src/core/update-strategy.ts) and earlierMs (src/core/requeue.ts) as tables. */
import { describe, expect, it } from "vitest";
import { earlierMs } from "../../src/core/requeue.ts";
import { updateStrategyOf } from "../../src/core/update-strategy.ts";
import { newSet } from "../support/fixtures.ts";

describe("updateStrategyOf: maxUnavailable", () => {
  const withMu = (maxUnavailable: unknown, replicas = 4) =>
    newSet({ replicas, spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: maxUnavailable === undefined ? {} : { maxUnavailable } } } });
  it.each<[string, unknown, number, number]>([
    ["unset: 1", undefined, 4, 1],
    ["an int as is", 3, 4, 3],
    ["never below 1", 0, 4, 1],
    ["a percentage of replicas, rounded up", "30%", 4, 2],
    ["100%", "100%", 4, 4],
    ["0%: still 1", "0%", 4, 1],
    ["a numeric string (not a percentage)", "2", 4, 2],
    ["a string that is neither: 1", "two", 4, 1],
    ["text before the percentage: not one", "x50%", 4, 1],
    ["text after the percentage: not one", "50%x", 4, 1],
  ])("%s", (_, mu, replicas, want) => {
    expect(updateStrategyOf(withMu(mu, replicas)).maxUnavailable).toBe(want);
  });
  it("no rollingUpdate at all: 1", () => {
    expect(updateStrategyOf(newSet({ spec: { updateStrategy: { type: "OnDelete" } } })).maxUnavailable).toBe(1);
  });
});

describe("earlierMs", () => {
  it.each<[number | undefined, number | undefined, number | undefined]>([
    [undefined, undefined, undefined],
    [undefined, 5, 5],
    [5, undefined, 5],
    [3, 7, 3],
    [7, 3, 3],
    [0, 4, 0],
  ])("earlierMs(%s, %s) = %s", (a, b, want) => {
    expect(earlierMs(a, b)).toBe(want);
  });
});
