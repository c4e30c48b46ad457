/**
 * Pod volumes: ValidateVolumes / validateVolumeSource of pkg/apis/core/validation. Each volume needs
 * a unique DNS-label name and exactly one source. The common sources are checked in depth; the
 * rarer in-tree plugins (iSCSI, RBD, Cinder, …) only count towards "exactly one source".
 * Upstream's path quirks are kept (`downwarAPI` when a second source is downwardAPI, `cephFS`).
 */
import type { FieldPath} from "./field-error.ts";
import { type FieldError, duplicate, forbidden, invalid, notSupported, required, tooLong } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { type JsonObject } from "./json.ts";
import { validateLabels } from "./labels.ts";
import { validateAnnotations } from "./meta.ts";
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from "./names.ts";
import { VOLUME_SOURCES, defaultPvcSpec } from "./pod-defaults.ts";
import {
  VOLUME_FIELD_PATHS,
  validateFileMode,
  validateKeyToPath,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validateObjectFieldSelector,
  validatePathNoBacksteps,
  validateResourceFieldSelector,
  readQuantity,
} from "./pod-fields.ts";
import { validatePvcSpec } from "./pvc.ts";
import { cloneJSON } from "../objects/clone.ts";

/** The path segment upstream uses in the "more than 1 volume type" error, where it differs from the key. */
const FORBIDDEN_SEGMENT: Record<string, string> = { downwardAPI: "downwarAPI", cephfs: "cephFS" };
const HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

/** What container validation needs to know about a valid volume. */
export interface VolumeInfo {
  /** persistentVolumeClaim or ephemeral: may back a volumeDevice. */
  pvc: boolean;
}

type SourceValidator = (r: Reader, src: JsonObject, path: FieldPath, ctx: { volName: string; podName?: string }) => FieldError[];

const sourceValidators: Partial<Record<(typeof VOLUME_SOURCES)[number], SourceValidator>> = {
  emptyDir: (r, src, path) => {
    const errs: FieldError[] = [];
    const q = readQuantity(r, src.sizeLimit, path.child("sizeLimit"), errs);
    if (q && q.nanos < 0n) errs.push(forbidden(path.child("sizeLimit"), "SizeLimit field must be a valid resource quantity"));
    return errs;
  },
  hostPath: (r, src, path) => {
    const p = r.str(src.path, path.child("path")) ?? "";
    if (!p) return [required(path.child("path"))];
    const errs = validatePathNoBacksteps(p, path.child("path"));
    const t = r.str(src.type, path.child("type"));
    if (t !== undefined && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(path.child("type"), t, HOST_PATH_TYPES));
    return errs;
  },
  gitRepo: (r, src, path) => {
    const errs: FieldError[] = [];
    if (!r.str(src.repository, path.child("repository"))) errs.push(required(path.child("repository")));
    return [...errs, ...validateLocalDescendingPath(r.str(src.directory, path.child("directory")) ?? "", path.child("directory"))];
  },
  secret: (r, src, path) => {
    const errs: FieldError[] = [];
    if (!r.str(src.secretName, path.child("secretName"))) errs.push(required(path.child("secretName")));
    errs.push(...validateFileMode(r, src.defaultMode, path.child("defaultMode")));
    for (const { item, index } of r.objList(src.items, path.child("items"))) errs.push(...validateKeyToPath(r, item, path.child("items").index(index)));
    return errs;
  },
  configMap: (r, src, path) => {
    const errs: FieldError[] = [];
    if (!r.str(src.name, path.child("name"))) errs.push(required(path.child("name")));
    errs.push(...validateFileMode(r, src.defaultMode, path.child("defaultMode")));
    for (const { item, index } of r.objList(src.items, path.child("items"))) errs.push(...validateKeyToPath(r, item, path.child("items").index(index)));
    return errs;
  },
  persistentVolumeClaim: (r, src, path) => (r.str(src.claimName, path.child("claimName")) ? [] : [required(path.child("claimName"))]),
  nfs: (r, src, path) => {
    const errs: FieldError[] = [];
    const server = r.str(src.server, path.child("server")) ?? "";
    const p = r.str(src.path, path.child("path")) ?? "";
    if (!server) errs.push(required(path.child("server")));
    if (!p) errs.push(required(path.child("path")));
    if (!p.startsWith("/")) errs.push(invalid(path.child("path"), p, "must be an absolute path"));
    return errs;
  },
  downwardAPI: (r, src, path) => {
    const errs = validateFileMode(r, src.defaultMode, path.child("defaultMode"));
    for (const { item } of r.objList(src.items, path.child("items"))) errs.push(...validateDownwardAPIFile(r, item, path));
    return errs;
  },
  projected: (r, src, path) => validateProjected(r, src, path),
  csi: (r, src, path) => {
    const errs: FieldError[] = [];
    const driver = r.str(src.driver, path.child("driver")) ?? "";
    if (!driver) errs.push(required(path.child("driver")));
    if (driver.length > 63) errs.push(tooLong(path.child("driver"), 63));
    for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(path.child("driver"), driver, msg));
    return errs;
  },
  ephemeral: (r, src, path, ctx) => {
    const errs: FieldError[] = [];
    const tpl = r.obj(src.volumeClaimTemplate, path.child("volumeClaimTemplate"));
    if (!tpl) errs.push(required(path.child("volumeClaimTemplate")));
    else {
      const tp = path.child("volumeClaimTemplate");
      const meta = r.obj(tpl.metadata, tp.child("metadata")) ?? {};
      errs.push(...validateAnnotations(r.strMap(meta.annotations, tp.child("metadata", "annotations")), tp.child("metadata", "annotations")));
      errs.push(...validateLabels(r.strMap(meta.labels, tp.child("metadata", "labels")), tp.child("metadata", "labels")));
      for (const k of Object.keys(meta))
        if (k !== "labels" && k !== "annotations" && meta[k] !== undefined && meta[k] !== null && meta[k] !== "")
          errs.push(forbidden(tp.child("metadata", k), "cannot be set for an ephemeral volume"));
      const spec = cloneJSON(r.obj(tpl.spec, tp.child("spec")) ?? {});
      defaultPvcSpec(spec);
      errs.push(...validatePvcSpec(r, spec, tp.child("spec")));
    }
    if (ctx.podName && ctx.volName) {
      const pvcName = `${ctx.podName}-${ctx.volName}`;
      for (const msg of nameIsDNSSubdomain(pvcName, false)) errs.push(invalid(path.child("name"), ctx.volName, `PVC name "${pvcName}": ${msg}`));
    }
    return errs;
  },
  image: (r, src, path) => (r.str(src.reference, path.child("reference")) ? [] : [required(path.child("reference"))]),
};

