/**
 * The real kube-apiserver (1.20.2) as the oracle for src/validation: how its answers are recorded
 * and how src/validation is compared with them. Used live by test/e2e/validation-oracle.e2e.test.ts
 * and offline (from test/validation/oracle-recording.json, written by test/cluster/record-oracle.sh)
 * by test/validation/oracle-recording.test.ts. Needs no cluster itself: recording takes a `post`
 * function that sends one object by dry run.
 *
 * The corpus: every variant of test/e2e/variants.ts (hand-written mutations of every rule family,
 * the upstream corpus, and randomized combinations from a seeded generator). For each, the pods
 * (first and highest ordinal) and PVCs the set implies, built with the planner's builders
 * (src/objects/pod.ts), and the set itself as an apps/v1 StatefulSet.
 *
 * Pod/PVC checks: the (field, reason) pairs of the 422 causes are mapped to StatefulSet paths and
 * must equal the pairs validateStatefulSet reports from its pod/PVC checks.
 * How the oracle's pairs are mapped (pod = the pod of the set's ordinal, PVC i = claim template i):
 *   pod spec.volumes[k]…   → the claim template (its metadata.name) or template volume it came from
 *   pod spec.hostname, pod metadata.name, identity label values → metadata.name (the set's name)
 *   pod spec.subdomain     → spec.serviceName
 *   pod spec.X             → spec.template.spec.X;  pod metadata.labels/annotations → the template's
 *   PVC metadata.name      → spec.volumeClaimTemplates[i].metadata.name
 *   PVC metadata.labels    → spec.volumeClaimTemplates[i].metadata.labels (the set's name when the
 *                            bad value is the set-name label)
 *   PVC spec.X             → spec.volumeClaimTemplates[i].spec.X
 * A pair at a field the set-level rules already reported is not expected again from the pod checks
 * (validateStatefulSet does not repeat an error where the apiserver's own StatefulSet rule fired),
 * nor is a PVC name error when the set-level rules refused the set's name (`<claim>-<set>-<n>`:
 * the set's name is blamed, at metadata.name).
 * A 400 (the apiserver could not decode the object: an unparsable quantity) has no causes: then
 * the pod (or that PVC) agrees when Ordinal reports the same decode reason among its errors.
 *
 * apps/v1 admission: the apiserver's pairs for the set against
 * validateStatefulSet({group: "apps", checkPods: false}), fields 1.20 does not have left out.
 *
 * Exceptions — where 1.20 and current upstream legitimately disagree; Ordinal follows current
 * upstream (each names the variant; the difference must be exactly the one declared): see
 * EXCEPTIONS and SET_EXCEPTIONS below. Random variants never use these mutations.
 */
import { createHash } from "node:crypto";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { newClaims, newStatefulSetPod } from "../../src/objects/pod.ts";
import { ApiError } from "../../src/kube/client.ts";
import { type FieldError, formatFieldError, validateStatefulSet } from "../../src/validation/index.ts";
import { allVariants, type Raw, type Variant } from "../e2e/variants.ts";

/** The seed and random-variant count of the checked-in recording (and the e2e default). */
export const DEFAULT_SEED = 12035770;
export const DEFAULT_RANDOM_COUNT = 100;
/** The namespace the recorder sends its objects to (the recording's answers name it). */
export const RECORDING_NAMESPACE = "ordinal-oracle";
/** The owner uid of the pods and PVCs built for the oracle: fixed, so a recording is reproducible. */
const OWNER_UID = "00000000-0000-4000-8000-000000000001";

/** A (field, reason) pair, printed as `field reason`. */
type Pair = string;
const pair = (field: string, reason: string): Pair => `${field} ${reason}`;

interface Exception {
  why: string;
  /** Pairs only the 1.20 apiserver reports. */
  onlyOracle?: Pair[];
  /** Pairs only Ordinal reports. */
  onlyOrdinal?: Pair[];
}

