// The simpler core/v1 kinds: configmaps, secrets, serviceaccounts, services, events, nodes and
// namespaces.

import { DecodeError } from "../decode.ts";
import { forbiddenField, invalid, required, type FieldError } from "../errors.ts";
import { deepEqual, encodeBase64, fillNull, isObject, metaOf as meta, objectAt, objectsIn, str, type Obj } from "../json.ts";
import {
  dns1035Name,
  isConfigMapKey,
  labelName,
  subdomainName,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type NameValidator,
} from "../validation.ts";
import { conditionTimes, defineResource, META_TIME_FIELDS, type ResourceDef } from "./types.ts";


/** simpleValidation validates metadata only, on create and update. */
function simpleValidation(namespaced: boolean, nameFn: NameValidator): Pick<ResourceDef, "validate" | "validateUpdate"> {
  return {
    validate: (o) => validateObjectMeta(meta(o), namespaced, nameFn, true),
    validateUpdate: (o, old) => validateObjectMetaUpdate(meta(o), meta(old), true),
  };
}

function validateDataKeys(o: Obj, fields: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    if (!isObject(o[f])) continue;
    for (const k of Object.keys(o[f])) for (const m of isConfigMapKey(k)) errs.push(invalid(`${f}[${k}]`, k, m));
  }
  return errs;
}

function immutableData(o: Obj, old: Obj, fields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(forbiddenField("immutable", "field is immutable when `immutable` is set"));
  for (const f of fields) if (!deepEqual(o[f], old[f])) errs.push(forbiddenField(f, "field is immutable when `immutable` is set"));
  return errs;
}

export const configMaps: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  validate: (o) => [...validateObjectMeta(meta(o), true, subdomainName, true), ...validateDataKeys(o, ["data", "binaryData"])],
  validateUpdate: (o, old) => [
    ...validateObjectMetaUpdate(meta(o), meta(old), true),
    ...validateDataKeys(o, ["data", "binaryData"]),
    ...immutableData(o, old, ["data", "binaryData"]),
  ],
});

export const secrets: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "secrets",
  kind: "Secret",
  namespaced: true,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  fieldSelectors: { type: (o) => str(o.type) },
  defaults(o) {
    o.type ??= "Opaque";
    if (isObject(o.stringData)) {
      const data = objectAt(o, "data");
      for (const [k, v] of Object.entries(o.stringData)) data[k] = encodeBase64(str(v));
      delete o.stringData;
    }
    if (isObject(o.data)) {
      for (const v of Object.values(o.data)) {
        const text = typeof v === "string" ? v : "";
        const bad = text.search(/[^A-Za-z0-9+/=]/);
        if (typeof v !== "string" || bad >= 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
          throw new DecodeError(secrets, `v1.Secret.Data: decode base64: illegal base64 data at input byte ${Math.max(bad, 0)}`);
        }
      }
    }
  },
  validate(o) {
    const errs = [...validateObjectMeta(meta(o), true, subdomainName, true), ...validateDataKeys(o, ["data"])];
    if (o.type === "kubernetes.io/service-account-token") {
      const ann = isObject(meta(o).annotations) ? (meta(o).annotations as Obj) : {};
      if (!str(ann["kubernetes.io/service-account.name"])) {
        errs.push(required("metadata.annotations[kubernetes.io/service-account.name]"));
      }
    }
    return errs;
  },
  validateUpdate(o, old) {
    const errs = [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validateDataKeys(o, ["data"])];
    if (o.type !== old.type) errs.push(invalid("type", o.type, "field is immutable"));
    errs.push(...immutableData(o, old, ["data"]));
    return errs;
  },
});

export const serviceAccounts: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
  returnDeletedObject: true,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  ...simpleValidation(true, subdomainName),
});

export const services: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "services",
  kind: "Service",
  namespaced: true,
  status: true,
  allowCreateOnUpdate: true,
  noDeleteCollection: true,
  nameValidation: dns1035Name,
  timeFields: [...META_TIME_FIELDS, ...conditionTimes(["status"], "lastTransitionTime")],
  defaults(o) {
    const spec = objectAt(o, "spec");
    spec.type ??= "ClusterIP";
    spec.sessionAffinity ??= "None";
    for (const p of objectsIn(spec.ports)) {
      p.protocol ??= "TCP";
      p.targetPort ??= p.port;
    }
    objectAt(objectAt(o, "status"), "loadBalancer");
  },
  prepareForCreate(o, cluster) {
    const spec = objectAt(o, "spec");
    if (!str(spec.clusterIP) && spec.type !== "ExternalName") {
      // from 10.96.0.0/16, the service range the test cluster is started with
      const n = 1 + Math.floor(cluster.random() * 65533);
      spec.clusterIP = `10.96.${n >> 8}.${n & 255}`;
    }
    if (str(spec.clusterIP)) spec.clusterIPs ??= [spec.clusterIP];
    o.status = { loadBalancer: {} };
  },
  validate(o) {
    const errs = validateObjectMeta(meta(o), true, dns1035Name, true);
    const spec = objectAt(o, "spec");
    const headless = spec.clusterIP === "None";
    if (objectsIn(spec.ports).length === 0 && !headless && spec.type !== "ExternalName") errs.push(required("spec.ports"));
    objectsIn(spec.ports).forEach((p, i) => {
      if (typeof p.port !== "number" || p.port < 1 || p.port > 65535) {
        errs.push(invalid(`spec.ports[${i}].port`, p.port ?? 0, "must be between 1 and 65535, inclusive"));
      }
    });
    return errs;
  },
  validateUpdate(o, old) {
    const spec = objectAt(o, "spec");
    const oldSpec = objectAt(old, "spec");
    if (!str(spec.clusterIP) && str(oldSpec.clusterIP)) {
      spec.clusterIP = oldSpec.clusterIP;
      spec.clusterIPs = oldSpec.clusterIPs;
    }
    const errs = validateObjectMetaUpdate(meta(o), meta(old), true);
    if (spec.clusterIP !== oldSpec.clusterIP) errs.push(invalid("spec.clusterIP", spec.clusterIP, "field is immutable"));
    return errs;
  },
});

