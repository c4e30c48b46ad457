/** `npm run gen` parses its flags with the CLI's strict parser: a typo is an error, not a silent regeneration. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const gen = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "src/cli/gen.ts", ...args], { encoding: "utf8" });

describe("npm run gen", () => {
  it("refuses an unknown flag with exit 2 and the closest one, writing nothing", () => {
    const r = gen("--chek");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/npm run gen: unknown option --chek; did you mean --check\?/);
    expect(r.stdout).toBe("");
  });

  it("--help prints its usage", () => {
    const r = gen("--help");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run gen \[--check\]/);
  });
});