/** Pod/PVC checks: where 1.20 and current upstream disagree (see the header). */
const EXCEPTIONS: Record<string, Exception> = {
  "env-name-leading-digit": {
    why: "1.20 requires C-identifier-like env var names; current upstream accepts any printable ASCII but '='",
    onlyOracle: [pair("spec.template.spec.containers[0].env[0].name", "FieldValueInvalid")],
  },
  "claim-accessMode-ReadWriteOncePod": {
    why: "ReadWriteOncePod is an access mode from 1.22 on; 1.20 does not know it",
    onlyOracle: [pair("spec.volumeClaimTemplates[0].spec.accessModes", "FieldValueNotSupported")],
  },
  "claim-dataSource-without-name": {
    why: "current upstream copies a lone dataSource to dataSourceRef before validating (NormalizeDataSources, 1.24+); 1.20 has no dataSourceRef",
    onlyOrdinal: [pair("spec.volumeClaimTemplates[0].spec.dataSourceRef.name", "FieldValueRequired")],
  },
  "host-network-host-port-mismatch": {
    why: "with hostNetwork, 1.20 blames containerPort; current upstream reports the same rule at hostPort",
    onlyOracle: [pair("spec.template.spec.containers[0].ports[0].containerPort", "FieldValueInvalid")],
    onlyOrdinal: [pair("spec.template.spec.containers[0].ports[0].hostPort", "FieldValueInvalid")],
  },
  "hostAliases-ip-invalid": {
    why: "1.20 reports a bad host alias IP at spec.hostAliases.ip (no index); current upstream at spec.hostAliases[i].ip",
    onlyOracle: [pair("spec.template.spec.hostAliases.ip", "FieldValueInvalid")],
    onlyOrdinal: [pair("spec.template.spec.hostAliases[0].ip", "FieldValueInvalid")],
  },
  "terminationMessagePolicy-invalid": {
    why: "1.20 answers an unknown terminationMessagePolicy with Invalid; current upstream with NotSupported",
    onlyOracle: [pair("spec.template.spec.containers[1].terminationMessagePolicy", "FieldValueInvalid")],
    onlyOrdinal: [pair("spec.template.spec.containers[1].terminationMessagePolicy", "FieldValueNotSupported")],
  },
  "hugepages-limit-not-a-page-multiple": {
    why: "current upstream requires a huge page limit to be a multiple of the page size; 1.20 did not check",
    onlyOrdinal: [pair("spec.template.spec.containers[1].resources.limits[hugepages-2Mi]", "FieldValueInvalid")],
  },
  "container-seccomp-localhost-profile-with-backsteps": {
    why: "1.20 copies seccompProfile into the deprecated seccomp annotations and refuses those too; current upstream no longer syncs them (1.27)",
    onlyOracle: [pair("spec.template.metadata.annotations", "FieldValueInvalid")],
  },
  "container-procMount-invalid": {
    why: "procMount is behind the ProcMountType gate, off in 1.20 (the field is dropped); current upstream validates it",
    onlyOrdinal: [pair("spec.template.spec.containers[1].securityContext.procMount", "FieldValueNotSupported")],
  },
};

/** apps/v1 admission: where 1.20 and current upstream disagree. */
const SET_EXCEPTIONS: Record<string, Exception> = {
  "set-name-with-dot": {
    why: "1.20 accepts any DNS subdomain as a StatefulSet name; current upstream requires a DNS label",
    onlyOrdinal: [pair("metadata.name", "FieldValueInvalid")],
  },
  "set-name-64-characters": {
    why: "1.20 accepts any DNS subdomain (253 characters) as a StatefulSet name; current upstream requires a DNS label (63)",
    onlyOrdinal: [pair("metadata.name", "FieldValueInvalid")],
  },
};

