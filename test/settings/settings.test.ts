/** Settings from the environment are parsed as strictly as flags, with the variable's name in the error. */
import { describe, expect, it } from "vitest";
import { jsonLogger } from "../../src/log/log.ts";
import { settingsFrom } from "../../src/runtime-config.ts";
import { authConfigFrom } from "../../src/auth/settings.ts";
import { checkKubeToken, setting, SettingError } from "../../src/settings.ts";

describe("setting", () => {
  it.each([
    ["RECONCILE_BUDGET_MS", "45s", /RECONCILE_BUDGET_MS must be a whole number of milliseconds from 1000 to 3600000, got "45s"/],
    ["RECONCILE_BUDGET_MS", "0", /RECONCILE_BUDGET_MS must be/],
    ["RECONCILE_BUDGET_MS", "1e5", /RECONCILE_BUDGET_MS must be/],
    ["MAX_SUBREQUESTS", "many", /MAX_SUBREQUESTS must be a whole number from 30 to 10000000, got "many"/],
    ["MAX_SUBREQUESTS", "-5", /MAX_SUBREQUESTS must be/],
    ["LOG_LEVEL", "verbose", /LOG_LEVEL must be one of debug, info, warn, error, got "verbose"/],
    ["LOG_LEVEL", "INFO", /LOG_LEVEL must be one of/],
    ["PORT", "70000", /PORT must be a whole number from 1 to 65535/],
    ["VALIDATE_APPS_V1_STATEFULSETS", "ture", /VALIDATE_APPS_V1_STATEFULSETS must be true or false, got "ture"/],
    ["WEBHOOK_MTLS", "on", /WEBHOOK_MTLS must be true or false/],
  ] as const)("refuses %s=%s", (name, raw, want) => {
    expect(() => setting({ [name]: raw }, name)).toThrow(SettingError);
    expect(() => setting({ [name]: raw }, name)).toThrow(want);
  });

  it.each([
    ["RECONCILE_BUDGET_MS", "45000", 45_000],
    ["RECONCILE_BUDGET_MS", undefined, 45_000],
    ["RECONCILE_BUDGET_MS", "", 45_000],
    ["MAX_SUBREQUESTS", "50", 50],
    ["MAX_SUBREQUESTS", undefined, 900],
    ["LOG_LEVEL", "debug", "debug"],
    ["LOG_LEVEL", undefined, undefined],
    ["VALIDATE_APPS_V1_STATEFULSETS", "yes", true],
    ["VALIDATE_APPS_V1_STATEFULSETS", "false", false],
    ["KUBE_ANONYMOUS", "true", true],
  ] as const)("reads %s=%s", (name, raw, want) => {
    expect(setting({ [name]: raw }, name)).toBe(want);
  });
});

describe("settingsFrom", () => {
  it("refuses a bad value instead of turning the budget off", () => {
    expect(() => settingsFrom({ RECONCILE_BUDGET_MS: "45s" })).toThrow(/RECONCILE_BUDGET_MS/);
    expect(() => settingsFrom({ MAX_SUBREQUESTS: "lots" })).toThrow(/MAX_SUBREQUESTS/);
    expect(settingsFrom({ RECONCILE_BUDGET_MS: "20000", MAX_SUBREQUESTS: "50", LOG_LEVEL: "debug" })).toMatchObject({ budgetMs: 20_000, maxSubrequests: 50, logLevel: "debug" });
  });

  it("refuses a WEBHOOK_MTLS typo instead of reading it as off", () => {
    expect(() => authConfigFrom({ WEBHOOK_MTLS: "yes please" })).toThrow(/WEBHOOK_MTLS must be true or false/);
  });
});

describe("checkKubeToken", () => {
  it("refuses KUBE_API_URL without KUBE_TOKEN unless KUBE_ANONYMOUS=true", () => {
    expect(() => checkKubeToken({ KUBE_API_URL: "https://k" })).toThrow(/KUBE_API_URL is set without KUBE_TOKEN.*KUBE_ANONYMOUS=true/);
    expect(() => checkKubeToken({ KUBE_API_URL: "https://k", KUBE_ANONYMOUS: "true" })).not.toThrow();
    expect(() => checkKubeToken({ KUBE_API_URL: "https://k", KUBE_TOKEN: "t" })).not.toThrow();
    expect(() => checkKubeToken({})).not.toThrow();
  });
});

describe("LOG_LEVEL=debug", () => {
  it("logs debug lines and everything above (no level drops errors)", () => {
    const lines: string[] = [];
    const log = jsonLogger((l) => lines.push(l), {}, setting({ LOG_LEVEL: "debug" }, "LOG_LEVEL"));
    log.debug?.("lease renewed");
    log.info("set reconciled");
    log.error("boom");
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(["debug", "info", "error"]);
  });
});
