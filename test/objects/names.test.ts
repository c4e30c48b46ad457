// The name helpers: an object's metadata fields ("" when unset), and pod names `<set>-<ordinal>` split
// as upstream's statefulPodRegex does.
import { describe, expect, it } from "vitest";
import { getParentNameAndOrdinal, isMemberOf, namespaceOf, nameOf, resourceVersionOf, uidOf } from "../../src/objects/names.ts";
import { newSet } from "../support/fixtures.ts";

type Meta = { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } };

describe("nameOf, namespaceOf, uidOf, resourceVersionOf", () => {
  it.each<[string, Meta, string[]]>([
    ["an object read from the apiserver", { metadata: { name: "web-0", namespace: "prod", uid: "u-1", resourceVersion: "7" } }, ["web-0", "prod", "u-1", "7"]],
    ["an object not created yet", { metadata: { name: "web-0" } }, ["web-0", "", "", ""]],
    ["an object without those fields", { metadata: {} }, ["", "", "", ""]],
    ["an object without metadata", {}, ["", "", "", ""]],
  ])("%s", (_, o, want) => {
    expect([nameOf(o), namespaceOf(o), uidOf(o), resourceVersionOf(o)]).toEqual(want);
  });
});

describe("getParentNameAndOrdinal", () => {
  it.each([
    ["web-0", { parent: "web", ordinal: 0 }],
    ["my-db-12", { parent: "my-db", ordinal: 12 }],
    ["web-0x", undefined],
    ["web-", undefined],
    ["web", undefined],
    ["web--1", { parent: "web-", ordinal: 1 }],
    // Past Number.MAX_SAFE_INTEGER an ordinal is no longer exact: not a member name.
    ["web-9007199254740993", undefined],
    ["web-9007199254740991", { parent: "web", ordinal: 9007199254740991 }],
  ])("%s", (name, want) => {
    expect(getParentNameAndOrdinal(name)).toEqual(want);
  });
});

describe("isMemberOf", () => {
  const web = newSet();
  it.each([
    ["web-3", true],
    ["db-3", false],
    ["web", false],
    ["webby-3", false],
    ["my-web-3", false],
    ["web--1", false],
  ])("%s", (name, want) => {
    expect(isMemberOf(web, name)).toBe(want);
  });
});
