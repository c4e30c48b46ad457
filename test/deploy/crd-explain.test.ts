/** The CRDs as `kubectl explain` and `kubectl get` see them: every field described, Kruise-like columns, scale subresource. */
import { describe, expect, it } from "vitest";
import { imageListCrd, statefulSetCrd } from "../../src/api/crd.ts";

type Json = Record<string, unknown>;
const versionOf = (crd: Json) => ((crd.spec as Json).versions as Json[])[0];
const schemaOf = (crd: Json) => ((versionOf(crd).schema as Json).openAPIV3Schema as Json);

/** undescribed returns the paths of schema properties (and array items) without a description. */
function undescribed(node: Json, path: string, out: string[] = []): string[] {
  const props = node.properties as Record<string, Json> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) {
    const p = `${path}.${k}`;
    if (k !== "metadata" && !v.description) out.push(p);
    undescribed(v, p, out);
  }
  if (node.items) undescribed(node.items as Json, `${path}[]`, out);
  if (node.additionalProperties && typeof node.additionalProperties === "object") undescribed(node.additionalProperties as Json, `${path}{}`, out);
  return out;
}

describe("CRD schemas for kubectl explain", () => {
  it.each([
    ["StatefulSet", statefulSetCrd()],
    ["ImageList", imageListCrd()],
  ])("%s: every field has a description", (_kind, crd) => {
    const schema = schemaOf(crd);
    expect(schema.description).toBeTruthy();
    expect(undescribed(schema, "")).toEqual([]);
  });
});

describe("StatefulSet CRD for kubectl get and scale", () => {
  const v = versionOf(statefulSetCrd());
  it("has Kruise's columns; images and the roles (spec.roles) only with -o wide", () => {
    const cols = v.additionalPrinterColumns as { name: string; priority?: number }[];
    expect(cols.filter((c) => !c.priority).map((c) => c.name.toUpperCase())).toEqual(["DESIRED", "CURRENT", "UPDATED", "READY", "AVAILABLE", "PAUSED", "AGE"]);
    expect(cols.filter((c) => c.priority === 1).map((c) => c.name.toUpperCase())).toEqual(["CONTAINERS", "IMAGES", "ORDER", "ROLES"]);
  });
  it("has the scale subresource with the HPA selector path that status fills", () => {
    expect((v.subresources as Json).scale).toEqual({ specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.labelSelector" });
  });
});