export const events: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "events",
  kind: "Event",
  namespaced: true,
  allowCreateOnUpdate: true,
  nameValidation: subdomainName,
  timeFields: [...META_TIME_FIELDS, ["firstTimestamp"], ["lastTimestamp"]],
  microTimeFields: [["eventTime"], ["series", "lastObservedTime"]],
  fieldSelectorError: "label",
  fieldSelectors: {
    "involvedObject.kind": (o) => str(objectAt(o, "involvedObject").kind),
    "involvedObject.namespace": (o) => str(objectAt(o, "involvedObject").namespace),
    "involvedObject.name": (o) => str(objectAt(o, "involvedObject").name),
    "involvedObject.uid": (o) => str(objectAt(o, "involvedObject").uid),
    "involvedObject.apiVersion": (o) => str(objectAt(o, "involvedObject").apiVersion),
    "involvedObject.resourceVersion": (o) => str(objectAt(o, "involvedObject").resourceVersion),
    "involvedObject.fieldPath": (o) => str(objectAt(o, "involvedObject").fieldPath),
    reason: (o) => str(o.reason),
    reportingComponent: (o) => str(o.reportingComponent),
    source: (o) => str(objectAt(o, "source").component),
    type: (o) => str(o.type),
  },
  defaults(o) {
    objectAt(o, "involvedObject");
    objectAt(o, "source");
    o.firstTimestamp ??= null;
    o.lastTimestamp ??= null;
    o.eventTime ??= null;
    o.reportingComponent ??= "";
    o.reportingInstance ??= "";
  },
  validate(o) {
    const errs = validateObjectMeta(meta(o), true, subdomainName, true);
    const involvedNs = str(objectAt(o, "involvedObject").namespace);
    if (involvedNs && involvedNs !== str(meta(o).namespace)) errs.push(invalid("involvedObject.namespace", involvedNs, "does not match event.namespace"));
    return errs;
  },
  validateUpdate: (o, old) => validateObjectMetaUpdate(meta(o), meta(old), true),
});

export const nodes: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "nodes",
  kind: "Node",
  namespaced: false,
  status: true,
  nameValidation: subdomainName,
  timeFields: [...META_TIME_FIELDS, ...conditionTimes(["status"], "lastHeartbeatTime", "lastTransitionTime")],
  quantityMaps: [["status", "capacity"], ["status", "allocatable"]],
  fieldSelectors: { "spec.unschedulable": (o) => String(objectAt(o, "spec").unschedulable === true) },
  defaults(o) {
    objectAt(o, "spec");
    const status = objectAt(o, "status");
    const endpoints = objectAt(status, "daemonEndpoints");
    objectAt(endpoints, "kubeletEndpoint").Port ??= 0;
    const info = objectAt(status, "nodeInfo");
    for (const k of ["machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"]) {
      info[k] ??= "";
    }
    fillNull(status.conditions, "lastHeartbeatTime", "lastTransitionTime");
  },
  admitCreate(o) {
    const spec = objectAt(o, "spec");
    const taints = Array.isArray(spec.taints) ? (spec.taints as unknown[]) : [];
    if (!objectsIn(taints).some((t) => t.key === "node.kubernetes.io/not-ready")) {
      taints.push({ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" });
    }
    spec.taints = taints;
  },
  ...simpleValidation(false, subdomainName),
});

export const namespaces: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  namespaced: false,
  status: true,
  finalize: true,
  returnDeletedObject: true,
  noDeleteCollection: true,
  nameValidation: labelName,
  timeFields: [...META_TIME_FIELDS, ...conditionTimes(["status"], "lastTransitionTime")],
  fieldSelectors: { "status.phase": (o) => str(objectAt(o, "status").phase) },
  defaults(o) {
    objectAt(o, "spec");
    objectAt(o, "status").phase ??= "Active";
  },
  prepareForUpdate(o, old) {
    objectAt(o, "spec").finalizers = objectAt(old, "spec").finalizers;
  },
  prepareForCreate(o) {
    o.status = { phase: "Active" };
    const spec = objectAt(o, "spec");
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    if (!finalizers.includes("kubernetes")) finalizers.push("kubernetes");
    spec.finalizers = finalizers;
  },
  ...simpleValidation(false, labelName),
});

/** storage.k8s.io/v1 storageclasses: cluster-scoped; provisioner required and, like parameters, immutable. */
export const storageClasses: ResourceDef = defineResource({
  group: "storage.k8s.io",
  version: "v1",
  resource: "storageclasses",
  kind: "StorageClass",
  namespaced: false,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  defaults(o) {
    o.reclaimPolicy ??= "Delete";
    o.volumeBindingMode ??= "Immediate";
  },
  validate: (o) => [...validateObjectMeta(meta(o), false, subdomainName, true), ...(str(o.provisioner) ? [] : [required("provisioner")])],
  validateUpdate: (o, old) => [
    ...validateObjectMetaUpdate(meta(o), meta(old), true),
    ...(deepEqual(o.provisioner, old.provisioner) ? [] : [forbiddenField("provisioner", "updates to provisioner are forbidden.")]),
    ...(deepEqual(o.parameters, old.parameters) ? [] : [forbiddenField("parameters", "updates to parameters are forbidden.")]),
  ],
});
