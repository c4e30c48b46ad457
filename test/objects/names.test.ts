// nameOf, namespaceOf, uidOf: an object's metadata field, "" when the object (not created yet) has none.
import { describe, expect, it } from "vitest";
import { namespaceOf, nameOf, uidOf } from "../../src/objects/names.ts";

describe("nameOf, namespaceOf, uidOf", () => {
  it.each([
    ["an object read from the apiserver", { metadata: { name: "web-0", namespace: "prod", uid: "u-1" } }, ["web-0", "prod", "u-1"]],
    ["an object without those fields", { metadata: {} }, ["", "", ""]],
    ["an object without metadata", {}, ["", "", ""]],
  ])("%s", (_, o, want) => {
    expect([nameOf(o), namespaceOf(o), uidOf(o)]).toEqual(want);
  });
});