/** Fields of apps/v1 that 1.20 does not have (it drops them on decode): not compared. */
const NOT_IN_1_20 = ["spec.ordinals", "spec.persistentVolumeClaimRetentionPolicy", "spec.updateStrategy.rollingUpdate.maxUnavailable", "spec.minReadySeconds"];

/** oracleVariants returns the corpus: every variant of variants.ts for the seed, random ones never combining a documented difference (its pairs would show up unexplained). */
export function oracleVariants(seed: number, randomCount: number): Variant[] {
  return allVariants(seed, randomCount, new Set(Object.keys(EXCEPTIONS)));
}

/** The names of the variants the documented exceptions are about (each must be in the corpus). */
export const EXCEPTION_NAMES = [...Object.keys(EXCEPTIONS), ...Object.keys(SET_EXCEPTIONS)];


interface Cause {
  reason?: string;
  message?: string;
  field?: string;
}

/** One recorded answer of the apiserver to a dry-run create: the status code, its causes (422), its message (anything else but success). */
export interface Answer {
  code: number;
  causes?: Cause[];
  message?: string;
}

/** The recorded answers for one variant: its pods (by ordinal), its PVCs (by ordinal and claim template index), the set as apps/v1. */
export interface RecordedVariant {
  name: string;
  family: string;
  /** sha256 of the variant's set (JSON), to notice a recording older than variants.ts. */
  sha256: string;
  pods: Array<{ ordinal: number; answer: Answer }>;
  claims: Array<{ ordinal: number; index: number; answer: Answer }>;
  set: Answer;
}

/** The checked-in file. */
export interface Recording {
  apiserver: string;
  seed: number;
  randomCount: number;
  namespace: string;
  variants: RecordedVariant[];
}

/** What the recorder can send: a pod, a PVC or an apps/v1 StatefulSet. */
type Kind = "pod" | "pvc" | "statefulset";
/** Sends obj to the apiserver with dryRun=All and resolves with the object (rejects with an ApiError on refusal). */
export type Post = (kind: Kind, obj: object) => Promise<unknown>;

/** stable returns the message with the Go pointers some values print as (`(*bool)(0xc0030…)`) blanked, so reruns record the same text. */
const stable = (msg: string | undefined): string | undefined => msg?.replace(/\b0xc[0-9a-f]{6,}\b/g, "0x…");

