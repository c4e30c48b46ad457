/**
 * Apply-time checks of what the apiserver only finds when the set's pods and PVCs are created
 * (issue 4): build the pod the planner would create for the first ordinal and the PVCs it needs,
 * run pod and PVC create validation on them, and report each error at the StatefulSet field it
 * comes from, keeping the apiserver's type and detail and saying it would fail at creation.
 *
 * Errors about what the set itself controls are dropped (pod name, hostname, labels, namespace,
 * the claim volumes it injects) unless the set's own fields make them invalid: a bad serviceName
 * is reported at spec.serviceName, a bad claim template name at its metadata.name; the set's name
 * is checked for room for "-<ordinal>" in a 63-character hostname separately (see statefulset.ts).
 * Images are checked against the reference grammar (image-ref.ts) unless allowInvalidImageRefs.
 */
import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { getClaimName } from "../objects/names.ts";
import { newStatefulSetPod } from "../objects/pod.ts";
import { ordinalAt } from "../objects/ordinal-range.ts";
import { rawOrdinalRange } from "./statefulset-ordinal.ts";
import { type FieldError, FieldPath, invalid, typeInvalid } from "./field-error.ts";
import { goQuote } from "./go-format.ts";
import { parseImageReference } from "./image-ref.ts";
import { type JsonObject, isObject, jsonType } from "./json.ts";
import { validateLabels } from "./labels.ts";
import { validateAnnotations } from "./meta.ts";
import { isDNS1123Label } from "./names.ts";
import { type PodValidationOptions, validatePodCreate } from "./pod.ts";
import { validatePvcNameAndSpec } from "./pvc.ts";
import type { Steps } from "./steps.ts";

export interface PodCheckOptions extends PodValidationOptions {
  /** Accept images that do not parse as references (default: refuse them). */
  allowInvalidImageRefs?: boolean;
}

const POD_SUFFIX = "would fail at pod creation";
const PVC_SUFFIX = "would fail at PVC creation";

function withSuffix(e: FieldError, field: string, suffix: string, detailPrefix = ""): FieldError {
  let detail = e.detail;
  if (e.type === "FieldValueTypeInvalid" && detail.startsWith(`${e.field} in body`)) detail = field + detail.slice(e.field.length);
  detail = detailPrefix + detail;
  return { ...e, field, detail: detail ? `${detail} (${suffix})` : suffix };
}

const wrongType = (path: string, v: unknown, expected: string): FieldError =>
  typeInvalid(path, jsonType(v), `${path} in body must be of type ${expected}: "${jsonType(v)}"`);

/** Where a pod volume came from: a claim template (its index in the set) or a template volume. */
type VolumeOrigin = { claim: number } | { template: number };

type ClaimTemplate = NonNullable<StatefulSet["spec"]["volumeClaimTemplates"]>[number];

interface Sanitized {
  /** The set without its claim templates, for StatefulSetSchema to parse. */
  set: unknown;
  /** The claim templates, already in the schema's shape (parsing them would only copy each). */
  claims: ClaimTemplate[];
  claimIndex: number[];
  volumeOrigins: VolumeOrigin[];
  placeholderVolumes: Set<number>;
  errors: FieldError[];
}

const strMapOf = (v: unknown): Record<string, string> | undefined =>
  isObject(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === "string")) as Record<string, string>) : undefined;

