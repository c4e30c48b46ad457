/**
 * Ordinal's rules for changing spec.volumeClaimTemplates of a stored set (apps.ordinal.dev only;
 * apps/v1 forbids any change). Templates may be added (each pod gets the new claim when it is
 * recreated), and a storage request may grow. Refused, with the field that says why:
 * - removing a template: its claims hold the pods' data, and a pod would lose its volume;
 * - a smaller storage request: a claim can only grow (the apiserver refuses a shrinking PVC too);
 * - with volumeClaimUpdateStrategy OnPodRollingUpdate, any other change of a template (storage
 *   class, access modes, labels…): it could not reach the existing claims, so the strategy's
 *   promise would not hold. With OnDelete such a change is accepted and applies to claims created
 *   from then on.
 * The same decision as Kruise's webhook for what may grow; Kruise and upstream refuse adding a template.
 */
import { type FieldError, FieldPath, forbidden, notSupported } from "./field-error.ts";
import type { JsonObject, Reader } from "./json.ts";
import { isObject } from "./json.ts";
import { parseQuantity } from "./quantity.ts";
import { claimTemplateKey } from "./statefulset-spec.ts";

const CLAIM_UPDATE_STRATEGIES = ["OnDelete", "OnPodRollingUpdate"];

/** volumeClaimUpdateType returns spec.volumeClaimUpdateStrategy.type as written ("OnDelete" when absent). */
function volumeClaimUpdateType(spec: JsonObject): unknown {
  const s = spec.volumeClaimUpdateStrategy;
  return isObject(s) && s.type !== undefined && s.type !== null ? s.type : "OnDelete";
}

/** validateVolumeClaimUpdateStrategy checks spec.volumeClaimUpdateStrategy's shape and type. */
export function validateVolumeClaimUpdateStrategy(r: Reader, spec: JsonObject, p: FieldPath): FieldError[] {
  const path = p.child("volumeClaimUpdateStrategy");
  const s = r.obj(spec.volumeClaimUpdateStrategy, path);
  if (!s) return [];
  const type = r.str(s.type, path.child("type"));
  return type !== undefined && !CLAIM_UPDATE_STRATEGIES.includes(type) ? [notSupported(path.child("type"), type, CLAIM_UPDATE_STRATEGIES)] : [];
}

interface Template {
  name: string;
  index: number;
  value: JsonObject;
}

function templates(spec: JsonObject): Template[] {
  const list = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  const out: Template[] = [];
  list.forEach((t, index) => {
    const name = isObject(t) && isObject(t.metadata) ? t.metadata.name : undefined;
    if (isObject(t) && typeof name === "string") out.push({ name, index, value: t });
  });
  return out;
}

/** storageOf returns a template's requests.storage as written (undefined when absent). */
function storageOf(t: JsonObject): string | number | undefined {
  const spec = isObject(t.spec) ? t.spec : {};
  const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {};
  const s = requests.storage;
  return typeof s === "string" || typeof s === "number" ? s : undefined;
}

const nanos = (v: string | number | undefined): bigint | undefined => {
  if (v === undefined) return undefined;
  const q = parseQuantity(v);
  return q.ok ? q.quantity.nanos : undefined;
};

/** withoutStorage returns a copy of a template without its storage request (what else it says). */
function withoutStorage(t: JsonObject): unknown {
  const copy = structuredClone(t);
  const spec = isObject(copy.spec) ? copy.spec : undefined;
  if (spec && isObject(spec.resources) && isObject(spec.resources.requests)) delete spec.resources.requests.storage;
  return copy;
}

/** validateClaimTemplatesUpdate returns the errors of changing `oldSpec`'s claim templates into `spec`'s. */
export function validateClaimTemplatesUpdate(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root("spec", "volumeClaimTemplates");
  const now = templates(spec);
  const before = new Map(templates(oldSpec).map((t) => [t.name, t]));
  const names = new Set(now.map((t) => t.name));
  for (const name of before.keys())
    if (!names.has(name))
      errs.push(forbidden(path, `volume claim template "${name}" may not be removed: its claims hold the pods' data and each pod mounts one (templates may only be added)`));
  const rolling = volumeClaimUpdateType(spec) === "OnPodRollingUpdate";
  for (const t of now) {
    const old = before.get(t.name);
    if (!old) continue;
    const at = path.index(t.index);
    const [was, is] = [storageOf(old.value), storageOf(t.value)];
    const [wasN, isN] = [nanos(was), nanos(is)];
    if (wasN !== undefined && isN !== undefined && isN < wasN)
      errs.push(forbidden(at.child("spec", "resources", "requests", "storage"), `may not be less than the previous value ${String(was)}: a claim can only grow`));
    if (rolling && claimTemplateKey(withoutStorage(t.value)) !== claimTemplateKey(withoutStorage(old.value)))
      errs.push(
        forbidden(
          at,
          "with volumeClaimUpdateStrategy OnPodRollingUpdate only spec.resources.requests.storage may change (to a larger value): other changes (storage class, access modes, labels…) cannot reach the existing claims; with volumeClaimUpdateStrategy OnDelete they apply to new claims only",
        ),
      );
  }
  return errs;
}