/** answerOf sends one object and returns the apiserver's answer as recorded (only ApiErrors are answers; anything else throws). */
async function answerOf(post: Post, kind: Kind, obj: object): Promise<Answer> {
  try {
    await post(kind, obj);
    return { code: 201 };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const status = (e.status ?? {}) as { message?: string; details?: { causes?: Cause[] } };
    if (e.code === 422) {
      // Sorted: the apiserver reports map entries (labels) in Go's random map order.
      const causes = (status.details?.causes ?? []).map((c) => ({ field: c.field, reason: c.reason, message: stable(c.message) }));
      return { code: 422, causes: causes.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
    }
    return { code: e.code, message: stable(status.message ?? e.message) };
  }
}

export const variantSha = (v: Variant): string => createHash("sha256").update(JSON.stringify(v.set)).digest("hex");

/** recordPodsAndClaims returns the answers to the pods (first and highest ordinal) and PVCs the variant implies, built as the planner builds them. */
export async function recordPodsAndClaims(v: Variant, ns: string, post: Post): Promise<Pick<RecordedVariant, "pods" | "claims">> {
  const { set, ordinals } = buildSet(v.set, ns);
  const pods: RecordedVariant["pods"] = [];
  const claims: RecordedVariant["claims"] = [];
  for (const ordinal of ordinals) {
    pods.push({ ordinal, answer: await answerOf(post, "pod", newStatefulSetPod(set, ordinal)) });
    for (const [index, claim] of newClaims(set, ordinal).entries()) claims.push({ ordinal, index, answer: await answerOf(post, "pvc", claim) });
  }
  return { pods, claims };
}

/** recordSet returns the answer to the variant as an apps/v1 StatefulSet in namespace ns. */
export async function recordSet(v: Variant, ns: string, post: Post): Promise<Answer> {
  return answerOf(post, "statefulset", { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { ...v.set.metadata, namespace: ns }, spec: v.set.spec });
}

type DryRun = { kind: "ok" } | { kind: "invalid"; causes: Cause[] } | { kind: "decode"; reason: string };

/** verdict reads a recorded answer: admitted, 422 with causes, or 400 (decode, with the decoder's reason); throws on anything else (a broken recording). */
function verdict(a: Answer | undefined): DryRun {
  if (!a) throw new Error("the recording lacks an answer this variant needs: rerun test/cluster/record-oracle.sh");
  if (a.code === 200 || a.code === 201) return { kind: "ok" };
  if (a.code === 422) return { kind: "invalid", causes: a.causes ?? [] };
  if (a.code === 400) {
    const msg = a.message ?? "";
    return { kind: "decode", reason: /unmarshalerDecoder: (.*?), error found/.exec(msg)?.[1] ?? msg };
  }
  throw new Error(`unexpected answer ${a.code}: ${a.message ?? ""}`);
}

/** One side of a comparison group: pairs, or a decode failure. */
interface Side {
  pairs: Set<Pair>;
  decode?: string;
  /** Pairs that are equally the set's name's fault (a PVC name): not expected when the set-level rules refused metadata.name. */
  setNameToo?: Set<Pair>;
}

/**
 * The groups compared: "pod" (the pods' errors), "pvc[i]" (claim template i's PVC, fields under
 * spec.volumeClaimTemplates[i]), "pvc" (PVC errors mapped elsewhere, e.g. the set's name).
 */
type Groups = Map<string, Side>;
const side = (g: Groups, key: string): Side => {
  let s = g.get(key);
  if (!s) g.set(key, (s = { pairs: new Set() }));
  return s;
};

const claimPrefix = (i: number) => `spec.volumeClaimTemplates[${i}].`;

/** The pod and PVC sources the planner builds from: the variant without the set-level fields pods do not depend on. */
function buildSet(raw: Raw, ns: string) {
  const spec = raw.spec ?? {};
  const set = StatefulSetSchema.parse({
    apiVersion: raw.apiVersion,
    kind: raw.kind,
    metadata: { name: raw.metadata?.name, namespace: ns, uid: OWNER_UID },
    spec: {
      selector: spec.selector,
      template: spec.template,
      serviceName: spec.serviceName,
      volumeClaimTemplates: spec.volumeClaimTemplates,
      ordinals: spec.ordinals,
    },
  });
  const start = set.spec.ordinals?.start ?? 0;
  const replicas = Number.isInteger(spec.replicas) && spec.replicas >= 0 ? spec.replicas : 1;
  const highest = start + Math.max(replicas, 1) - 1;
  return { set, ordinals: highest === start ? [start] : [start, highest] };
}

/** The 1.20 apiserver's recorded verdict on the variant's pods and PVCs, mapped to StatefulSet fields. */
function mapOracle(v: Variant, rec: RecordedVariant, ns: string): Groups {
  const { set, ordinals } = buildSet(v.set, ns);
  const groups: Groups = new Map();
  side(groups, "pod");
  const claims = set.spec.volumeClaimTemplates ?? [];
  claims.forEach((_, i) => side(groups, `pvc[${i}]`));
  side(groups, "pvc");
  // Where each pod volume comes from: claim volumes first, then the template's other volumes.
  const claimNames = new Set(claims.map((c) => c.metadata.name));
  const templateVolumes: Raw[] = Array.isArray(set.spec.template.spec?.volumes) ? set.spec.template.spec.volumes : [];
  const origins: string[] = [
    ...claims.map((_, i) => `${claimPrefix(i)}metadata.name`),
    ...templateVolumes.flatMap((vol, t) => (claims.length === 0 || !claimNames.has(vol?.name) ? [`spec.template.spec.volumes[${t}]`] : [])),
  ];
  const setName = set.metadata.name ?? "";
  const namesIn = (msg: string, names: string[]) => names.some((n) => msg.includes(JSON.stringify(n)));

  for (const ordinal of ordinals) {
    const podName = `${setName}-${ordinal}`;
    const res = verdict(rec.pods.find((p) => p.ordinal === ordinal)?.answer);
    const s = side(groups, "pod");
    if (res.kind === "decode") s.decode = res.reason;
    if (res.kind === "invalid")
      for (const c of res.causes) {
        const field = c.field ?? "";
        const msg = c.message ?? "";
        let mapped: string;
        const vm = /^spec\.volumes\[(\d+)\](.*)$/.exec(field);
        if (vm) {
          const origin = origins[Number(vm[1])];
          mapped = origin === undefined ? `pod:${field}` : origin.endsWith("metadata.name") ? origin : origin + vm[2];
        } else if (field === "metadata.name" || field === "spec.hostname") mapped = "metadata.name";
        else if (field.startsWith("metadata.labels")) mapped = namesIn(msg, [podName, setName, String(ordinal)]) ? "metadata.name" : "spec.template.metadata.labels";
        else if (field.startsWith("metadata.annotations")) mapped = "spec.template.metadata.annotations";
        else if (field === "spec.subdomain") mapped = "spec.serviceName";
        else if (field.startsWith("spec.") || field === "spec") mapped = `spec.template.${field}`;
        else mapped = `pod:${field}`;
        s.pairs.add(pair(mapped, c.reason ?? ""));
      }
    for (const [i] of newClaims(set, ordinal).entries()) {
      const r = verdict(rec.claims.find((c) => c.ordinal === ordinal && c.index === i)?.answer);
      const own = side(groups, `pvc[${i}]`);
      if (r.kind === "decode") own.decode = r.reason;
      if (r.kind !== "invalid") continue;
      for (const c of r.causes) {
        const field = c.field ?? "";
        const msg = c.message ?? "";
        let mapped: string;
        if (field === "metadata.name") {
          mapped = `${claimPrefix(i)}metadata.name`;
          (own.setNameToo ??= new Set()).add(pair(mapped, c.reason ?? ""));
        }
        else if (field.startsWith("metadata.labels")) mapped = namesIn(msg, [setName]) ? "metadata.name" : `${claimPrefix(i)}metadata.labels`;
        else if (field.startsWith("metadata.annotations")) mapped = `${claimPrefix(i)}metadata.annotations`;
        else if (field.startsWith("spec.")) mapped = `${claimPrefix(i)}${field}`;
        else mapped = `pvc:${field}`;
        side(groups, mapped.startsWith(claimPrefix(i)) ? `pvc[${i}]` : "pvc").pairs.add(pair(mapped, c.reason ?? ""));
      }
    }
  }
  return groups;
}

/** multisetMinus returns the errors of `a` not in `b` (by their printed form, counting repeats). */
function multisetMinus(a: FieldError[], b: FieldError[]): FieldError[] {
  const left = new Map<string, number>();
  for (const e of b) left.set(formatFieldError(e), (left.get(formatFieldError(e)) ?? 0) + 1);
  return a.filter((e) => {
    const k = formatFieldError(e);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      return false;
    }
    return true;
  });
}