/** sanitize builds an object StatefulSetSchema accepts from the parts of raw input the builders use. */
function sanitize(raw: JsonObject): Sanitized {
  const errors: FieldError[] = [];
  const meta = isObject(raw.metadata) ? raw.metadata : {};
  const spec = isObject(raw.spec) ? raw.spec : {};
  const template = isObject(spec.template) ? spec.template : {};
  const tmeta = isObject(template.metadata) ? template.metadata : {};
  // A shallow copy: only the two lists below are replaced; newStatefulSetPod copies the rest.
  const tspec: JsonObject = isObject(template.spec) ? { ...template.spec } : {};
  // Wrong types the builders cannot take: reported here, replaced by harmless placeholders.
  const placeholderVolumes = new Set<number>();
  for (const key of ["volumes", "readinessGates"]) {
    const v = tspec[key];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) {
      errors.push(wrongType(`spec.template.spec.${key}`, v, "array"));
      delete tspec[key];
      continue;
    }
    tspec[key] = v.map((item, i) => {
      if (isObject(item)) return item;
      errors.push(wrongType(`spec.template.spec.${key}[${i}]`, item, "object"));
      if (key === "readinessGates") return { conditionType: "ordinal.dev/placeholder" };
      placeholderVolumes.add(i);
      return { name: `ordinal-placeholder-${i}`, emptyDir: {} };
    });
  }
  const claimIndex: number[] = [];
  const claims: ClaimTemplate[] = [];
  if (Array.isArray(spec.volumeClaimTemplates))
    spec.volumeClaimTemplates.forEach((c: unknown, i: number) => {
      if (!isObject(c)) return;
      const cm = isObject(c.metadata) ? c.metadata : {};
      claimIndex.push(i);
      claims.push({
        metadata: { name: typeof cm.name === "string" ? cm.name : "", labels: strMapOf(cm.labels), annotations: strMapOf(cm.annotations) },
        spec: isObject(c.spec) ? c.spec : {},
      });
    });
  const volumeOrigins: VolumeOrigin[] = claims.map((_, i) => ({ claim: claimIndex[i] }));
  const templateVolumes = Array.isArray(tspec.volumes) ? (tspec.volumes as JsonObject[]) : [];
  const claimNames = templateVolumes.length === 0 ? new Set<string>() : new Set(claims.map((c) => c.metadata.name));
  templateVolumes.forEach((v, i) => {
    if (claims.length === 0 || !claimNames.has(v.name as string)) volumeOrigins.push({ template: i });
  });
  const ordinals = isObject(spec.ordinals) ? spec.ordinals : {};
  const start = Number.isInteger(ordinals.start) && (ordinals.start as number) >= 0 && (ordinals.start as number) <= 2147483647 ? ordinals.start : 0;
  const selector = isObject(spec.selector) ? spec.selector : {};
  const set = {
    metadata: { name: typeof meta.name === "string" ? meta.name : "", namespace: typeof meta.namespace === "string" ? meta.namespace : undefined },
    spec: {
      selector: { matchLabels: strMapOf(selector.matchLabels) ?? {} },
      template: { metadata: { labels: strMapOf(tmeta.labels), annotations: strMapOf(tmeta.annotations) }, spec: tspec },
      serviceName: typeof spec.serviceName === "string" ? spec.serviceName : "",
      ordinals: { start },
    },
  };
  return { set, claims, claimIndex, volumeOrigins, placeholderVolumes, errors };
}

const VOLUME_FIELD = /^spec\.volumes\[(\d+)\](.*)$/;
const CLAIM_FIELD = /^spec\.(.*)$/;

/** mapPodError returns the set field for a pod error, or undefined when the set controls that field. */
function mapPodField(field: string, origins: VolumeOrigin[], placeholders: Set<number>): { field: string } | undefined {
  if (field === "metadata" || field.startsWith("metadata.")) return undefined;
  if (field === "spec.hostname") return undefined;
  if (field === "spec.subdomain") return { field: "spec.serviceName" };
  const m = VOLUME_FIELD.exec(field);
  if (m) {
    const origin = origins[Number(m[1])];
    if (!origin) return undefined;
    if ("claim" in origin) return { field: `spec.volumeClaimTemplates[${origin.claim}].metadata.name` };
    if (placeholders.has(origin.template)) return undefined;
    return { field: `spec.template.spec.volumes[${origin.template}]${m[2]}` };
  }
  if (field === "spec" || field.startsWith("spec.") || field.startsWith("spec[")) return { field: `spec.template.${field}` };
  return undefined;
}

/** Claim templates checked between two yields of podAndClaimSteps. */
const CLAIMS_PER_STEP = 200;

