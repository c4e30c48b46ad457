import { describe, expect, it } from "vitest";
import { authConfigFrom, isAuthConfigured } from "../../src/auth/settings.ts";

describe("authConfigFrom", () => {
  it.each([
    ["nothing set: no caller accepted", {}, { jwt: undefined, mtlsClientNames: undefined }, false],
    ["a JWKS (with its claims)", { WEBHOOK_JWKS: "{}", WEBHOOK_AUDIENCE: "a" }, { jwt: { jwks: "{}", publicKeyPem: undefined, audience: "a" } }, true],
    ["a PEM key, when no JWKS", { WEBHOOK_PUBLIC_KEY: "PEM" }, { jwt: { jwks: undefined, publicKeyPem: "PEM" } }, true],
    ["the JWKS wins over a PEM key", { WEBHOOK_JWKS: "{}", WEBHOOK_PUBLIC_KEY: "PEM" }, { jwt: { jwks: "{}", publicKeyPem: undefined } }, true],
    ["mTLS with the names trimmed", { WEBHOOK_MTLS: "true", WEBHOOK_MTLS_CLIENT_NAMES: " apiserver , ,kube " }, { mtlsClientNames: ["apiserver", "kube"] }, true],
    ["mTLS names without WEBHOOK_MTLS are not mTLS", { WEBHOOK_MTLS_CLIENT_NAMES: "apiserver" }, { mtlsClientNames: undefined }, false],
    ["WEBHOOK_AUTH=none", { WEBHOOK_AUTH: "none" }, { unauthenticated: true }, true],
  ])("%s", (_name, vars, want, configured) => {
    const a = authConfigFrom(vars as Record<string, string>);
    expect(a).toMatchObject(want);
    expect(isAuthConfigured(a)).toBe(configured);
  });

  it("refuses a WEBHOOK_AUTH that names no mode", () => {
    expect(() => authConfigFrom({ WEBHOOK_AUTH: "jtw" })).toThrow(/WEBHOOK_AUTH must be one of jwt, mtls, none, got "jtw"/);
  });
});
