/**
 * ValidatePodSpecificAnnotations of pkg/apis/core/validation: the annotations with meaning for
 * pods (mirror pod, deletion cost, legacy seccomp and AppArmor profiles). Used for pods and for
 * a StatefulSet's pod template.
 */
import { type FieldError, type FieldPath, invalid } from "./field-error.ts";
import { isObject } from "./json.ts";
import { validateLocalDescendingPath } from "./pod-fields.ts";

const MAX_INT32 = 2147483647;

const SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod";

const SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/";

const APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/";

function seccompAnnotationErrors(p: string, path: FieldPath): FieldError[] {
  if (p === "runtime/default" || p === "docker/default" || p === "unconfined") return [];
  if (p.startsWith("localhost/")) return validateLocalDescendingPath(p.slice("localhost/".length), path);
  return [invalid(path, p, "must be a valid seccomp profile")];
}

/**
 * validatePodSpecificAnnotations is ValidatePodSpecificAnnotations: the mirror-pod, deletion-cost,
 * seccomp and AppArmor annotations. `spec` is the (untyped) pod spec, for container names.
 */
export function validatePodSpecificAnnotations(annotations: Record<string, string> | undefined, spec: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const a = annotations ?? {};
  const s = isObject(spec) ? spec : {};
  if ("kubernetes.io/config.mirror" in a && !s.nodeName)
    errs.push(invalid(path.key("kubernetes.io/config.mirror"), a["kubernetes.io/config.mirror"], "must set spec.nodeName if mirror pod annotation is set"));
  const cost = a["controller.kubernetes.io/pod-deletion-cost"];
  if (cost !== undefined && (!/^[+-]?[0-9]+$/.test(cost) || Math.abs(Number(cost)) > MAX_INT32 + (cost.startsWith("-") ? 1 : 0)))
    errs.push(invalid(path.key("controller.kubernetes.io/pod-deletion-cost"), cost, "must be a 32bit integer"));
  if (SECCOMP_POD in a) errs.push(...seccompAnnotationErrors(a[SECCOMP_POD], path.child(SECCOMP_POD)));
  let names: Set<string> | undefined; // the containers' names, collected when an AppArmor annotation needs them
  const containerNames = () => {
    names = new Set<string>();
    for (const key of ["containers", "initContainers", "ephemeralContainers"])
      if (Array.isArray(s[key])) for (const c of s[key] as unknown[]) if (isObject(c) && typeof c.name === "string") names.add(c.name);
    return names;
  };
  for (const [k, v] of Object.entries(a)) {
    if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...seccompAnnotationErrors(v, path.child(k)));
    if (k.startsWith(APPARMOR_PREFIX)) {
      const container = k.slice(APPARMOR_PREFIX.length);
      if (!(names ?? containerNames()).has(container)) errs.push(invalid(path.key(k), container, "container not found"));
      if (v !== "" && v !== "runtime/default" && v !== "unconfined" && !v.startsWith("localhost/"))
        errs.push(invalid(path.key(k), v, `invalid AppArmor profile name: "${v}"`));
    }
  }
  return errs;
}