/** Ordinal's verdict: the errors its pod/PVC checks add to the set-level ones, grouped like the oracle's. */
function ordinalVerdict(v: Variant, ns: string): { groups: Groups; setFields: Set<string>; errors: FieldError[] } {
  const obj = { ...v.set, metadata: { ...v.set.metadata, namespace: ns } };
  const full = validateStatefulSet(obj, undefined, { group: "apps.ordinal.dev", allowInvalidImageRefs: true }).errors;
  const setOnly = validateStatefulSet(obj, undefined, { group: "apps.ordinal.dev", checkPods: false }).errors;
  const podChecks = multisetMinus(full, setOnly);
  const groups: Groups = new Map();
  for (const e of podChecks) {
    const isPvc = e.detail.includes("would fail at PVC creation");
    const m = /^spec\.volumeClaimTemplates\[(\d+)\]\./.exec(e.field);
    const key = !isPvc ? "pod" : m ? `pvc[${m[1]}]` : "pvc";
    side(groups, key).pairs.add(pair(e.field, e.type));
  }
  const setFields = new Set(setOnly.map((e) => e.field));
  // The apiserver reports template labels and annotations at spec.template.labels/annotations.
  if (setFields.has("spec.template.labels")) setFields.add("spec.template.metadata.labels");
  if (setFields.has("spec.template.annotations")) setFields.add("spec.template.metadata.annotations");
  return { groups, setFields, errors: podChecks };
}

