/**
 * spec.lifecycle of an Ordinal StatefulSet (OpenKruise's lifecycle hooks, src/core/lifecycle.ts):
 * preDelete and inPlaceUpdate, each with labelsHandler (label keys and values as on a pod),
 * finalizersHandler (finalizer names as on a pod, no duplicates) and markPodNotReady. Kruise's
 * other hooks (preNormal) are refused by name: the CRD would drop them silently, and a hook that
 * is dropped holds nothing.
 */
import type { FieldPath } from "./field-error.ts";
import { duplicate, type FieldError, forbidden, invalid } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { validateLabels } from "./labels.ts";
import { isQualifiedName } from "./names.ts";

const HOOKS = ["preDelete", "inPlaceUpdate"];
const HOOK_FIELDS = ["labelsHandler", "finalizersHandler", "markPodNotReady"];
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** validateLifecycle returns what is wrong with spec.lifecycle (`v`, untyped), every problem at once. */
export function validateLifecycle(r: Reader, v: unknown, p: FieldPath): FieldError[] {
  const lifecycle = r.obj(v, p);
  if (!lifecycle) return [];
  const errs: FieldError[] = [];
  for (const key of Object.keys(lifecycle)) {
    if (!HOOKS.includes(key)) errs.push(forbidden(p.child(key), `not supported: Ordinal's lifecycle hooks are ${HOOKS.join(" and ")}`));
  }
  for (const name of HOOKS) {
    const hp = p.child(name);
    const hook = r.obj(lifecycle[name], hp);
    if (!hook) continue;
    for (const key of Object.keys(hook)) if (!HOOK_FIELDS.includes(key)) errs.push(forbidden(hp.child(key), `not supported: a hook has ${HOOK_FIELDS.join(", ")}`));
    errs.push(...validateLabels(r.strMap(hook.labelsHandler, hp.child("labelsHandler")), hp.child("labelsHandler")));
    const fp = hp.child("finalizersHandler");
    const seen = new Set<string>();
    (r.strList(hook.finalizersHandler, fp) ?? []).forEach((f, i) => {
      for (const msg of isQualifiedName(f)) errs.push(invalid(fp.index(i), f, msg));
      if (!f.includes("/") && !STANDARD_FINALIZERS.has(f)) errs.push(invalid(fp.index(i), f, "name is neither a standard finalizer name nor is it fully qualified"));
      if (seen.has(f)) errs.push(duplicate(fp.index(i), f));
      seen.add(f);
    });
    r.bool(hook.markPodNotReady, hp.child("markPodNotReady"));
  }
  return errs;
}
