/** src/objects/names.ts: pod names and ordinals (upstream's statefulPodRegex), and the metadata readers the planner writes into actions. */
import { describe, expect, it } from "vitest";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getParentNameAndOrdinal, isMemberOf, nameOf, resourceVersionOf, uidOf } from "../../src/objects/names.ts";

describe("nameOf, uidOf, resourceVersionOf", () => {
  it.each<[string, { metadata?: { name?: string; uid?: string; resourceVersion?: string } }, [string, string, string]]>([
    ["an object read from the apiserver", { metadata: { name: "web-0", uid: "u0", resourceVersion: "7" } }, ["web-0", "u0", "7"]],
    ["an object not created yet", { metadata: { name: "web-0" } }, ["web-0", "", ""]],
    ["no metadata", {}, ["", "", ""]],
  ])("%s", (_, o, want) => {
    expect([nameOf(o), uidOf(o), resourceVersionOf(o)]).toEqual(want);
  });
});

describe("getParentNameAndOrdinal and isMemberOf", () => {
  const set = { metadata: { name: "web" } } as StatefulSet;
  it.each<[string, { parent: string; ordinal: number } | undefined, boolean]>([
    ["web-0", { parent: "web", ordinal: 0 }, true],
    ["web-12", { parent: "web", ordinal: 12 }, true],
    ["my-web-3", { parent: "my-web", ordinal: 3 }, false],
    ["web-0x", undefined, false],
    ["web", undefined, false],
    ["web--1", { parent: "web-", ordinal: 1 }, false],
    ["web-99999999999999999999", undefined, false],
  ])("%s", (name, parsed, member) => {
    expect(getParentNameAndOrdinal(name)).toEqual(parsed);
    expect(isMemberOf(set, name)).toBe(member);
  });
});
