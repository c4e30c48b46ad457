// .dev.vars.example is what README says to copy for `npm run dev`: copied as is, every setting
// must parse and no placeholder cluster may be configured (a placeholder KUBE_API_URL made every
// /__scheduled tick fail after 20 s).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../../src/runtime-config.ts";
import { checkSettings } from "../../src/settings.ts";
import { clientFor } from "../../src/worker/env.ts";
import { workerReconcileSettingsFrom } from "../../src/worker/settings.ts";

/** exampleVars returns the NAME=value lines of .dev.vars.example (comments and blank lines skipped). */
function exampleVars(): Record<string, string> {
  const lines = readFileSync(new URL("../../.dev.vars.example", import.meta.url), "utf8").split("\n");
  return Object.fromEntries(lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

describe(".dev.vars.example", () => {
  it("copied as is, configures no cluster and every setting parses", () => {
    const vars = exampleVars();
    expect(Object.keys(vars).length).toBeGreaterThan(5);
    expect(clientFor(vars)).toBeUndefined();
    expect(() => checkSettings(vars, "Worker")).not.toThrow();
    expect(() => settingsFrom(vars)).not.toThrow();
    expect(() => workerReconcileSettingsFrom(vars)).not.toThrow();
  });
});
