// Custom resources served the way apiextensions-apiserver serves a CRD: unstructured (times kept
// as written), the CRD's structural schema applied (defaults, pruning, validation), generation
// bumped by any change outside metadata, updates require a resourceVersion, and the status
// subresource keeps only status.

import { imageListCrd, statefulSetCrd } from "../../../api/crd.ts";
import { GoSyntax, invalid, type FieldError } from "../errors.ts";
import { getIn, isObject, objectAt, objectsIn, str, type Obj } from "../json.ts";
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { applyDefaults, prune, validateRoot, type Schema } from "./schema.ts";
import { defineResource, META_TIME_FIELDS, type ResourceDef, type ScalePaths } from "./types.ts";

/** CustomResourceSpec describes one served version of a CRD. */
export interface CustomResourceSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  listKind?: string;
  namespaced?: boolean;
  /** status subresource (default true) */
  status?: boolean;
  /** scale subresource paths, dotted as in a CRD: `.spec.replicas` */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** the version's openAPIV3Schema: defaults, pruning and validation as the apiserver applies them */
  schema?: Schema;
  /** extra defaulting after the schema's */
  defaults?(obj: Obj): void;
  /** extra validation; field errors become a 422 */
  validate?(obj: Obj, old?: Obj): FieldError[];
}

const dotted = (p: string): string[] => p.replace(/^\./, "").split(".");

/** validateScalePaths is the custom resource validator's check of the scale subresource's paths. */
function validateScalePaths(o: Obj, scale: ScalePaths): FieldError[] {
  const errs: FieldError[] = [];
  for (const path of [scale.specReplicas, scale.statusReplicas]) {
    const field = `.${path.join(".")}`;
    const v = getIn(o, path);
    if (v === undefined) continue;
    if (!Number.isInteger(v)) {
      const type = typeof v === "number" ? "float64" : typeof v === "string" ? "string" : typeof v === "boolean" ? "bool" : Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
      errs.push({ ...invalid(field, new GoSyntax("0")), detail: `${field} accessor error: ${String(v)} is of the type ${type}, expected int64` });
    } else if ((v as number) < 0) {
      errs.push(invalid(field, v, "should be a non-negative integer"));
    } else if ((v as number) > 2147483647) {
      errs.push(invalid(field, v, "should be less than or equal to 2147483647"));
    }
  }
  if (scale.labelSelector) {
    const field = `.${scale.labelSelector.join(".")}`;
    const v = getIn(o, scale.labelSelector);
    if (v !== undefined && typeof v !== "string") {
      errs.push({ ...invalid(field, new GoSyntax('""')), detail: `${field} accessor error: ${String(v)} is of the type ${typeof v}, expected string` });
    }
  }
  return errs;
}

/** defineCustomResource turns a CRD version description into a ResourceDef. */
export function defineCustomResource(spec: CustomResourceSpec): ResourceDef {
  const namespaced = spec.namespaced ?? true;
  let scale: ScalePaths | undefined;
  if (spec.scale) {
    scale = {
      specReplicas: dotted(spec.scale.specReplicasPath),
      statusReplicas: dotted(spec.scale.statusReplicasPath),
      labelSelector: spec.scale.labelSelectorPath ? dotted(spec.scale.labelSelectorPath) : undefined,
    };
  }
  const schema = spec.schema;
  const validate = (o: Obj, old?: Obj): FieldError[] => [
    ...(schema ? validateRoot(o, schema) : []),
    ...(scale ? validateScalePaths(o, scale) : []),
    ...(spec.validate?.(o, old) ?? []),
  ];
  return defineResource({
    group: spec.group,
    version: spec.version,
    resource: spec.plural,
    kind: spec.kind,
    listKind: spec.listKind ?? `${spec.kind}List`,
    namespaced,
    custom: true,
    status: spec.status ?? true,
    scale,
    allowUnconditionalUpdate: false,
    nameValidation: subdomainName,
    generationFields: "all-but-metadata",
    timeFields: META_TIME_FIELDS,
    fieldSelectorError: "label",
    defaults(o) {
      if (schema) {
        applyDefaults(o, schema);
        prune(o, schema, true);
      }
      spec.defaults?.(o);
    },
    validate: (o) => [...validateObjectMeta(objectAt(o, "metadata"), namespaced, subdomainName, false), ...validate(o)],
    validateUpdate: (o, old) => [...validateObjectMetaUpdate(objectAt(o, "metadata"), objectAt(old, "metadata"), false), ...validate(o, old)],
    validateStatusUpdate: (o, old) => [...validateObjectMetaUpdate(objectAt(o, "metadata"), objectAt(old, "metadata"), false), ...validate(o, old)],
  });
}

/** customResourcesFromCrd reads a CustomResourceDefinition (apiextensions.k8s.io/v1) object. */
function customResourcesFromCrd(crd: Obj): CustomResourceSpec[] {
  const spec = objectAt(crd, "spec");
  const names = objectAt(spec, "names");
  return objectsIn(spec.versions)
    .filter((v) => v.served !== false)
    .map((v) => {
      const sub = isObject(v.subresources) ? v.subresources : {};
      const scale = isObject(sub.scale) ? sub.scale : undefined;
      const schema = isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? (v.schema.openAPIV3Schema as Schema) : undefined;
      return {
        group: str(spec.group),
        version: str(v.name),
        plural: str(names.plural),
        kind: str(names.kind),
        listKind: str(names.listKind) || undefined,
        namespaced: spec.scope !== "Cluster",
        status: isObject(sub.status),
        scale: scale
          ? { specReplicasPath: str(scale.specReplicasPath), statusReplicasPath: str(scale.statusReplicasPath), labelSelectorPath: str(scale.labelSelectorPath) || undefined }
          : undefined,
        schema,
      };
    });
}

/** ordinalCustomResources are the CRDs Ordinal installs (deploy/crds), from the same generator. */
export function ordinalCustomResources(): CustomResourceSpec[] {
  return [...customResourcesFromCrd(statefulSetCrd()), ...customResourcesFromCrd(imageListCrd())];
}