export interface Outcome {
  variant: Variant;
  agree: boolean;
  exception?: string;
  onlyOracle: Pair[];
  onlyOrdinal: Pair[];
  podRefused: boolean;
  pvcRefused: boolean;
  decode: boolean;
}

/** compare: per group, equal pair sets (oracle pairs at set-level fields dropped), or a decode failure Ordinal names too. */
function compare(v: Variant, oracleGroups: Groups, ours: ReturnType<typeof ordinalVerdict>): Outcome {
  const onlyOracle: Pair[] = [];
  const onlyOrdinal: Pair[] = [];
  let decode = false;
  const keys = new Set([...oracleGroups.keys(), ...ours.groups.keys()]);
  for (const key of keys) {
    const o = oracleGroups.get(key) ?? { pairs: new Set<Pair>() };
    const mine = ours.groups.get(key) ?? { pairs: new Set<Pair>() };
    if (o.decode) {
      decode = true;
      const details = ours.errors.filter((e) => mine.pairs.has(pair(e.field, e.type))).map((e) => e.detail);
      if (!details.some((d) => d.includes(o.decode!))) onlyOracle.push(`${key}: decode: ${o.decode}`);
      continue;
    }
    const covered = (p: Pair) => ours.setFields.has(p.slice(0, p.lastIndexOf(" "))) || (!!o.setNameToo?.has(p) && ours.setFields.has("metadata.name"));
    const expected = new Set([...o.pairs].filter((p) => !covered(p)));
    for (const p of expected) if (!mine.pairs.has(p)) onlyOracle.push(p);
    for (const p of mine.pairs) if (!expected.has(p)) onlyOrdinal.push(p);
  }
  const refused = (k: (key: string) => boolean) => [...oracleGroups].some(([key, s]) => k(key) && (s.pairs.size > 0 || !!s.decode));
  const ex = EXCEPTIONS[v.name];
  const exact = (a: Pair[], b: Pair[] = []) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  const agree = ex ? exact(onlyOracle, ex.onlyOracle) && exact(onlyOrdinal, ex.onlyOrdinal) : onlyOracle.length === 0 && onlyOrdinal.length === 0;
  return {
    variant: v,
    agree,
    exception: ex?.why,
    onlyOracle,
    onlyOrdinal,
    podRefused: refused((k) => k === "pod"),
    pvcRefused: refused((k) => k.startsWith("pvc")),
    decode,
  };
}


/** comparePodsAndClaims returns how the recorded pod/PVC answers and validateStatefulSet's pod/PVC checks compare for the variant. */
export function comparePodsAndClaims(v: Variant, rec: RecordedVariant, ns: string): Outcome {
  return compare(v, mapOracle(v, rec, ns), ordinalVerdict(v, ns));
}

export interface SetOutcome {
  variant: Variant;
  agree: boolean;
  onlyOracle: Pair[];
  onlyOrdinal: Pair[];
  /** "decode": the template does not decode (a quantity): a JSON error, not a StatefulSet rule; the pod check covers it. */
  skipped?: string;
  fired: boolean;
  exception?: string;
}

