/**
 * src/core is the pure planner and src/objects the builders it shares: they may import only
 * schemas, validation helpers, objects and themselves, and may not read the clock, randomness or
 * the network. A static check, so it fails on the commit that breaks the rule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const files = ["src/core", "src/objects"].flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f)));
const ALLOWED = [/^\.\/[\w-]+\.ts$/, /^\.\.\/(api|objects|validation)\/[\w-]+\.ts$/];
const FORBIDDEN = [/Date\.now\(/, /new Date\(\)/, /Math\.random\(/, /\bfetch\(/, /\bsetTimeout\(/, /\bprocess\./, /\bcrypto\./];

describe("src/core and src/objects purity", () => {
  it.each(files)("%s imports only pure modules and reads no clock", (f) => {
    const text = readFileSync(f, "utf8");
    const imports = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
    for (const i of imports) expect(ALLOWED.some((re) => re.test(i)), `${f} imports ${i}`).toBe(true);
    for (const re of FORBIDDEN) expect(re.test(text), `${f} matches ${re}`).toBe(false);
  });

  it("the validation modules core uses are pure too", () => {
    for (const f of readdirSync("src/validation").filter((x) => x.endsWith(".ts"))) {
      const text = readFileSync(join("src/validation", f), "utf8");
      for (const re of FORBIDDEN) expect(re.test(text), `validation/${f} matches ${re}`).toBe(false);
      for (const m of text.matchAll(/from "([^"]+)"/g)) expect(m[1].startsWith("node:"), `validation/${f} imports ${m[1]}`).toBe(false);
    }
  });
});
