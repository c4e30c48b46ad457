/**
 * Containers: validateContainers, validateInitContainers, validateContainerCommon and what they
 * call (ports, env, envFrom, volumeMounts, volumeDevices, resources, securityContext) from
 * pkg/apis/core/validation, current upstream. Upstream's path quirks are kept, e.g. a bad subPath
 * is reported at `…volumeMounts.subPath` (no index) and a requests-above-limits error at
 * `…resources.requests` (no key).
 */
import { type FieldError, type FieldPath, duplicate, forbidden, invalid, notFound, notSupported, required } from "./field-error.ts";
import type { JsonObject, Reader } from "./json.ts";
import { isDNS1123Label, isRelaxedEnvVarName, isValidPortName, isValidPortNum, nameIsDNSSubdomain } from "./names.ts";
import {
  ENV_FIELD_PATHS,
  validateKeySelector,
  validateLocalDescendingPath,
  validateObjectFieldSelector,
  validatePathNoBacksteps,
  validateResourceFieldSelector,
} from "./pod-fields.ts";
import { validateLifecycle, validateProbe } from "./pod-probes.ts";
import { validateResources } from "./pod-resources.ts";
import { type SecurityOptions, validateSecurityContext } from "./pod-security.ts";
import type { VolumeInfo } from "./pod-volumes.ts";

export type ContainerOptions = SecurityOptions;

function validatePorts(r: Reader, ports: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const { item: port, index } of r.objList(ports, path)) {
    const ip = path.index(index);
    const name = r.str(port.name, ip.child("name")) ?? "";
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) errs.push(...msgs.map((m) => invalid(ip.child("name"), name, m)));
      else if (names.has(name)) errs.push(duplicate(ip.child("name"), name));
      else names.add(name);
    }
    const containerPort = r.int32(port.containerPort, ip.child("containerPort")) ?? 0;
    if (containerPort === 0) errs.push(required(ip.child("containerPort")));
    else errs.push(...isValidPortNum(containerPort).map((m) => invalid(ip.child("containerPort"), containerPort, m)));
    const hostPort = r.int32(port.hostPort, ip.child("hostPort")) ?? 0;
    if (hostPort !== 0) errs.push(...isValidPortNum(hostPort).map((m) => invalid(ip.child("hostPort"), hostPort, m)));
    const protocol = r.str(port.protocol, ip.child("protocol")) ?? "";
    if (!protocol) errs.push(required(ip.child("protocol")));
    else if (!["SCTP", "TCP", "UDP"].includes(protocol)) errs.push(notSupported(ip.child("protocol"), protocol, ["SCTP", "TCP", "UDP"]));
  }
  return errs;
}

function validateEnv(r: Reader, env: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const { item: ev, index } of r.objList(env, path)) {
    const ip = path.index(index);
    const name = r.str(ev.name, ip.child("name")) ?? "";
    if (!name) errs.push(required(ip.child("name")));
    else errs.push(...isRelaxedEnvVarName(name).map((m) => invalid(ip.child("name"), name, m)));
    const vf = r.obj(ev.valueFrom, ip.child("valueFrom"));
    if (!vf) continue;
    const vp = ip.child("valueFrom");
    let n = 0;
    const fieldRef = r.obj(vf.fieldRef, vp.child("fieldRef"));
    if (fieldRef) {
      n++;
      errs.push(...validateObjectFieldSelector(r, fieldRef, ENV_FIELD_PATHS, vp.child("fieldRef")));
    }
    const resourceFieldRef = r.obj(vf.resourceFieldRef, vp.child("resourceFieldRef"));
    if (resourceFieldRef) {
      n++;
      errs.push(...validateResourceFieldSelector(r, resourceFieldRef, vp.child("resourceFieldRef"), false));
    }
    for (const kind of ["configMapKeyRef", "secretKeyRef"]) {
      const ref = r.obj(vf[kind], vp.child(kind));
      if (ref) {
        n++;
        errs.push(...validateKeySelector(r, ref, vp.child(kind)));
      }
    }
    const value = typeof ev.value === "string" ? ev.value : "";
    if (n === 0) errs.push(invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    else if (value.length !== 0) errs.push(invalid(vp, "", "may not be specified when `value` is not empty"));
    else if (n > 1) errs.push(invalid(vp, "", "may not have more than one field specified at a time"));
  }
  return errs;
}

