/** The audit-log reader: what a chaos run (apiserver restarted mid-write) leaves behind. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAuditLog } from "./audit.ts";

const line = (name: string) =>
  JSON.stringify({ stage: "ResponseComplete", requestReceivedTimestamp: "2026-12-05T01:00:00Z", user: { username: "u" }, userAgent: "ordinal/node-1", verb: "patch", objectRef: { resource: "pods", namespace: "ns", name } });

describe("readAuditLog", () => {
  it("skips a line a killed apiserver left cut off, and reads the lines around it", () => {
    const file = join(mkdtempSync(join(tmpdir(), "audit-")), "audit.log");
    writeFileSync(file, `${line("a")}\n${line("b").slice(0, 40)}${line("c").slice(25)}\n${line("d")}\n`);
    expect(readAuditLog(file).map((e) => e.name)).toEqual(["a", "d"]);
  });
});
