// ObjectMeta validation on create and update.
import { describe, expect, it } from "vitest";
import { fieldPath, validateAnnotations, validateObjectMeta, validateObjectMetaUpdate } from "../../src/validation/index.ts";
import { messages } from "./helpers.ts";

const p = fieldPath("metadata");

describe("validateObjectMeta", () => {
  it("checks name, generateName, namespace, labels, annotations, owners and finalizers", () => {
    expect(validateObjectMeta({ name: "web", namespace: "default", labels: { a: "b" } }, p)).toEqual([]);
    expect(validateObjectMeta({ generateName: "web-" }, p)).toEqual([]);
    expect(messages(validateObjectMeta({ name: "web", namespace: "Default" }, p))[0]).toMatch(/^metadata\.namespace: Invalid value: "Default": a lowercase RFC 1123 label/);
    expect(messages(validateObjectMeta({ name: "web", generation: -1 }, p))).toEqual(["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]);
    expect(messages(validateObjectMeta({ name: "web", ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "w" }] }, p))).toEqual([
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    expect(messages(validateObjectMeta({ name: "web", finalizers: ["orphan", "foregroundDeletion"] }, p))).toEqual([
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
    expect(messages(validateObjectMeta("x", p))).toEqual([
      'metadata: Invalid value: "string": metadata in body must be of type object: "string"',
      "metadata.name: Required value: name or generateName is required",
    ]);
  });
});

describe("validateObjectMetaUpdate", () => {
  it("keeps name, namespace and uid", () => {
    const old = { name: "web", namespace: "default", uid: "u1" };
    expect(validateObjectMetaUpdate({ name: "web", namespace: "default" }, old, p)).toEqual([]);
    expect(messages(validateObjectMetaUpdate({ name: "web", namespace: "other", uid: "u2" }, old, p))).toEqual([
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });
});

describe("validateAnnotations", () => {
  it("limits the total size to 256 KiB", () => {
    expect(messages(validateAnnotations({ a: "x".repeat(256 * 1024) }, p.child("annotations")))).toEqual(["metadata.annotations: Too long: may not be more than 262144 bytes"]);
    expect(validateAnnotations({ "Example.com/Key": "v" }, p.child("annotations"))).toEqual([]);
  });
});
