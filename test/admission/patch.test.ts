/** encodePatch / decodePatch (src/admission/patch.ts): base64 of the patch's UTF-8 JSON, whatever the characters. */
import { describe, expect, it } from "vitest";
import { decodePatch, encodePatch, type PatchOperation } from "../../src/admission/patch.ts";

const op = (value: string): PatchOperation[] => [{ op: "add", path: "/metadata/labels/x", value }];

describe("encodePatch", () => {
  it.each<[string, string]>([
    ["ASCII", "web-1"],
    ["Latin-1 (é)", "café"],
    ["beyond Latin-1 (日本)", "日本"],
    ["astral (😀)", "😀"],
    ["a control character", "a\u0001b"],
    ["more than one 32 KiB chunk", "é".repeat(40_000)],
  ])("%s: the base64 of the UTF-8 JSON, and back", (_, value) => {
    const ops = op(value);
    const b64 = encodePatch(ops);
    expect(b64).toBe(Buffer.from(JSON.stringify(ops), "utf8").toString("base64"));
    expect(decodePatch(b64)).toEqual(ops);
  });
});
