// What the generic REST machinery needs to know about one resource: its names and scope, its
// strategy (defaults, validation, update rules) and its subresources. One ResourceDef per
// resource, declared in the files beside this one.

import type { FieldError } from "../errors.ts";
import type { Obj } from "../json.ts";
import type { FieldGetters } from "../selectors.ts";
import type { FieldPath } from "../time.ts";
import type { NameValidator } from "../validation.ts";

/** ClusterView is the read access a strategy or admission step gets (for example to find a ServiceAccount). */
export interface ClusterView {
  now(): Date;
  find(group: string, resource: string, namespace: string, name: string): Obj | undefined;
  randomSuffix(n: number): string;
  random(): number;
}

/** ScalePaths locate replicas and selector for the scale subresource (as in a CRD). */
export interface ScalePaths {
  specReplicas: FieldPath;
  statusReplicas: FieldPath;
  labelSelector?: FieldPath;
  /** apps/v1 derives the selector string from spec.selector instead */
  selectorFromSpec?: boolean;
}

export interface ResourceDef {
  group: string;
  version: string;
  /** plural resource name, as in URLs */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  /** custom resources are unstructured: no defaulting, no time normalization, kind required in bodies */
  custom: boolean;
  status: boolean;
  scale?: ScalePaths;
  /** pods/binding */
  binding?: boolean;
  /** namespaces/finalize */
  finalize?: boolean;
  allowCreateOnUpdate: boolean;
  allowUnconditionalUpdate: boolean;
  /** DELETE answers with the object instead of a Status */
  returnDeletedObject: boolean;
  nameValidation: NameValidator;
  /** top-level fields whose change bumps metadata.generation; undefined: no generation */
  generationFields?: readonly string[] | "all-but-metadata";
  /** metav1.Time fields (truncated to seconds) and metav1.MicroTime fields */
  timeFields?: readonly FieldPath[];
  microTimeFields?: readonly FieldPath[];
  /** resource.Quantity maps whose values are canonicalized */
  quantityMaps?: readonly FieldPath[];
  /** field selectors beyond metadata.name / metadata.namespace */
  fieldSelectors?: FieldGetters;
  /** how an unsupported field selector is reported */
  fieldSelectorError: "meta" | "label";
  /** decode-time defaulting, applied to every written object */
  defaults?(obj: Obj): void;
  /** admission plugins on create (may throw an ApiError) */
  admitCreate?(obj: Obj, cluster: ClusterView): void;
  /** strategy PrepareForCreate (after the generic status reset) */
  prepareForCreate?(obj: Obj, cluster: ClusterView): void;
  validate?(obj: Obj): FieldError[];
  /** strategy PrepareForUpdate for the main endpoint (after the generic status restore) */
  prepareForUpdate?(obj: Obj, old: Obj): void;
  validateUpdate?(obj: Obj, old: Obj): FieldError[];
  /** admission plugins on update of the main endpoint, after validation (may throw an ApiError) */
  admitUpdate?(obj: Obj, old: Obj, cluster: ClusterView): void;
  /** extra resets for the /status endpoint (beyond spec) */
  prepareForStatusUpdate?(obj: Obj, old: Obj): void;
  validateStatusUpdate?(obj: Obj, old: Obj): FieldError[];
  /** graceful deletion (pods): the grace period to use, given the requested one */
  gracePeriod?(obj: Obj, requested: number | undefined): number;
  /** deletecollection is not served (namespaces, services) */
  noDeleteCollection?: boolean;
}

/** defineResource fills the common defaults of a ResourceDef. */
export function defineResource(d: Partial<ResourceDef> & Pick<ResourceDef, "group" | "version" | "resource" | "kind" | "namespaced" | "nameValidation">): ResourceDef {
  return {
    listKind: `${d.kind}List`,
    custom: false,
    status: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    fieldSelectorError: "meta",
    ...d,
  };
}

/** apiVersionOf gives `v1` or `apps/v1`. */
export function apiVersionOf(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** metaTimeFields are metav1.Time fields every built-in object has. */
export const META_TIME_FIELDS: readonly FieldPath[] = [
  ["metadata", "creationTimestamp"],
  ["metadata", "deletionTimestamp"],
];

/** conditionTimes lists a conditions array's time fields under a prefix. */
export function conditionTimes(prefix: FieldPath, ...fields: string[]): FieldPath[] {
  return fields.map((f) => [...prefix, "conditions", "*", f]);
}
