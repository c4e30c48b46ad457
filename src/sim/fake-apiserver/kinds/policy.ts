// policy/v1beta1 PodDisruptionBudgets (what 1.20 serves; policy/v1 from 1.21) and
// authorization.k8s.io/v1 SubjectAccessReviews (create only, never stored: ../policy.ts answers them).

import { invalid, type FieldError } from "../errors.ts";
import { metaOf as meta, objectAt, type Obj } from "../json.ts";
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { defineResource, META_TIME_FIELDS, type ResourceDef } from "./types.ts";

function validatePdbSpec(o: Obj): FieldError[] {
  const spec = objectAt(o, "spec");
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) return [invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set")];
  return [];
}

export const podDisruptionBudgets: ResourceDef = defineResource({
  group: "policy",
  version: "v1beta1",
  resource: "poddisruptionbudgets",
  kind: "PodDisruptionBudget",
  namespaced: true,
  status: true,
  nameValidation: subdomainName,
  generationFields: ["spec"],
  timeFields: META_TIME_FIELDS,
  validate: (o) => [...validateObjectMeta(meta(o), true, subdomainName, true), ...validatePdbSpec(o)],
  validateUpdate: (o, old) => [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validatePdbSpec(o)],
});

export const subjectAccessReviews: ResourceDef = defineResource({
  group: "authorization.k8s.io",
  version: "v1",
  resource: "subjectaccessreviews",
  kind: "SubjectAccessReview",
  namespaced: false,
  nameValidation: subdomainName,
  noDeleteCollection: true,
});

