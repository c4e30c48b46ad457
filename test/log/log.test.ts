import { describe, expect, it } from "vitest";
import { errorFields, jsonLogger } from "../../src/log/log.ts";

describe("errorFields", () => {
  it("gives an Error's message, name and stack, and anything else as a string", () => {
    const e = new TypeError("bad input");
    expect(errorFields(e)).toEqual({ error: "bad input", errorName: "TypeError", stack: e.stack });
    expect(errorFields("just text")).toEqual({ error: "just text" });
    expect(errorFields(42)).toEqual({ error: "42" });
  });
});

describe("jsonLogger", () => {
  it("writes one JSON object per line with level, msg, base and fields, dropping levels below minLevel", () => {
    const lines: string[] = [];
    const log = jsonLogger((l) => lines.push(l), { component: "test" }, "warn");
    log.info("dropped");
    log.warn("kept", { set: "web" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: "warn", msg: "kept", component: "test", set: "web" });
  });
});
