/**
 * ValidatePodSpec of pkg/apis/core/validation (current upstream) over a defaulted, untyped spec:
 * volumes, containers, init containers, policies, security context, DNS, scheduling, names.
 */
import { type FieldError, type FieldPath, duplicate, forbidden, invalid, notSupported, required } from "./field-error.ts";
import { type JsonObject, type Reader, isObject } from "./json.ts";
import { validateLabels } from "./labels.ts";
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from "./names.ts";
import { type ContainerOptions, validateContainers, validateInitContainers } from "./pod-containers.ts";
import { ipErrors, validateDNS } from "./pod-dns.ts";
import { validateTolerations, validateTopologySpread } from "./pod-scheduling.ts";
import { validatePodSecurityContext } from "./pod-security.ts";
import { validateVolumes } from "./pod-volumes.ts";

const MAX_INT32 = 2147483647;

/**
 * validatePodSpec is ValidatePodSpec over a defaulted, untyped pod spec. `podName` enables the
 * checks that need it (generic ephemeral volume PVC names).
 */
export function validatePodSpec(r: Reader, spec: JsonObject, podName: string | undefined, path: FieldPath, opts: ContainerOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const grace = r.int64(spec.terminationGracePeriodSeconds, path.child("terminationGracePeriodSeconds"));
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null)
    errs.push(required(path.child("terminationGracePeriodSeconds")));
  const gracePeriod = grace ?? 30;
  const sc = isObject(spec.securityContext) ? spec.securityContext : {};
  const hostUsers = sc.hostUsers !== false;
  const { volumes, errors: volErrs } = validateVolumes(r, spec.volumes, podName, path.child("volumes"));
  errs.push(...volErrs);
  errs.push(...validateContainers(r, spec.containers, volumes, gracePeriod, path.child("containers"), opts, hostUsers));
  const regularNames = (Array.isArray(spec.containers) ? spec.containers : []).map((c) => (isObject(c) && typeof c.name === "string" ? c.name : ""));
  errs.push(...validateInitContainers(r, spec.initContainers, regularNames, volumes, gracePeriod, path.child("initContainers"), opts, hostUsers));
  if (spec.hostNetwork === true)
    for (const { item: c, index } of r.objList(spec.containers, path.child("containers")))
      for (const { item: p, index: pi } of r.objList(c.ports, path.child("containers").index(index).child("ports")))
        if (p.hostPort !== p.containerPort)
          errs.push(invalid(path.child("containers").index(index).child("ports").index(pi).child("hostPort"), p.hostPort ?? 0, "must match `containerPort` when `hostNetwork` is true"));
  const restartPolicy = r.str(spec.restartPolicy, path.child("restartPolicy")) ?? "";
  if (restartPolicy === "") errs.push(required(path.child("restartPolicy")));
  else if (!["Always", "OnFailure", "Never"].includes(restartPolicy))
    errs.push(notSupported(path.child("restartPolicy"), restartPolicy, ["Always", "OnFailure", "Never"]));
  errs.push(...validateLabels(r.strMap(spec.nodeSelector, path.child("nodeSelector")), path.child("nodeSelector")));
  errs.push(...validatePodSecurityContext(r, spec, path.child("securityContext")));
  for (const { item, index } of r.objList(spec.imagePullSecrets, path.child("imagePullSecrets")))
    if (Object.keys(item).some((k) => k !== "name")) errs.push(invalid(path.child("imagePullSecrets").index(index), item, "only name may be set"));
  errs.push(...validateDNS(r, spec, path));
  for (const { item, index } of r.objList(spec.readinessGates, path.child("readinessGates"))) {
    const gp = path.child("readinessGates").index(index).child("conditionType");
    const ct = r.str(item.conditionType, gp) ?? "";
    errs.push(...isQualifiedName(ct).map((m) => invalid(gp, ct, m)));
  }
  const gateNames = new Set<string>();
  for (const { item, index } of r.objList(spec.schedulingGates, path.child("schedulingGates"))) {
    const gp = path.child("schedulingGates").index(index);
    const name = r.str(item.name, gp.child("name")) ?? "";
    errs.push(...isQualifiedName(name).map((m) => invalid(gp, name, m)));
    if (gateNames.has(name)) errs.push(duplicate(gp, name));
    gateNames.add(name);
  }
  errs.push(...validateTopologySpread(r, spec.topologySpreadConstraints, path.child("topologySpreadConstraints")));
  if (sc.hostUsers === false)
    for (const [f, child] of [["hostNetwork", "hostNetwork"], ["hostPID", "HostPID"], ["hostIPC", "HostIPC"]])
      if (spec[f] === true) errs.push(forbidden(path.child(child), "when `pod.Spec.HostUsers` is false"));
  for (const [f, fn] of [
    ["serviceAccountName", nameIsDNSSubdomain],
    ["nodeName", nameIsDNSSubdomain],
    ["priorityClassName", nameIsDNSSubdomain],
  ] as const) {
    const v = r.str(spec[f], path.child(f)) ?? "";
    if (v) errs.push(...fn(v, false).map((m) => invalid(path.child(f), v, m)));
  }
  const ads = r.int64(spec.activeDeadlineSeconds, path.child("activeDeadlineSeconds"));
  if (ads !== undefined && (ads < 1 || ads > MAX_INT32)) errs.push(invalid(path.child("activeDeadlineSeconds"), ads, inclusiveRangeError(1, MAX_INT32)));
  for (const f of ["hostname", "subdomain"]) {
    const v = r.str(spec[f], path.child(f)) ?? "";
    if (v) errs.push(...isDNS1123Label(v).map((m) => invalid(path.child(f), v, m)));
  }
  errs.push(...validateTolerations(r, spec.tolerations, path.child("tolerations")));
  for (const { item, index } of r.objList(spec.hostAliases, path.child("hostAliases"))) {
    const hp = path.child("hostAliases").index(index);
    errs.push(...ipErrors(hp.child("ip"), r.str(item.ip, hp.child("ip")) ?? ""));
    (r.strList(item.hostnames, hp.child("hostnames")) ?? []).forEach((h, j) =>
      errs.push(...isDNS1123Subdomain(h).map((m) => invalid(hp.child("hostnames").index(j), h, m))),
    );
  }
  const rcn = r.str(spec.runtimeClassName, path.child("runtimeClassName"));
  if (rcn !== undefined) errs.push(...nameIsDNSSubdomain(rcn, false).map((m) => invalid(path.child("runtimeClassName"), rcn, m)));
  const pp = r.str(spec.preemptionPolicy, path.child("preemptionPolicy"));
  if (pp === "") errs.push(required(path.child("preemptionPolicy")));
  else if (pp !== undefined && pp !== "PreemptLowerPriority" && pp !== "Never")
    errs.push(notSupported(path.child("preemptionPolicy"), pp, ["PreemptLowerPriority", "Never"]));
  const os = r.obj(spec.os, path.child("os"));
  if (os) {
    const name = r.str(os.name, path.child("os", "name")) ?? "";
    if (!name) errs.push(required(path.child("os", "name"), "cannot be empty"));
    else if (name !== "linux" && name !== "windows") errs.push(notSupported(path.child("os"), name, ["linux", "windows"]));
  }
  return errs;
}
