/** Which Ordinal StatefulSet a pod belongs to, on any JSON (src/admission/membership.ts). */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { controllerRefOf, isOrdinalSetRef, ordinalSetOf } from "../../src/admission/membership.ts";

const ours = { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "u1", controller: true };
const upstream = { apiVersion: "apps/v1", kind: "StatefulSet", name: "db", uid: "u2", controller: true };
const withMeta = (metadata: unknown): Pod => ({ metadata }) as Pod;
const label = (v: unknown) => ({ "ordinal.dev/statefulset": v });

describe("isOrdinalSetRef", () => {
  it.each<[string, { apiVersion?: string; kind?: string }, boolean]>([
    ["apps.ordinal.dev/v1 StatefulSet", { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet" }, true],
    ["any version of the group", { apiVersion: "apps.ordinal.dev/v2beta1", kind: "StatefulSet" }, true],
    ["apps/v1 StatefulSet (upstream's)", { apiVersion: "apps/v1", kind: "StatefulSet" }, false],
    ["our group, another kind", { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList" }, false],
    ["a group that only starts like ours", { apiVersion: "apps.ordinal.dev.evil/v1", kind: "StatefulSet" }, false],
    ["no apiVersion", { kind: "StatefulSet" }, false],
    ["no kind", { apiVersion: "apps.ordinal.dev/v1" }, false],
  ])("%s", (_, ref, want) => {
    expect(isOrdinalSetRef(ref)).toBe(want);
  });
});

describe("controllerRefOf", () => {
  it.each<[string, unknown, unknown]>([
    ["the one controller reference", withMeta({ ownerReferences: [{ ...ours, controller: false }, upstream] }), upstream],
    ["entries that are not objects are skipped", withMeta({ ownerReferences: [null, "x", 3, [ours], ours] }), ours],
    ["no controller: true (false or absent)", withMeta({ ownerReferences: [{ ...ours, controller: false }, { ...upstream, controller: undefined }] }), undefined],
    ["controller must be the boolean true", withMeta({ ownerReferences: [{ ...ours, controller: "true" }] }), undefined],
    ["ownerReferences not an array", withMeta({ ownerReferences: { 0: ours } }), undefined],
    ["no metadata", {}, undefined],
    ["not an object", "pod", undefined],
    ["undefined", undefined, undefined],
  ])("%s", (_, pod, want) => {
    expect(controllerRefOf(pod as Pod)).toEqual(want);
  });
});

describe("ordinalSetOf", () => {
  it.each<[string, unknown, string | undefined]>([
    ["our controller reference", withMeta({ ownerReferences: [ours] }), "web"],
    ["our controller reference wins over the label", withMeta({ ownerReferences: [ours], labels: label("other") }), "web"],
    ["another controller owns it, whatever the label says", withMeta({ ownerReferences: [upstream], labels: label("web") }), undefined],
    ["our reference with a name that is not a string", withMeta({ ownerReferences: [{ ...ours, name: 7 }] }), undefined],
    ["no controller: the label", withMeta({ ownerReferences: [{ ...upstream, controller: false }], labels: label("web") }), "web"],
    ["the label alone", withMeta({ labels: label("web") }), "web"],
    ["an empty label", withMeta({ labels: label("") }), undefined],
    ["a label that is not a string", withMeta({ labels: label(7) }), undefined],
    ["labels not an object", withMeta({ labels: ["web"] }), undefined],
    ["no metadata", {}, undefined],
    ["null", null, undefined],
    ["undefined", undefined, undefined],
    ["a string", "web", undefined],
  ])("%s", (_, pod, want) => {
    expect(ordinalSetOf(pod as Pod)).toBe(want);
  });
});
