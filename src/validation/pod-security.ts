/**
 * Security contexts: ValidateSecurityContext (containers), validatePodSpecSecurityContext (pods)
 * and validateSeccompProfileField of pkg/apis/core/validation. Upstream checks no capability
 * names; only CAP_SYS_ADMIN together with allowPrivilegeEscalation=false is refused.
 */
import { type FieldError, type FieldPath, duplicate, forbidden, invalid, notSupported, required } from "./field-error.ts";
import type { JsonObject, Reader } from "./json.ts";
import { isValidGroupID, isValidUserID } from "./names.ts";
import { validateLocalDescendingPath } from "./pod-fields.ts";

export interface SecurityOptions {
  /** Whether the cluster allows privileged containers (kube-apiserver --allow-privileged). Default true. */
  allowPrivileged?: boolean;
}

/** validateSecurityContext is ValidateSecurityContext for a container. */
export function validateSecurityContext(r: Reader, sc: JsonObject, path: FieldPath, opts: SecurityOptions, hostUsers: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const privileged = r.bool(sc.privileged, path.child("privileged"));
  if (privileged === true && opts.allowPrivileged === false) errs.push(forbidden(path.child("privileged"), "disallowed by cluster policy"));
  for (const f of ["runAsUser", "runAsGroup"]) {
    const id = r.int64(sc[f], path.child(f));
    if (id !== undefined) errs.push(...isValidUserID(id).map((m) => invalid(path.child(f), id, m)));
  }
  const procMount = r.str(sc.procMount, path.child("procMount"));
  if (procMount !== undefined) {
    if (procMount !== "Default" && procMount !== "Unmasked") errs.push(notSupported(path.child("procMount"), procMount, ["Default", "Unmasked"]));
    if (hostUsers && procMount === "Unmasked") errs.push(invalid(path.child("procMount"), procMount, "`hostUsers` must be false to use `Unmasked`"));
  }
  errs.push(...validateSeccompProfile(r, sc.seccompProfile, path.child("seccompProfile")));
  if (r.bool(sc.allowPrivilegeEscalation, path.child("allowPrivilegeEscalation")) === false) {
    if (privileged === true) errs.push(invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    const caps = r.obj(sc.capabilities, path.child("capabilities"));
    for (const cap of r.strList(caps?.add, path.child("capabilities", "add")) ?? [])
      if (cap === "CAP_SYS_ADMIN") errs.push(invalid(path, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
  }
  return errs;
}

/** validateSeccompProfile is validateSeccompProfileField (pod or container). */
function validateSeccompProfile(r: Reader, v: unknown, path: FieldPath): FieldError[] {
  const sp = r.obj(v, path);
  if (!sp) return [];
  const errs: FieldError[] = [];
  const type = r.str(sp.type, path.child("type")) ?? "";
  const supported = ["Localhost", "RuntimeDefault", "Unconfined"];
  if (type === "") errs.push(required(path.child("type"), "type is required when seccompProfile is set"));
  else if (!supported.includes(type)) errs.push(notSupported(path.child("type"), type, supported));
  const lp = r.str(sp.localhostProfile, path.child("localhostProfile"));
  if (type === "Localhost") {
    if (lp === undefined) errs.push(required(path.child("localhostProfile"), "must be set when seccomp type is Localhost"));
    else errs.push(...validateLocalDescendingPath(lp, path.child("localhostProfile")));
  } else if (lp !== undefined) errs.push(invalid(path.child("localhostProfile"), sp, "can only be set when seccomp type is Localhost"));
  return errs;
}

export function validatePodSecurityContext(r: Reader, spec: JsonObject, path: FieldPath): FieldError[] {
  const sc = r.obj(spec.securityContext, path);
  if (!sc) return [];
  const errs: FieldError[] = [];
  for (const f of ["fsGroup", "runAsGroup", "runAsUser"]) {
    const id = r.int64(sc[f], path.child(f));
    if (id !== undefined) errs.push(...(f === "runAsUser" ? isValidUserID(id) : isValidGroupID(id)).map((m) => invalid(path.child(f), id, m)));
  }
  (r.arr(sc.supplementalGroups, path.child("supplementalGroups")) ?? []).forEach((g, i) => {
    const gid = r.int64(g, path.child("supplementalGroups").index(i));
    if (gid !== undefined) errs.push(...isValidGroupID(gid).map((m) => invalid(path.child("supplementalGroups").index(i), gid, m)));
  });
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    errs.push(invalid(path.child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"));
  const sysctlNames = new Set<string>();
  for (const { item, index } of r.objList(sc.sysctls, path.child("sysctls"))) {
    const np = path.child("sysctls").index(index).child("name");
    const name = r.str(item.name, np) ?? "";
    if (!name) errs.push(required(np));
    else if (name.length > 253 || !/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/.test(name))
      errs.push(invalid(np, name, "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"));
    else if (sysctlNames.has(name)) errs.push(duplicate(np, name));
    sysctlNames.add(name);
  }
  const fsgcp = r.str(sc.fsGroupChangePolicy, path.child("fsGroupChangePolicy"));
  if (fsgcp !== undefined && fsgcp !== "Always" && fsgcp !== "OnRootMismatch")
    errs.push(notSupported(path.child("fsGroupChangePolicy"), fsgcp, ["Always", "OnRootMismatch"]));
  errs.push(...validateSeccompProfile(r, sc.seccompProfile, path.child("seccompProfile")));
  return errs;
}
