import { describe, expect, it } from "vitest";
import { workerReconcileSettingsFrom } from "../../src/worker/settings.ts";

describe("workerReconcileSettingsFrom", () => {
  it("has the documented defaults", () => {
    expect(workerReconcileSettingsFrom({})).toEqual({ shards: 1, intervalMs: 10_000, maxSubrequests: 900, budgetMs: 45_000 });
    expect(workerReconcileSettingsFrom({ RECONCILE_SHARDS: "4", RECONCILE_INTERVAL_MS: "60000", MAX_SUBREQUESTS: "50" })).toMatchObject({ shards: 4, intervalMs: 60_000, maxSubrequests: 50 });
  });

  it.each([
    ["RECONCILE_SHARDS", "0", /RECONCILE_SHARDS must be a whole number from 1 to 256, got "0"/],
    ["RECONCILE_SHARDS", "two", /RECONCILE_SHARDS must be/],
    ["RECONCILE_SHARDS", "257", /RECONCILE_SHARDS must be/],
    ["RECONCILE_SHARDS", "1.5", /RECONCILE_SHARDS must be/],
    ["RECONCILE_INTERVAL_MS", "1m", /RECONCILE_INTERVAL_MS must be a whole number of milliseconds/],
    ["MAX_SUBREQUESTS", "NaN", /MAX_SUBREQUESTS must be/],
  ])("refuses %s=%s naming the variable", (name, value, message) => {
    expect(() => workerReconcileSettingsFrom({ [name]: value })).toThrow(message);
  });
});