function validateEnvFrom(r: Reader, envFrom: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const { item: ev, index } of r.objList(envFrom, path)) {
    const ip = path.index(index);
    const prefix = r.str(ev.prefix, ip.child("prefix")) ?? "";
    if (prefix) errs.push(...isRelaxedEnvVarName(prefix).map((m) => invalid(ip.child("prefix"), prefix, m)));
    let n = 0;
    for (const kind of ["configMapRef", "secretRef"]) {
      const ref = r.obj(ev[kind], ip.child(kind));
      if (!ref) continue;
      n++;
      const name = r.str(ref.name, ip.child(kind, "name")) ?? "";
      if (!name) errs.push(required(ip.child(kind, "name")));
      else errs.push(...nameIsDNSSubdomain(name, true).map((m) => invalid(ip.child(kind, "name"), name, m)));
    }
    if (n === 0) errs.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (n > 1) errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  }
  return errs;
}

/** An empty name → path map (most containers have no volume mounts or devices). */
const NONE: ReadonlyMap<string, string> = new Map();

function validateVolumeMounts(
  r: Reader,
  mounts: Array<{ item: JsonObject; index: number }>,
  devices: ReadonlyMap<string, string>,
  volumes: Map<string, VolumeInfo>,
  privileged: boolean,
  path: FieldPath,
): FieldError[] {
  if (mounts.length === 0) return [];
  const errs: FieldError[] = [];
  const mountpoints = new Set<string>();
  const devicePaths = new Set(devices.values());
  for (const { item: mnt, index } of mounts) {
    const ip = path.index(index);
    const name = r.str(mnt.name, ip.child("name")) ?? "";
    const mountPath = r.str(mnt.mountPath, ip.child("mountPath")) ?? "";
    if (!name) errs.push(required(ip.child("name")));
    if (!volumes.has(name)) errs.push(notFound(ip.child("name"), name));
    if (!mountPath) errs.push(required(ip.child("mountPath")));
    if (mountpoints.has(mountPath)) errs.push(invalid(ip.child("mountPath"), mountPath, "must be unique"));
    mountpoints.add(mountPath);
    if (devices.has(name)) errs.push(invalid(ip.child("name"), name, "must not already exist in volumeDevices"));
    if (devicePaths.has(mountPath)) errs.push(invalid(ip.child("mountPath"), mountPath, "must not already exist as a path in volumeDevices"));
    const subPath = r.str(mnt.subPath, ip.child("subPath")) ?? "";
    if (subPath) errs.push(...validateLocalDescendingPath(subPath, path.child("subPath")));
    const subPathExpr = r.str(mnt.subPathExpr, ip.child("subPathExpr")) ?? "";
    if (subPathExpr) {
      if (subPath) errs.push(invalid(ip.child("subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      errs.push(...validateLocalDescendingPath(subPathExpr, path.child("subPathExpr")));
    }
    const mp = r.str(mnt.mountPropagation, ip.child("mountPropagation"));
    if (mp !== undefined) {
      const supported = ["Bidirectional", "HostToContainer", "None"];
      if (!supported.includes(mp)) errs.push(notSupported(path.child("mountPropagation"), mp, supported));
      if (mp === "Bidirectional" && !privileged)
        errs.push(forbidden(path.child("mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"));
    }
  }
  return errs;
}

function validateVolumeDevices(
  r: Reader,
  devices: Array<{ item: JsonObject; index: number }>,
  mounts: ReadonlyMap<string, string>,
  volumes: Map<string, VolumeInfo>,
  path: FieldPath,
): FieldError[] {
  if (devices.length === 0) return [];
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  const names = new Set<string>();
  const mountPaths = new Set(mounts.values());
  for (const { item: dev, index } of devices) {
    const ip = path.index(index);
    const name = r.str(dev.name, ip.child("name")) ?? "";
    const devicePath = r.str(dev.devicePath, ip.child("devicePath")) ?? "";
    const vol = volumes.get(name);
    if (!name) errs.push(required(ip.child("name")));
    if (names.has(name)) errs.push(invalid(ip.child("name"), name, "must be unique"));
    if (vol && !vol.pvc) errs.push(invalid(ip.child("name"), name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"));
    if (!vol) errs.push(notFound(ip.child("name"), name));
    if (!devicePath) errs.push(required(ip.child("devicePath")));
    if (paths.has(devicePath)) errs.push(invalid(ip.child("devicePath"), devicePath, "must be unique"));
    if (devicePath && validatePathNoBacksteps(devicePath, ip).length > 0)
      errs.push(invalid(ip.child("devicePath"), devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    if (mounts.has(name)) errs.push(invalid(ip.child("name"), name, "must not already exist in volumeMounts"));
    if (mountPaths.has(devicePath)) errs.push(invalid(ip.child("devicePath"), devicePath, "must not already exist as a path in volumeMounts"));
    if (name) names.add(name);
  }
  return errs;
}

function validateContainerCommon(
  r: Reader,
  c: JsonObject,
  volumes: Map<string, VolumeInfo>,
  path: FieldPath,
  opts: ContainerOptions,
  hostUsers: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(c.name, path.child("name")) ?? "";
  if (!name) errs.push(required(path.child("name")));
  else errs.push(...isDNS1123Label(name).map((m) => invalid(path.child("name"), name, m)));
  if (!r.str(c.image, path.child("image"))) errs.push(required(path.child("image")));
  const tmp = r.str(c.terminationMessagePolicy, path.child("terminationMessagePolicy")) ?? "";
  if (tmp === "") errs.push(required(path.child("terminationMessagePolicy")));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError")
    errs.push(notSupported(path.child("terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]));
  const mounts = r.objList(c.volumeMounts, path.child("volumeMounts"));
  const devices = r.objList(c.volumeDevices, path.child("volumeDevices"));
  const mountMap = mounts.length === 0 ? NONE : new Map(mounts.map(({ item }) => [String(item.name ?? ""), String(item.mountPath ?? "")]));
  const deviceMap = devices.length === 0 ? NONE : new Map(devices.map(({ item }) => [String(item.name ?? ""), String(item.devicePath ?? "")]));
  const sc = r.obj(c.securityContext, path.child("securityContext"));
  errs.push(...validatePorts(r, c.ports, path.child("ports")));
  errs.push(...validateEnv(r, c.env, path.child("env")));
  errs.push(...validateEnvFrom(r, c.envFrom, path.child("envFrom")));
  errs.push(...validateVolumeMounts(r, mounts, deviceMap, volumes, sc?.privileged === true, path.child("volumeMounts")));
  errs.push(...validateVolumeDevices(r, devices, mountMap, volumes, path.child("volumeDevices")));
  const policy = r.str(c.imagePullPolicy, path.child("imagePullPolicy")) ?? "";
  if (policy === "") errs.push(required(path.child("imagePullPolicy")));
  else if (!["Always", "IfNotPresent", "Never"].includes(policy))
    errs.push(notSupported(path.child("imagePullPolicy"), policy, ["Always", "IfNotPresent", "Never"]));
  errs.push(...validateResources(r, r.obj(c.resources, path.child("resources")) ?? {}, path.child("resources")));
  if (sc) errs.push(...validateSecurityContext(r, sc, path.child("securityContext"), opts, hostUsers));
  return errs;
}

function validateProbesAndLifecycle(r: Reader, c: JsonObject, gracePeriod: number, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = r.obj(c.lifecycle, path.child("lifecycle"));
  if (lifecycle) errs.push(...validateLifecycle(r, lifecycle, gracePeriod, path.child("lifecycle")));
  errs.push(...validateProbe(r, c.livenessProbe, "livenessProbe", gracePeriod, path.child("livenessProbe")));
  errs.push(...validateProbe(r, c.readinessProbe, "readinessProbe", gracePeriod, path.child("readinessProbe")));
  errs.push(...validateProbe(r, c.startupProbe, "startupProbe", gracePeriod, path.child("startupProbe")));
  return errs;
}

/** hostPortConflicts is AccumulateUniqueHostPorts: protocol/hostIP/hostPort must be unique. */
function hostPortConflicts(containers: Array<{ item: JsonObject; index: number }>, path: FieldPath, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  for (const { item: c, index } of containers) {
    if (!Array.isArray(c.ports)) continue;
    c.ports.forEach((p: unknown, pi: number) => {
      if (typeof p !== "object" || p === null) return;
      const port = (p as JsonObject).hostPort;
      if (typeof port !== "number" || port === 0) return;
      const key = `${String((p as JsonObject).protocol ?? "")}/${String((p as JsonObject).hostIP ?? "")}/${port}`;
      if (seen.has(key)) errs.push(duplicate(path.index(index).child("ports").index(pi).child("hostPort"), key));
      else seen.add(key);
    });
  }
  return errs;
}

/** validateContainers checks spec.containers: required, valid, uniquely named, probes, ports. */
export function validateContainers(
  r: Reader,
  containers: unknown,
  volumes: Map<string, VolumeInfo>,
  gracePeriod: number,
  path: FieldPath,
  opts: ContainerOptions,
  hostUsers: boolean,
): FieldError[] {
  const list = r.objList(containers, path);
  if (list.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const { item: c, index } of list) {
    const cp = path.index(index);
    errs.push(...validateContainerCommon(r, c, volumes, cp, opts, hostUsers));
    const name = typeof c.name === "string" ? c.name : "";
    if (names.has(name)) errs.push(duplicate(cp.child("name"), name));
    else names.add(name);
    errs.push(...validateProbesAndLifecycle(r, c, gracePeriod, cp));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(forbidden(cp.child("restartPolicy"), "may not be set for non-init containers"));
  }
  return [...errs, ...hostPortConflicts(list, path)];
}

/** validateInitContainers checks spec.initContainers; names must not repeat regular containers'. */
export function validateInitContainers(
  r: Reader,
  initContainers: unknown,
  regularNames: string[],
  volumes: Map<string, VolumeInfo>,
  gracePeriod: number,
  path: FieldPath,
  opts: ContainerOptions,
  hostUsers: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(regularNames);
  for (const { item: c, index } of r.objList(initContainers, path)) {
    const cp = path.index(index);
    errs.push(...validateContainerCommon(r, c, volumes, cp, opts, hostUsers));
    const restartPolicy = r.str(c.restartPolicy, cp.child("restartPolicy"));
    if (restartPolicy !== undefined && restartPolicy !== "Always") errs.push(notSupported(cp.child("restartPolicy"), restartPolicy, ["Always"]));
    const name = typeof c.name === "string" ? c.name : "";
    if (names.has(name)) errs.push(duplicate(cp.child("name"), name));
    else if (name) names.add(name);
    // Each init container alone, and (as upstream) indexed as the first of a one-item list.
    errs.push(...hostPortConflicts([{ item: c, index: 0 }], path));
    if (restartPolicy === "Always") errs.push(...validateProbesAndLifecycle(r, c, gracePeriod, cp));
    else
      for (const f of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"])
        if (c[f] !== undefined && c[f] !== null) errs.push(forbidden(cp.child(f), "may not be set for init containers without restartPolicy=Always"));
    if (Array.isArray(c.resizePolicy) && c.resizePolicy.length > 0) errs.push(invalid(cp.child("resizePolicy"), c.resizePolicy, "must not be set for init containers"));
  }
  return errs;
}
