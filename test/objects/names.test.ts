/** The metadata readers: what the planner writes into actions for objects read whole or in part. */
import { describe, expect, it } from "vitest";
import { nameOf, resourceVersionOf, uidOf } from "../../src/objects/names.ts";

describe("nameOf, uidOf, resourceVersionOf", () => {
  it.each<[string, { metadata?: { name?: string; uid?: string; resourceVersion?: string } }, [string, string, string]]>([
    ["an object read from the apiserver", { metadata: { name: "web-0", uid: "u0", resourceVersion: "7" } }, ["web-0", "u0", "7"]],
    ["an object not created yet", { metadata: { name: "web-0" } }, ["web-0", "", ""]],
    ["no metadata", {}, ["", "", ""]],
  ])("%s", (_, o, want) => {
    expect([nameOf(o), uidOf(o), resourceVersionOf(o)]).toEqual(want);
  });
});
