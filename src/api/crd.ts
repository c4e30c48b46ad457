import * as z from "zod/mini";
import { ImageListSchema } from "./imagelist.ts";
import { IMAGELIST_DESCRIPTIONS, STATEFULSET_DESCRIPTIONS } from "./crd-descriptions.ts";
import { GROUP, StatefulSetSchema, VERSION } from "./statefulset.ts";

/**
 * CRDs generated from the zod schemas (the one schema source): openAPIV3Schema from
 * `z.toJSONSchema(…, {target: "openapi-3.0"})`, post-processed into a structural schema
 * (x-kubernetes-* markers, no unsupported keywords, int32 bounds dropped).
 */

type Json = Record<string, unknown>;

/** structural rewrites a JSON schema node into what the apiserver accepts as a structural schema. */
function structural(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(structural);
  if (!node || typeof node !== "object") return node;
  const src = node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === "$schema" || k === "id") continue;
    if ((k === "maximum" || k === "minimum") && typeof v === "number" && Math.abs(v) >= 2147483647) continue;
    if (k === "maximum" && v === 2147483647) continue;
    out[k] = structural(v);
  }
  if (out["x-kubernetes-preserve-unknown-fields"]) out.type = "object";
  // An empty-string default reads as null to the apiserver's defaulting check; zod keeps it.
  if (out.default === "") delete out.default;
  if (out["x-kubernetes-int-or-string"]) {
    delete out.anyOf;
    delete out.type;
  }
  // additionalProperties: {} (z.record of unknown) is not structural: keep unknown fields instead.
  if (out.type === "object" && out.additionalProperties && Object.keys(out.additionalProperties as Json).length === 0) {
    delete out.additionalProperties;
    out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  // Loose objects (zod looseObject) become additionalProperties: {} next to properties; keep unknown fields.
  if (out.properties && out.additionalProperties !== undefined) {
    delete out.additionalProperties;
    out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  return out;
}

/**
 * describe returns `root` with each field's description (crd-descriptions.ts) written first in
 * its node, and throws on a path the schema does not have (so the descriptions cannot go stale).
 */
function describe(root: Json, descriptions: Readonly<Record<string, string>>): Json {
  const nodeAt = (path: string): Json | undefined => {
    let node: Json | undefined = root;
    for (const step of path.match(/[^.[\]{}]+|\[\]|\{\}/g) ?? []) {
      if (!node) return undefined;
      if (step === "[]") node = node.items as Json | undefined;
      else if (step === "{}") node = node.additionalProperties as Json | undefined;
      else node = (node.properties as Record<string, Json> | undefined)?.[step];
    }
    return node;
  };
  for (const [path, description] of Object.entries(descriptions)) {
    const node = nodeAt(path);
    if (!node || typeof node !== "object") throw new Error(`crd-descriptions.ts: no field ${JSON.stringify(path)} in the schema`);
    const rest = { ...node };
    for (const k of Object.keys(node)) delete node[k];
    Object.assign(node, { description }, rest);
  }
  return root;
}

/** openApiSchema returns the structural openAPIV3Schema of a zod object schema (input side: defaults optional), described. */
function openApiSchema(schema: z.ZodMiniType, descriptions: Readonly<Record<string, string>>): Json {
  const js = z.toJSONSchema(schema, { target: "openapi-3.0", unrepresentable: "any", io: "input" }) as Json;
  const s = structural(js) as Json;
  // metadata is validated by the apiserver itself; a CRD schema may only constrain name/generateName.
  const props = s.properties as Json | undefined;
  if (props?.metadata) props.metadata = { type: "object" };
  // apiVersion and kind may not carry defaults at the top level.
  for (const k of ["apiVersion", "kind"]) delete (props?.[k] as Json | undefined)?.default;
  return describe(s, descriptions);
}

interface CrdSpec {
  kind: string;
  plural: string;
  shortNames: string[];
  schema: z.ZodMiniType;
  descriptions: Readonly<Record<string, string>>;
  scale: boolean;
  printerColumns: Json[];
}

function crd(s: CrdSpec): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${s.plural}.${GROUP}`, labels: { "app.kubernetes.io/part-of": "ordinal" } },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { kind: s.kind, listKind: `${s.kind}List`, plural: s.plural, singular: s.kind.toLowerCase(), shortNames: s.shortNames, categories: ["all", "ordinal"] },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: openApiSchema(s.schema, s.descriptions) },
          subresources: s.scale
            ? { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.labelSelector" } }
            : { status: {} },
          additionalPrinterColumns: s.printerColumns,
        },
      ],
    },
  };
}

const age = { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" };

/** statefulSetCrd returns the StatefulSet CRD (status + scale subresources, short name osts). */
export const statefulSetCrd = (): Json =>
  crd({
    kind: "StatefulSet",
    plural: "statefulsets",
    shortNames: ["osts"],
    schema: StatefulSetSchema,
    descriptions: STATEFULSET_DESCRIPTIONS,
    scale: true,
    // Kruise Advanced StatefulSet's columns: counts side by side, PAUSED, and images with -o wide.
    printerColumns: [
      { name: "Desired", type: "integer", jsonPath: ".spec.replicas", description: "Desired pods (spec.replicas)" },
      { name: "Current", type: "integer", jsonPath: ".status.replicas", description: "Pods the set owns" },
      { name: "Updated", type: "integer", jsonPath: ".status.updatedReplicas", description: "Pods at the update revision" },
      { name: "Ready", type: "integer", jsonPath: ".status.readyReplicas", description: "Pods running and ready" },
      { name: "Available", type: "integer", jsonPath: ".status.availableReplicas", description: "Pods ready for minReadySeconds" },
      { name: "Paused", type: "boolean", jsonPath: ".spec.updateStrategy.rollingUpdate.paused", description: "Rollout paused" },
      age,
      { name: "Containers", type: "string", jsonPath: ".spec.template.spec.containers[*].name", priority: 1, description: "Container names" },
      { name: "Images", type: "string", jsonPath: ".spec.template.spec.containers[*].image", priority: 1, description: "Container images" },
      { name: "Order", type: "string", jsonPath: ".status.updateOrder", priority: 1, description: "The order a rollout updates the pods in (priorityStrategy or roles), first to last" },
      { name: "Roles", type: "string", jsonPath: ".spec.roles.updateOrder", priority: 1, description: "Roles in update order, first to last (spec.roles.updateOrder; the role label is spec.roles.labelKey)" },
    ],
  });

/** imageListCrd returns the ImageList CRD. */
export const imageListCrd = (): Json =>
  crd({
    kind: "ImageList",
    plural: "imagelists",
    shortNames: ["oil"],
    schema: ImageListSchema,
    descriptions: IMAGELIST_DESCRIPTIONS,
    scale: false,
    // Kruise NodeImage's counts: desired, pulled, failed.
    printerColumns: [
      { name: "Images", type: "integer", jsonPath: ".status.desired", description: "Images listed" },
      { name: "Pulled", type: "integer", jsonPath: ".status.pulled", description: "Images pulled on the node" },
      { name: "Failed", type: "integer", jsonPath: ".status.failed", description: "Images whose last pull failed" },
      age,
    ],
  });
