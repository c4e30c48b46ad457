// PodSpec defaulting shared by pods and pod templates (apps/v1 StatefulSet): SetDefaults_PodSpec /
// SetDefaults_Container as 1.20 stores them. (Pods are validated by the product's src/validation.)

import { isObject, objectAt, objectsIn, str, type Obj } from "../json.ts";
import type { FieldPath } from "../time.ts";

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