/** compareSet returns how the recorded apps/v1 answer and validateStatefulSet({group: "apps", checkPods: false}) compare. */
export function compareSet(v: Variant, answer: Answer, ns: string): SetOutcome {
  const res = verdict(answer);
  if (res.kind === "decode") return { variant: v, agree: true, onlyOracle: [], onlyOrdinal: [], skipped: "decode", fired: false };
  const theirs = new Set(res.kind === "invalid" ? res.causes.map((c) => pair(c.field ?? "", c.reason ?? "")) : []);
  const obj = { ...v.set, apiVersion: "apps/v1", metadata: { ...v.set.metadata, namespace: ns } };
  const mine = new Set(
    validateStatefulSet(obj, undefined, { group: "apps", checkPods: false })
      .errors.filter((e) => !NOT_IN_1_20.some((f) => e.field === f || e.field.startsWith(f + ".")))
      .map((e) => pair(e.field, e.type)),
  );
  const onlyOracle = [...theirs].filter((p) => !mine.has(p)).sort();
  const onlyOrdinal = [...mine].filter((p) => !theirs.has(p)).sort();
  const ex = SET_EXCEPTIONS[v.name];
  const want = { onlyOracle: [...(ex?.onlyOracle ?? [])].sort(), onlyOrdinal: [...(ex?.onlyOrdinal ?? [])].sort() };
  const agree = JSON.stringify({ onlyOracle, onlyOrdinal }) === JSON.stringify(want);
  return { variant: v, agree, onlyOracle, onlyOrdinal, fired: theirs.size > 0, exception: ex?.why };
}

/** summary returns the agreement counts of a run, one line for pods/PVCs and one for apps/v1 admission. */
export function summary(seed: number, outcomes: Outcome[], setOutcomes: SetOutcome[]): string {
  const agreeing = outcomes.filter((o) => o.agree);
  const pod = agreeing.filter((o) => o.podRefused).length;
  const pvc = agreeing.filter((o) => o.pvcRefused).length;
  const admitted = agreeing.filter((o) => !o.podRefused && !o.pvcRefused).length;
  const byFamily = new Map<string, [number, number]>();
  for (const o of outcomes) {
    const [a, n] = byFamily.get(o.variant.family) ?? [0, 0];
    byFamily.set(o.variant.family, [a + (o.agree ? 1 : 0), n + 1]);
  }
  const setAgree = setOutcomes.filter((o) => o.agree);
  return [
    `oracle (seed ${seed}): ${agreeing.length}/${outcomes.length} variants agree ` +
      `(pod refused ${pod}, pvc refused ${pvc}, admitted ${admitted}; decode errors ${agreeing.filter((o) => o.decode).length}; documented exceptions ${agreeing.filter((o) => o.exception).length})`,
    `  by family: ${[...byFamily].map(([f, [a, n]]) => `${f} ${a}/${n}`).join(", ")}`,
    `apps/v1 admission: ${setAgree.length}/${setOutcomes.length} variants agree ` +
      `(set-level rules fired in ${setAgree.filter((o) => o.fired).length}; skipped as undecodable ${setOutcomes.filter((o) => o.skipped).length}; ` +
      `documented exceptions ${setAgree.filter((o) => o.exception).length})`,
    ...outcomes.filter((o) => !o.agree).map((o) => `  DISAGREE ${o.variant.name}: only 1.20 ${JSON.stringify(o.onlyOracle)}; only Ordinal ${JSON.stringify(o.onlyOrdinal)}`),
    ...setOutcomes.filter((o) => !o.agree).map((o) => `  DISAGREE apps/v1 ${o.variant.name}: only 1.20 ${JSON.stringify(o.onlyOracle)}; only Ordinal ${JSON.stringify(o.onlyOrdinal)}`),
  ].join("\n");
}
