// core/v1 pods: defaults, the admission plugins that touch pods on create (ServiceAccount,
// DefaultTolerationSeconds, Priority), validation on create (the product's) and update (only images,
// activeDeadlineSeconds and added tolerations may change), status rules and graceful deletion.

import { specDiff } from "../diff.ts";
import { forbidden, forbiddenField, invalid, required, type FieldError } from "../errors.ts";
import { clone, deepEqual, fillNull, isObject, objectAt, objectsIn, str, type Obj } from "../json.ts";
import { formatTime } from "../time.ts";
import { subdomainName, validateObjectMetaUpdate } from "../validation.ts";
import { defaultPodSpec, podSpecQuantityMaps } from "./pod-spec.ts";
import { validatePodCreate } from "../../../validation/pod.ts";
import { conditionTimes, defineResource, META_TIME_FIELDS, type ClusterView, type ResourceDef } from "./types.ts";

const SA_TOKEN_MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

const STATUS_LISTS = ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"];

function containerStateTimes(): string[][] {
  const out: string[][] = [];
  for (const list of STATUS_LISTS) {
    for (const state of ["state", "lastState"]) {
      out.push(["status", list, "*", state, "running", "startedAt"]);
      out.push(["status", list, "*", state, "terminated", "startedAt"]);
      out.push(["status", list, "*", state, "terminated", "finishedAt"]);
    }
  }
  return out;
}

function defaultPodStatus(status: unknown): void {
  if (!isObject(status)) return;
  fillNull(status.conditions, "lastProbeTime", "lastTransitionTime");
  for (const list of STATUS_LISTS) {
    for (const s of objectsIn(status[list])) {
      s.name ??= "";
      s.state ??= {};
      s.lastState ??= {};
      s.ready ??= false;
      s.restartCount ??= 0;
      s.image ??= "";
      s.imageID ??= "";
    }
  }
}

/** qosClass is qos.GetPodQOS, simplified to cpu and memory. */
function qosClass(spec: Obj): string {
  let any = false;
  let guaranteed = true;
  for (const c of [...objectsIn(spec.initContainers), ...objectsIn(spec.containers)]) {
    const r = isObject(c.resources) ? c.resources : {};
    const requests = isObject(r.requests) ? r.requests : {};
    const limits = isObject(r.limits) ? r.limits : {};
    for (const res of ["cpu", "memory"]) {
      if (requests[res] !== undefined || limits[res] !== undefined) any = true;
      if (limits[res] === undefined || (requests[res] !== undefined && requests[res] !== limits[res])) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

function tolerates(tolerations: Obj[], key: string): boolean {
  return tolerations.some(
    (t) => (str(t.effect) === "" || t.effect === "NoExecute") && (str(t.key) === key || (str(t.key) === "" && t.operator === "Exists")),
  );
}

/** admitPod runs the create-time admission plugins a 1.20 apiserver enables by default for pods. */
function admitPod(pod: Obj, cluster: ClusterView): void {
  const spec = objectAt(pod, "spec");
  const meta = objectAt(pod, "metadata");
  const ns = str(meta.namespace);
  // ServiceAccount admission
  const saName = str(spec.serviceAccountName) || "default";
  spec.serviceAccountName = saName;
  spec.serviceAccount = saName;
  const sa = cluster.find("", "serviceaccounts", ns, saName);
  if (!sa) {
    throw forbidden({ group: "", resource: "pods" }, str(meta.name) || str(meta.generateName), `error looking up service account ${ns}/${saName}: serviceaccount "${saName}" not found`);
  }
  const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
  const secret = objectsIn(sa.secrets)[0];
  if (automount !== false && secret && str(secret.name)) {
    const volumeName = str(secret.name);
    const all = [...objectsIn(spec.initContainers), ...objectsIn(spec.containers)];
    const needs = all.filter((c) => !objectsIn(c.volumeMounts).some((m) => m.mountPath === SA_TOKEN_MOUNT));
    if (needs.length > 0) {
      const volumes = Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : [];
      if (!objectsIn(volumes).some((v) => v.name === volumeName)) {
        volumes.push({ name: volumeName, secret: { secretName: volumeName, defaultMode: 420 } });
      }
      spec.volumes = volumes;
      for (const c of needs) {
        const mounts = Array.isArray(c.volumeMounts) ? (c.volumeMounts as unknown[]) : [];
        mounts.push({ name: volumeName, readOnly: true, mountPath: SA_TOKEN_MOUNT });
        c.volumeMounts = mounts;
      }
    }
  }
  // DefaultTolerationSeconds admission
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as unknown[]) : [];
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    if (!tolerates(objectsIn(tolerations), key)) tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
  // Priority admission
  if (!str(spec.priorityClassName)) spec.priority ??= 0;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
}

/**
 * validatePod returns the errors of a pod create: the product's validation (src/validation, checked
 * against answers recorded from a real apiserver, test/validation/oracle-recording.test.ts); a
 * second hand-written pod validator here would be a weaker oracle and a drifting copy.
 */
function validatePod(pod: Obj): FieldError[] {
  return validatePodCreate(pod);
}

const UPDATABLE =
  "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)";

function validateContainerUpdates(now: Obj[], old: Obj[], path: string): [FieldError[], boolean] {
  if (now.length !== old.length) return [[forbiddenField(path, "pod updates may not add or remove containers")], true];
  const errs: FieldError[] = [];
  now.forEach((c, i) => {
    const image = str(c.image);
    if (!image) errs.push(required(`${path}[${i}].image`));
    if (image.trim() !== image) errs.push(invalid(`${path}[${i}].image`, image, "must not have leading or trailing whitespace"));
  });
  return [errs, false];
}

function validateOnlyAddedTolerations(now: Obj[], old: Obj[]): FieldError[] {
  for (const o of old) {
    const found = now.some((n) => deepEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n));
    if (!found) return [forbiddenField("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")];
  }
  return [];
}

/** validatePodUpdate is ValidatePodUpdate (1.20). */
function validatePodUpdate(pod: Obj, old: Obj): FieldError[] {
  const errs = validateObjectMetaUpdate(objectAt(pod, "metadata"), objectAt(old, "metadata"), true);
  const spec = objectAt(pod, "spec");
  const oldSpec = objectAt(old, "spec");
  for (const list of ["containers", "initContainers"]) {
    const [e, stop] = validateContainerUpdates(objectsIn(spec[list]), objectsIn(oldSpec[list]), `spec.${list}`);
    errs.push(...e);
    if (stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (typeof ads !== "number" || ads < 0 || ads > 2147483647) {
      errs.push(invalid("spec.activeDeadlineSeconds", ads, "must be between 0 and 2147483647, inclusive"));
      return errs;
    }
    if (typeof oldAds === "number" && oldAds < ads) {
      errs.push(invalid("spec.activeDeadlineSeconds", ads, "must be less than or equal to previous value"));
      return errs;
    }
  } else if (oldAds !== undefined && oldAds !== null) {
    errs.push(invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
  }
  const munged = clone(spec);
  for (const list of ["containers", "initContainers"]) {
    const olds = objectsIn(oldSpec[list]);
    objectsIn(munged[list]).forEach((c, i) => {
      c.image = olds[i]?.image;
    });
  }
  if (oldAds === undefined) delete munged.activeDeadlineSeconds;
  else munged.activeDeadlineSeconds = oldAds;
  if (oldSpec.tolerations === undefined) delete munged.tolerations;
  else munged.tolerations = oldSpec.tolerations;
  errs.push(...validateOnlyAddedTolerations(objectsIn(spec.tolerations), objectsIn(oldSpec.tolerations)));
  if (!deepEqual(munged, oldSpec)) errs.push(forbiddenField("spec", `${UPDATABLE}\n${specDiff("core.PodSpec", munged, oldSpec)}`));
  return errs;
}

/** gracePeriod is podStrategy.CheckGracefulDelete: unscheduled and finished pods go at once. */
function gracePeriod(pod: Obj, requested: number | undefined): number {
  const spec = objectAt(pod, "spec");
  const status = isObject(pod.status) ? pod.status : {};
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === "number" ? spec.terminationGracePeriodSeconds : 0);
  if (!str(spec.nodeName)) period = 0;
  if (status.phase === "Failed" || status.phase === "Succeeded") period = 0;
  return period;
}

/** bindPod applies a Binding: sets spec.nodeName and the PodScheduled condition. */
export function bindPod(pod: Obj, nodeName: string, now: Date): void {
  objectAt(pod, "spec").nodeName = nodeName;
  const status = objectAt(pod, "status");
  const conditions = objectsIn(status.conditions).filter((c) => c.type !== "PodScheduled");
  conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: formatTime(now) });
  status.conditions = conditions;
}

