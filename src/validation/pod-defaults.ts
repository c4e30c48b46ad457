/**
 * The v1 defaults the apiserver applies to a pod before validating it (pkg/apis/core/v1/defaults.go),
 * limited to the fields pod validation looks at. Works on a copy; values of the wrong type are left
 * alone for validation to report.
 */
import { type JsonObject, isObject } from "./json.ts";

const isUnset = (v: unknown): boolean => v === undefined || v === null || v === "";
const zeroOrUnset = (v: unknown): boolean => v === undefined || v === null || v === 0;

/** The volume source keys, in the order upstream's validateVolumeSource checks them. */
const VOLUME_SOURCES = [
  "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi", "glusterfs",
  "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc", "flexVolume", "configMap",
  "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk", "storageos", "projected", "scaleIO",
  "csi", "ephemeral", "image",
] as const;
export { VOLUME_SOURCES };

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  if (zeroOrUnset(p.timeoutSeconds)) p.timeoutSeconds = 1;
  if (zeroOrUnset(p.periodSeconds)) p.periodSeconds = 10;
  if (zeroOrUnset(p.successThreshold)) p.successThreshold = 1;
  if (zeroOrUnset(p.failureThreshold)) p.failureThreshold = 3;
  defaultHandler(p);
}

function defaultHandler(h: unknown): void {
  if (!isObject(h) || !isObject(h.httpGet)) return;
  if (isUnset(h.httpGet.path)) h.httpGet.path = "/";
  if (isUnset(h.httpGet.scheme)) h.httpGet.scheme = "HTTP";
}

/** imageTag returns the tag of an image reference ("latest" when it has neither tag nor digest). */
function imageTag(image: string): string {
  const lastSlash = image.lastIndexOf("/");
  const at = image.indexOf("@");
  const rest = image.slice(lastSlash + 1);
  const colon = rest.indexOf(":");
  if (colon >= 0) return rest.slice(colon + 1).split("@")[0];
  return at >= 0 ? "" : "latest";
}

function defaultContainer(c: unknown, isPod: boolean): void {
  if (!isObject(c)) return;
  if (isUnset(c.imagePullPolicy) && typeof (c.image ?? "") === "string")
    c.imagePullPolicy = imageTag(String(c.image ?? "")) === "latest" ? "Always" : "IfNotPresent";
  if (isUnset(c.terminationMessagePath)) c.terminationMessagePath = "/dev/termination-log";
  if (isUnset(c.terminationMessagePolicy)) c.terminationMessagePolicy = "File";
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isObject(p) && isUnset(p.protocol)) p.protocol = "TCP";
  if (Array.isArray(c.env))
    for (const e of c.env)
      if (isObject(e) && isObject(e.valueFrom) && isObject(e.valueFrom.fieldRef) && isUnset(e.valueFrom.fieldRef.apiVersion))
        e.valueFrom.fieldRef.apiVersion = "v1";
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObject(c.lifecycle)) {
    defaultHandler(c.lifecycle.postStart);
    defaultHandler(c.lifecycle.preStop);
  }
  // SetDefaults_Pod: requests default to limits (pods only, not templates).
  if (isPod && isObject(c.resources) && isObject(c.resources.limits)) {
    if (c.resources.requests === undefined || c.resources.requests === null) c.resources.requests = {};
    if (isObject(c.resources.requests))
      for (const [k, v] of Object.entries(c.resources.limits)) if (!(k in c.resources.requests)) c.resources.requests[k] = v;
  }
}

/** defaultFieldRefs sets fieldRef.apiVersion to "v1" where unset, in a list of downward API files. */
function defaultFieldRefs(items: unknown): void {
  if (!Array.isArray(items)) return;
  for (const f of items) if (isObject(f) && isObject(f.fieldRef) && isUnset(f.fieldRef.apiVersion)) f.fieldRef.apiVersion = "v1";
}

function defaultVolume(v: unknown): void {
  if (!isObject(v)) return;
  // SetDefaults_Volume: a volume with no source is an emptyDir.
  if (VOLUME_SOURCES.every((s) => v[s] === undefined || v[s] === null)) v.emptyDir = {};
  // SetDefaults_ObjectFieldSelector applies to every fieldRef, downward API volume files included.
  if (isObject(v.downwardAPI)) defaultFieldRefs(v.downwardAPI.items);
  if (isObject(v.projected) && Array.isArray(v.projected.sources))
    for (const src of v.projected.sources) if (isObject(src) && isObject(src.downwardAPI)) defaultFieldRefs(src.downwardAPI.items);
  if (isObject(v.ephemeral) && isObject(v.ephemeral.volumeClaimTemplate)) defaultPvcSpec(v.ephemeral.volumeClaimTemplate.spec);
}

/** defaultPvcSpec applies SetDefaults_PersistentVolumeClaimSpec (volumeMode Filesystem). */
export function defaultPvcSpec(spec: unknown): void {
  if (isObject(spec) && (spec.volumeMode === undefined || spec.volumeMode === null)) spec.volumeMode = "Filesystem";
}

/** defaultPodSpec applies the PodSpec defaults in place; `isPod` adds those only pods get. */
export function defaultPodSpec(spec: JsonObject, isPod: boolean): void {
  if (isUnset(spec.restartPolicy)) spec.restartPolicy = "Always";
  if (isUnset(spec.dnsPolicy)) spec.dnsPolicy = "ClusterFirst";
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (spec.securityContext === undefined || spec.securityContext === null) spec.securityContext = {};
  if (isUnset(spec.schedulerName)) spec.schedulerName = "default-scheduler";
  for (const key of ["containers", "initContainers"]) {
    const list = spec[key];
    if (Array.isArray(list)) for (const c of list) defaultContainer(c, isPod);
  }
  if (Array.isArray(spec.volumes)) for (const v of spec.volumes) defaultVolume(v);
  // With hostNetwork, an unset hostPort takes the containerPort (pods only).
  if (isPod && spec.hostNetwork === true)
    for (const key of ["containers", "initContainers"]) {
      const list = spec[key];
      if (Array.isArray(list))
        for (const c of list)
          if (isObject(c) && Array.isArray(c.ports))
            for (const p of c.ports) if (isObject(p) && zeroOrUnset(p.hostPort)) p.hostPort = p.containerPort;
    }
}
