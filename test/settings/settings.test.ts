/** Settings from the environment are parsed as strictly as flags, with the variable's name in the error. */
import { describe, expect, it } from "vitest";
import { jsonLogger } from "../../src/log/log.ts";
import { settingsFrom } from "../../src/runtime-config.ts";
import { authConfigFrom } from "../../src/auth/settings.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkKubeToken, setting, SettingError, SETTINGS } from "../../src/settings.ts";

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
    // yes/no settings take exactly true or false, as flags do (1/0 and yes/no were taken before).
    ["KUBE_ANONYMOUS", "yes", /KUBE_ANONYMOUS must be true or false, got "yes"/],
    ["VALIDATE_APPS_V1_STATEFULSETS", "1", /VALIDATE_APPS_V1_STATEFULSETS must be true or false/],
    ["WEBHOOK_AUTH", "nope", /WEBHOOK_AUTH must be one of jwt, mtls, none, got "nope"/],
    ["WEBHOOK_SERVICE", "Bad", /WEBHOOK_SERVICE must be NAMESPACE\/NAME of the webhook Service, got "Bad"/],
    ["WEBHOOK_SERVICE", "a/b/c", /WEBHOOK_SERVICE must be/],
    ["WEBHOOK_URL", "http://ordinal.example", /WEBHOOK_URL must be an https:\/\/ URL/],
    ["KUBE_API_URL", "kube:6443", /KUBE_API_URL must be an http:\/\/ or https:\/\/ URL/],
    ["LEASE_NAMESPACE", "Ordinal_System", /LEASE_NAMESPACE must be a namespace name/],
    ["POD_IP", "pod-a", /POD_IP must be an IP address/],
    ["POD_IP", "10.0.0.256", /POD_IP must be an IP address/],
    ["POD_NAME", "Ordinal_A", /POD_NAME must be a pod name/],
    ["KUBERNETES_SERVICE_PORT", "https", /KUBERNETES_SERVICE_PORT must be a whole number from 1 to 65535/],
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
    ["VALIDATE_APPS_V1_STATEFULSETS", "true", true],
    ["VALIDATE_APPS_V1_STATEFULSETS", "false", false],
    ["KUBE_ANONYMOUS", "true", true],
    ["LEASE_NAMESPACE", undefined, "ordinal-system"],
    ["HOST", undefined, "127.0.0.1"],
    ["POD_IP", "10.0.0.7", "10.0.0.7"],
    ["POD_IP", "fd00::7", "fd00::7"],
    ["POD_NAME", "ordinal-7d9f-x2k4q", "ordinal-7d9f-x2k4q"],
    ["WEBHOOK_URL", "https://ordinal.example.workers.dev", "https://ordinal.example.workers.dev"],
  ] as const)("reads %s=%s", (name, raw, want) => {
    expect(setting({ [name]: raw }, name)).toBe(want);
  });

  it("reads lists and namespace/name pairs", () => {
    expect(setting({ WEBHOOK_MTLS_CLIENT_NAMES: " kube-apiserver, ,front-proxy " }, "WEBHOOK_MTLS_CLIENT_NAMES")).toEqual(["kube-apiserver", "front-proxy"]);
    expect(setting({}, "WEBHOOK_CERT_HOSTS")).toEqual([]);
    expect(setting({ WEBHOOK_SERVICE: "ordinal-system/ordinal-webhooks" }, "WEBHOOK_SERVICE")).toEqual({ namespace: "ordinal-system", name: "ordinal-webhooks" });
  });

  it("never prints a secret it refuses", () => {
    expect(SETTINGS.KUBE_TOKEN.secret).toBe(true);
  });
});

describe("the source", () => {
  // Every variable is read through setting() (src/settings.ts), so the table (and docs/settings.md,
  // generated from it) lists every one; the Worker's bindings (SHARDS, KUBE_API) are not settings.
  it("reads no environment variable but through src/settings.ts", () => {
    const src = fileURLToPath(new URL("../../src", import.meta.url));
    const reads = readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && f !== "settings.ts")
      .flatMap((f) => [...readFileSync(join(src, f), "utf8").matchAll(/\b(?:env|vars|process\.env)\s*(?:\.|\[["'`])([A-Z][A-Z0-9_]+)/g)].map((m) => `${f}: ${m[1]}`))
      .filter((r) => !/: (SHARDS|KUBE_API)$/.test(r));
    expect(reads).toEqual([]);
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