export const pods: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "pods",
  kind: "Pod",
  namespaced: true,
  status: true,
  binding: true,
  returnDeletedObject: true,
  nameValidation: subdomainName,
  timeFields: [
    ...META_TIME_FIELDS,
    ["status", "startTime"],
    ...conditionTimes(["status"], "lastProbeTime", "lastTransitionTime"),
    ...containerStateTimes(),
  ],
  quantityMaps: podSpecQuantityMaps(["spec"]),
  fieldSelectors: {
    "spec.nodeName": (o) => str(objectAt(o, "spec").nodeName),
    "spec.restartPolicy": (o) => str(objectAt(o, "spec").restartPolicy),
    "spec.schedulerName": (o) => str(objectAt(o, "spec").schedulerName),
    "spec.serviceAccountName": (o) => str(objectAt(o, "spec").serviceAccountName),
    "status.phase": (o) => str(objectAt(o, "status").phase),
    "status.podIP": (o) => str(objectAt(o, "status").podIP),
    "status.nominatedNodeName": (o) => str(objectAt(o, "status").nominatedNodeName),
  },
  fieldSelectorError: "label",
  defaults(pod) {
    defaultPodSpec(objectAt(pod, "spec"), true);
    defaultPodStatus(pod.status);
  },
  admitCreate: admitPod,
  prepareForCreate(pod) {
    pod.status = { phase: "Pending", qosClass: qosClass(objectAt(pod, "spec")) };
  },
  validate: validatePod,
  validateUpdate: (pod, old) => [...validatePod(pod), ...validatePodUpdate(pod, old)],
  prepareForStatusUpdate(pod, old) {
    const meta = objectAt(pod, "metadata");
    const oldMeta = objectAt(old, "metadata");
    if (oldMeta.ownerReferences === undefined) delete meta.ownerReferences;
    else meta.ownerReferences = clone(oldMeta.ownerReferences);
  },
  validateStatusUpdate: (pod, old) => validateObjectMetaUpdate(objectAt(pod, "metadata"), objectAt(old, "metadata"), true),
  gracePeriod,
});