/**
 * podAndClaimSteps returns, in steps, the pod- and PVC-creation errors of a raw StatefulSet at set
 * fields (`upstreamFields`: fields the apiserver's own StatefulSet rules already reported, not
 * repeated); it yields after the pod and after every CLAIMS_PER_STEP claims.
 */
export function* podAndClaimSteps(raw: JsonObject, upstreamFields: ReadonlySet<string>, opts: PodCheckOptions = {}): Steps<FieldError[]> {
  const s = sanitize(raw);
  const out: FieldError[] = [...s.errors];
  const parsed = StatefulSetSchema.safeParse(s.set);
  if (!parsed.success) return out;
  const set = parsed.data;
  if (s.claims.length) set.spec.volumeClaimTemplates = s.claims;
  // The first replica (objects/ordinal-range.ts): the pod and claims every scale-up makes first.
  const ordinal = ordinalAt(rawOrdinalRange(isObject(raw.spec) ? raw.spec : {}, 1), 0);

  const pod = newStatefulSetPod(set, ordinal);
  // Duplicates are kept: validateStatefulSet drops them by message (and Required where mistyped) at the end.
  for (const e of validatePodCreate(pod, { ...opts, consumePod: true, keepDuplicates: true })) {
    const mapped = mapPodField(e.field, s.volumeOrigins, s.placeholderVolumes);
    if (!mapped || upstreamFields.has(mapped.field)) continue;
    out.push(withSuffix(e, mapped.field, POD_SUFFIX));
  }

  yield;

  const setNameValid = !!set.metadata.name && isDNS1123Label(set.metadata.name).length === 0;
  for (let i = 0; i < s.claims.length; i++) {
    if (i > 0 && i % CLAIMS_PER_STEP === 0) yield;
    const base = `spec.volumeClaimTemplates[${s.claimIndex[i]}]`;
    const tpl = s.claims[i].metadata;
    const tplName = tpl.name;
    // The claim newClaims (objects/pod.ts) makes: its name and spec are checked as a PVC's; the rest
    // of its metadata is the set's selector and the template's labels and annotations (below).
    const claimName = getClaimName(set, tplName, ordinal);
    let namePrefix: string | undefined;
    for (const e of validatePvcNameAndSpec(claimName, s.claims[i].spec)) {
      if (e.field === "metadata.name") {
        // A bad set name is reported at metadata.name already; only the claim's part is blamed here.
        namePrefix ??= `PVC name ${goQuote(claimName)}: `;
        if (setNameValid) out.push(withSuffix({ ...e, badValue: e.type === "FieldValueRequired" ? e.badValue : tplName }, `${base}.metadata.name`, PVC_SUFFIX, namePrefix));
      } else if (!e.field.startsWith("metadata")) {
        const m = CLAIM_FIELD.exec(e.field);
        if (m) out.push(withSuffix(e, `${base}.spec.${m[1]}`, PVC_SUFFIX));
      }
    }
    const metaPath = FieldPath.root("spec", "volumeClaimTemplates").index(s.claimIndex[i]).child("metadata");
    for (const e of validateLabels(tpl.labels, metaPath.child("labels"))) out.push(withSuffix(e, e.field, PVC_SUFFIX));
    for (const e of validateAnnotations(tpl.annotations, metaPath.child("annotations"))) out.push(withSuffix(e, e.field, PVC_SUFFIX));
  }

  if (!opts.allowInvalidImageRefs) {
    const tspec = isObject(raw.spec) && isObject(raw.spec.template) && isObject(raw.spec.template.spec) ? raw.spec.template.spec : {};
    for (const key of ["initContainers", "containers"]) {
      const list = tspec[key];
      if (!Array.isArray(list)) continue;
      list.forEach((c: unknown, i: number) => {
        if (!isObject(c) || typeof c.image !== "string" || c.image.trim() === "" || c.image.trim() !== c.image) return;
        const ref = parseImageReference(c.image);
        const field = `spec.template.spec.${key}[${i}].image`;
        if (!ref.ok && !upstreamFields.has(field))
          out.push(invalid(field, c.image, `${ref.reason} (the kubelet would fail to pull it: InvalidImageName)`));
      });
    }
  }
  return out;
}
