// PodSpec defaulting and validation shared by pods and pod templates (apps/v1 StatefulSet):
// SetDefaults_PodSpec / SetDefaults_Container and the parts of ValidatePodSpec worth having.

import { duplicate, fieldNotFound, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { isObject, objectAt, objectsIn, str, type Obj } from "../json.ts";
import type { FieldPath } from "../time.ts";
import { isDNS1123Label } from "../validation.ts";

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;

/** defaultPullPolicy is Always for `:latest` or an untagged image without digest, else IfNotPresent. */
function defaultPullPolicy(image: string): string {
  if (image.includes("@")) return "IfNotPresent";
  const lastSlash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const tag = colon > lastSlash ? image.slice(colon + 1) : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  if (isObject(p.httpGet)) p.httpGet.scheme ??= "HTTP";
}

function defaultContainer(c: Obj): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  c.imagePullPolicy ??= defaultPullPolicy(str(c.image));
  const resources = objectAt(c, "resources");
  if (isObject(resources.limits)) {
    const requests = objectAt(resources, "requests");
    for (const [k, v] of Object.entries(resources.limits)) requests[k] ??= v;
  }
  for (const port of objectsIn(c.ports)) port.protocol ??= "TCP";
  for (const env of objectsIn(c.env)) {
    if (isObject(env.valueFrom) && isObject(env.valueFrom.fieldRef)) env.valueFrom.fieldRef.apiVersion ??= "v1";
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
];

function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((s) => s in v)) v.emptyDir = {};
  for (const s of ["secret", "configMap", "projected", "downwardAPI"]) {
    if (isObject(v[s])) (v[s] as Obj).defaultMode ??= 420;
  }
}

/** defaultPodSpec applies SetDefaults_PodSpec (and the pod-only defaults when isPod). */
export function defaultPodSpec(spec: Obj, isPod: boolean): void {
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  if (isPod) spec.enableServiceLinks ??= true;
  for (const list of CONTAINER_LISTS) for (const c of objectsIn(spec[list])) defaultContainer(c);
  for (const v of objectsIn(spec.volumes)) defaultVolume(v);
}

/** podSpecQuantityMaps locates resource quantities in a PodSpec at prefix. */
export function podSpecQuantityMaps(prefix: FieldPath): FieldPath[] {
  const out: FieldPath[] = [[...prefix, "overhead"]];
  for (const list of CONTAINER_LISTS) {
    out.push([...prefix, list, "*", "resources", "requests"], [...prefix, list, "*", "resources", "limits"]);
  }
  return out;
}

/** validatePodSpec is the part of ValidatePodSpec this fake checks. */
export function validatePodSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const volumeNames = new Set<string>();
  objectsIn(spec.volumes).forEach((v, i) => {
    const name = str(v.name);
    const fld = `${path}.volumes[${i}].name`;
    if (!name) errs.push(required(fld));
    else if (volumeNames.has(name)) errs.push(duplicate(fld, name));
    else for (const m of isDNS1123Label(name)) errs.push(invalid(fld, name, m));
    volumeNames.add(name);
  });
  const containers = objectsIn(spec.containers);
  if (containers.length === 0) errs.push(required(`${path}.containers`));
  const names = new Set<string>();
  for (const list of ["initContainers", "containers"] as const) {
    objectsIn(spec[list]).forEach((c, i) => {
      const base = `${path}.${list}[${i}]`;
      const name = str(c.name);
      if (!name) errs.push(required(`${base}.name`));
      else if (names.has(name)) errs.push(duplicate(`${base}.name`, name));
      else for (const m of isDNS1123Label(name)) errs.push(invalid(`${base}.name`, name, m));
      names.add(name);
      if (!str(c.image)) errs.push(required(`${base}.image`));
      objectsIn(c.ports).forEach((p, j) => {
        const port = p.containerPort;
        if (typeof port !== "number" || port < 1 || port > 65535) {
          errs.push(invalid(`${base}.ports[${j}].containerPort`, port ?? 0, "must be between 1 and 65535, inclusive"));
        }
      });
      objectsIn(c.volumeMounts).forEach((m, j) => {
        const n = str(m.name);
        if (!volumeNames.has(n)) errs.push(fieldNotFound(`${base}.volumeMounts[${j}].name`, n));
        if (!str(m.mountPath)) errs.push(required(`${base}.volumeMounts[${j}].mountPath`));
      });
    });
  }
  const restart = str(spec.restartPolicy);
  if (!["Always", "OnFailure", "Never"].includes(restart)) errs.push(notSupported(`${path}.restartPolicy`, restart, ["Always", "OnFailure", "Never"]));
  const dns = str(spec.dnsPolicy);
  if (!["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"].includes(dns)) {
    errs.push(notSupported(`${path}.dnsPolicy`, dns, ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]));
  }
  return errs;
}
