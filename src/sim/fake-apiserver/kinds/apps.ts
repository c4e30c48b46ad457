// apps/v1 statefulsets and controllerrevisions, with the 1.20 validation listed in KUBE-FACTS.md:
// the template's pod spec is not validated, only selector, labels, enums, restartPolicy and
// activeDeadlineSeconds; on update only replicas, template and updateStrategy may change.

import { forbiddenField, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { clone, deepEqual, fillNull, isObject, metaOf as meta, objectAt, objectsIn, type Obj } from "../json.ts";
import { matchesLabels, selectorFromLabelSelector } from "../selectors.ts";
import type { FieldPath } from "../time.ts";
import { subdomainName, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { defaultPodSpec, podSpecQuantityMaps } from "./pod-spec.ts";
import { defaultClaimSpec } from "./pvcs.ts";
import { conditionTimes, defineResource, META_TIME_FIELDS, type ResourceDef } from "./types.ts";


/** defaultPodTemplate defaults a PodTemplateSpec as embedded in workload kinds. */
function defaultPodTemplate(template: Obj): void {
  objectAt(template, "metadata").creationTimestamp ??= null;
  defaultPodSpec(objectAt(template, "spec"), false);
}

function defaultStatefulSet(o: Obj): void {
  const spec = objectAt(o, "spec");
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= "OrderedReady";
  const strategy = objectAt(spec, "updateStrategy");
  strategy.type ??= "RollingUpdate";
  if (strategy.type === "RollingUpdate") objectAt(strategy, "rollingUpdate").partition ??= 0;
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate(objectAt(spec, "template"));
  for (const t of objectsIn(spec.volumeClaimTemplates)) {
    t.kind ??= "PersistentVolumeClaim";
    t.apiVersion ??= "v1";
    objectAt(t, "metadata").creationTimestamp ??= null;
    defaultClaimSpec(objectAt(t, "spec"));
    objectAt(t, "status").phase ??= "Pending";
  }
  objectAt(o, "status").replicas ??= 0;
  fillNull(objectAt(o, "status").conditions, "lastTransitionTime");
}

function nonNegative(v: unknown, field: string): FieldError[] {
  return typeof v === "number" && v < 0 ? [invalid(field, v, "must be greater than or equal to 0")] : [];
}

function validateStatefulSetSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const pmp = spec.podManagementPolicy;
  if (!pmp) errs.push(required("spec.podManagementPolicy"));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") errs.push(invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = objectAt(spec, "updateStrategy");
  switch (strategy.type) {
    case undefined:
    case "":
      errs.push(required("spec.updateStrategy"));
      break;
    case "OnDelete":
      if (strategy.rollingUpdate !== undefined) {
        errs.push(invalid("spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case "RollingUpdate":
      if (isObject(strategy.rollingUpdate)) errs.push(...nonNegative(strategy.rollingUpdate.partition, "spec.updateStrategy.rollingUpdate.partition"));
      break;
    default:
      errs.push(invalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  const template = objectAt(spec, "template");
  const labels = objectAt(template, "metadata").labels;
  const selector = selectorFromLabelSelector(spec.selector);
  if (!isObject(spec.selector)) {
    errs.push(required("spec.selector"));
  } else if (selector && selector.length === 0) {
    errs.push(invalid("spec.selector", spec.selector, "empty selector is invalid for statefulset"));
  }
  if (selector && selector.length > 0 && !matchesLabels(selector, labels)) {
    errs.push(invalid("spec.template.metadata.labels", labels ?? {}, "`selector` does not match template `labels`"));
  }
  errs.push(...validateLabels(labels, "spec.template.labels"));
  const podSpec = objectAt(template, "spec");
  if (podSpec.restartPolicy !== "Always") errs.push(notSupported("spec.template.spec.restartPolicy", podSpec.restartPolicy, ["Always"]));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbiddenField("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  return errs;
}

function validateStatefulSet(o: Obj): FieldError[] {
  return [...validateObjectMeta(meta(o), true, subdomainName, true), ...validateStatefulSetSpec(objectAt(o, "spec"))];
}

function validateStatefulSetUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(o), meta(old), true);
  const spec = clone(objectAt(o, "spec"));
  const oldSpec = objectAt(old, "spec");
  for (const f of ["replicas", "template", "updateStrategy"]) spec[f] = oldSpec[f];
  if (!deepEqual(spec, oldSpec)) {
    errs.push(forbiddenField("spec", "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden"));
  }
  errs.push(...nonNegative(objectAt(o, "spec").replicas, "spec.replicas"));
  return errs;
}

const templateQuantities: FieldPath[] = [
  ...podSpecQuantityMaps(["spec", "template", "spec"]),
  ["spec", "volumeClaimTemplates", "*", "spec", "resources", "requests"],
  ["spec", "volumeClaimTemplates", "*", "spec", "resources", "limits"],
];

export const statefulSets: ResourceDef = defineResource({
  group: "apps",
  version: "v1",
  resource: "statefulsets",
  kind: "StatefulSet",
  namespaced: true,
  status: true,
  scale: { specReplicas: ["spec", "replicas"], statusReplicas: ["status", "replicas"], selectorFromSpec: true },
  nameValidation: subdomainName,
  generationFields: ["spec"],
  timeFields: [
    ...META_TIME_FIELDS,
    ["spec", "template", "metadata", "creationTimestamp"],
    ["spec", "volumeClaimTemplates", "*", "metadata", "creationTimestamp"],
    ...conditionTimes(["status"], "lastTransitionTime"),
  ],
  quantityMaps: templateQuantities,
  defaults: defaultStatefulSet,
  prepareForCreate(o) {
    o.status = { replicas: 0 };
  },
  validate: validateStatefulSet,
  validateUpdate: (o, old) => [...validateStatefulSet(o), ...validateStatefulSetUpdate(o, old)],
  validateStatusUpdate(o, old) {
    const errs = validateObjectMetaUpdate(meta(o), meta(old), true);
    const status = objectAt(o, "status");
    for (const f of ["replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "observedGeneration"]) {
      errs.push(...nonNegative(status[f], `status.${f}`));
    }
    return errs;
  },
});

export const controllerRevisions: ResourceDef = defineResource({
  group: "apps",
  version: "v1",
  resource: "controllerrevisions",
  kind: "ControllerRevision",
  namespaced: true,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  validate(o) {
    const errs = validateObjectMeta(meta(o), true, subdomainName, true);
    if (o.data === undefined || o.data === null) errs.push(required("data", "data is mandatory"));
    errs.push(...nonNegative(o.revision, "revision"));
    return errs;
  },
  validateUpdate(o, old) {
    const errs = validateObjectMetaUpdate(meta(o), meta(old), true);
    if (!deepEqual(o.data, old.data)) errs.push(invalid("data", o.data, "field is immutable"));
    errs.push(...nonNegative(o.revision, "revision"));
    return errs;
  },
});