function validateDownwardAPIFile(r: Reader, file: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const p = r.str(file.path, path.child("path")) ?? "";
  if (!p) errs.push(required(path.child("path")));
  errs.push(...validateLocalNonReservedPath(p, path.child("path")));
  const fieldRef = r.obj(file.fieldRef, path.child("fieldRef"));
  const resourceFieldRef = r.obj(file.resourceFieldRef, path.child("resourceFieldRef"));
  if (fieldRef) {
    errs.push(...validateObjectFieldSelector(r, fieldRef, VOLUME_FIELD_PATHS, path.child("fieldRef")));
    if (resourceFieldRef) errs.push(invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
  } else if (resourceFieldRef) {
    errs.push(...validateResourceFieldSelector(r, resourceFieldRef, path.child("resourceFieldRef"), true));
  } else errs.push(required(path, "one of fieldRef and resourceFieldRef is required"));
  errs.push(...validateFileMode(r, file.mode, path.child("mode")));
  return errs;
}

function validateProjected(r: Reader, src: JsonObject, path: FieldPath): FieldError[] {
  const errs = validateFileMode(r, src.defaultMode, path.child("defaultMode"));
  const allPaths = new Set<string>();
  const addPath = (p: string, bad: unknown) => {
    if (!p) return;
    if (allPaths.has(p)) errs.push(invalid(path, bad, "conflicting duplicate paths"));
    allPaths.add(p);
  };
  for (const { item: source, index } of r.objList(src.sources, path.child("sources"))) {
    const sp = path.child("sources").index(index);
    let n = 0;
    for (const kind of ["secret", "configMap"] as const) {
      const s = r.obj(source[kind], sp.child(kind));
      if (!s) continue;
      n++;
      const name = r.str(s.name, sp.child(kind, "name")) ?? "";
      if (!name) errs.push(required(sp.child(kind, "name")));
      for (const { item, index: i } of r.objList(s.items, sp.child(kind, "items"))) {
        errs.push(...validateKeyToPath(r, item, sp.child(kind, "items").index(i)));
        addPath(typeof item.path === "string" ? item.path : "", name);
      }
    }
    const dapi = r.obj(source.downwardAPI, sp.child("downwardAPI"));
    if (dapi) {
      n++;
      for (const { item } of r.objList(dapi.items, sp.child("downwardAPI", "items"))) {
        errs.push(...validateDownwardAPIFile(r, item, sp.child("downwardAPI")));
        if (typeof item.path === "string") addPath(item.path, item.path);
      }
    }
    const sat = r.obj(source.serviceAccountToken, sp.child("serviceAccountToken"));
    if (sat) {
      n++;
      const tp = sp.child("serviceAccountToken");
      const exp = r.int64(sat.expirationSeconds, tp.child("expirationSeconds")) ?? 3600;
      if (exp < 600) errs.push(invalid(tp.child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"));
      if (exp > 2 ** 32) errs.push(invalid(tp.child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"));
      const p = r.str(sat.path, tp.child("path")) ?? "";
      if (!p) errs.push(required(path.child("path")));
      else {
        errs.push(...validateLocalNonReservedPath(p, tp.child("path")));
        addPath(p, p);
      }
    }
    if (r.obj(source.clusterTrustBundle, sp.child("clusterTrustBundle"))) n++;
    if (r.obj(source.podCertificate, sp.child("podCertificate"))) n++;
    if (n > 1) errs.push(forbidden(sp, "may not specify more than 1 volume type"));
  }
  return errs;
}

function validateVolumeSource(r: Reader, vol: JsonObject, path: FieldPath, volName: string, podName: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const key of VOLUME_SOURCES) {
    if (vol[key] === undefined || vol[key] === null) continue;
    const src = r.obj(vol[key], path.child(key));
    if (n > 0) {
      errs.push(forbidden(path.child(FORBIDDEN_SEGMENT[key] ?? key), "may not specify more than 1 volume type"));
      continue;
    }
    n++;
    if (src) errs.push(...(sourceValidators[key]?.(r, src, path.child(key), { volName, podName }) ?? []));
  }
  if (n === 0) errs.push(required(path, "must specify a volume type"));
  return errs;
}

/**
 * validateVolumes checks the pod's volumes and returns the valid ones by name (what volumeMounts
 * may refer to). `podName` enables the generic-ephemeral PVC name check.
 */
export function validateVolumes(
  r: Reader,
  volumes: unknown,
  podName: string | undefined,
  path: FieldPath,
): { volumes: Map<string, VolumeInfo>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const valid = new Map<string, VolumeInfo>();
  const list = r.objList(volumes, path);
  const createdPvcs = new Set(
    podName ? list.filter(({ item }) => item.ephemeral !== undefined && item.ephemeral !== null).map(({ item }) => `${podName}-${String(item.name)}`) : [],
  );
  const seen = new Set<string>();
  for (const { item: vol, index } of list) {
    const ip = path.index(index);
    const name = r.str(vol.name, ip.child("name")) ?? "";
    const el = validateVolumeSource(r, vol, ip, name, podName);
    if (!name) el.push(required(ip.child("name")));
    else for (const msg of isDNS1123Label(name)) el.push(invalid(ip.child("name"), name, msg));
    if (seen.has(name)) el.push(duplicate(ip.child("name"), name));
    if (el.length === 0) {
      seen.add(name);
      valid.set(name, { pvc: isPvcSource(vol) });
    } else errors.push(...el);
    const claimName = (vol.persistentVolumeClaim as JsonObject | undefined)?.claimName;
    if (createdPvcs.size > 0 && typeof claimName === "string" && createdPvcs.has(claimName))
      errors.push(invalid(ip.child("persistentVolumeClaim", "claimName"), claimName, "must not reference a PVC that gets created for an ephemeral volume"));
  }
  return { volumes: valid, errors };
}

const isPvcSource = (vol: JsonObject): boolean =>
  (vol.persistentVolumeClaim !== undefined && vol.persistentVolumeClaim !== null) || (vol.ephemeral !== undefined && vol.ephemeral !== null);

