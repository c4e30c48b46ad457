/**
 * Issue 4, with the real kube-apiserver (1.20.2) as the oracle.
 *
 * 1. For every variant of test/e2e/variants.ts (hand-written mutations of every rule family, the
 *    upstream corpus, and randomized combinations from a seeded generator; ORACLE_SEED=<n> replays
 *    a run, ORACLE_RANDOM=<n> sets how many), build the pods (first and highest ordinal) and PVCs
 *    the set implies with the planner's builders, create them on the apiserver with dryRun=All,
 *    map the (field, reason) pairs of the 422 causes to StatefulSet paths, and assert they equal
 *    the pairs validateStatefulSet reports from its pod/PVC checks.
 * 2. For every variant, the apiserver's admission of the same spec as an apps/v1 StatefulSet
 *    against validateStatefulSet({group: "apps", checkPods: false}).
 * 3. With `ordinal serve` registered as the webhook: `kubectl apply` of the twelve templates of
 *    issue 4 fails naming the field, and the corpus is admitted (server-side dry run).
 *
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
 * Exceptions — where 1.20 and current upstream legitimately disagree; Ordinal follows current
 * upstream (each names the variant; the difference must be exactly the one declared):
 *   env-name-leading-digit            1.20 requires C-identifier-like env names; current upstream
 *                                     (RelaxedEnvironmentVariableValidation) takes any printable
 *                                     ASCII but '='.
 *   claim-accessMode-ReadWriteOncePod ReadWriteOncePod exists from 1.22; 1.20 says NotSupported.
 *   claim-dataSource-without-name     current upstream copies a lone dataSource to dataSourceRef
 *                                     and validates both (NormalizeDataSources, 1.24+).
 *   host-network-host-port-mismatch   1.20 blames containerPort, current upstream hostPort.
 *   hostAliases-ip-invalid            1.20 reports spec.hostAliases.ip, current upstream
 *                                     spec.hostAliases[i].ip.
 *   terminationMessagePolicy-invalid  1.20 says Invalid, current upstream NotSupported.
 *   hugepages-limit-not-a-page-multiple  current upstream requires a huge page limit to be a
 *                                     multiple of the page size; 1.20 did not check.
 *   container-seccomp-localhost-profile-with-backsteps  1.20 also refuses the deprecated seccomp
 *                                     annotation it copies the field into (sync removed in 1.27).
 *   container-procMount-invalid       procMount is behind a gate that is off in 1.20 (dropped).
 *   set-name-with-dot, set-name-64-characters (apps/v1 admission only)  1.20 accepts a DNS
 *                                     subdomain as set name; current upstream requires a DNS label
 *                                     (the name is the pods' hostname prefix; the pod check shows
 *                                     1.20 then refuses the pod).
 * Random variants never use these mutations (nor pool values of the same kind).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { newClaims, newStatefulSetPod } from "../../src/core/pod.ts";
import { WEBHOOKS_OPT_OUT_LABEL } from "../../src/webhook-config/webhook-configs.ts";
import { ApiError, type KubeObject } from "../../src/kube/client.ts";
import { R, type ResourceRef } from "../../src/kube/resources.ts";
import { type FieldError, formatFieldError, validateStatefulSet } from "../../src/validation/index.ts";
import { caBundle, NODE_URL, startNodeServer, waitHealthy, type Running } from "./servers.ts";
import { admin, kubectl, kubectlResult, newNamespace, setupCluster, sleep } from "./support.ts";
import { TWELVE, allVariants, baseSet, corpusSets, type Raw, type Variant } from "./variants.ts";

// A fixed default keeps CI stable; ORACLE_SEED=random explores new combinations.
const SEED = process.env.ORACLE_SEED === "random" ? Date.now() % 2 ** 31 : Number(process.env.ORACLE_SEED ?? 12035770);
const RANDOM_COUNT = Number(process.env.ORACLE_RANDOM ?? 100);
console.log(`validation oracle: seed ${SEED} (ORACLE_SEED=${SEED} replays it), ${RANDOM_COUNT} random variants`);

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

// Random variants never combine a mutation with a documented difference: its pairs would show up unexplained.
const VARIANTS: Variant[] = allVariants(SEED, RANDOM_COUNT, new Set(Object.keys(EXCEPTIONS)));

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

interface Cause {
  reason?: string;
  message?: string;
  field?: string;
}
type DryRun = { kind: "ok" } | { kind: "invalid"; causes: Cause[] } | { kind: "decode"; reason: string };

/** dryRunCreate POSTs obj with dryRun=All and returns the verdict: admitted, 422 with causes, or 400 (decode). */
async function dryRunCreate(r: ResourceRef, ns: string, obj: object): Promise<DryRun> {
  try {
    await admin.create(r, ns, obj, { dryRun: true });
    return { kind: "ok" };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const status = (e.status ?? {}) as { message?: string; details?: { causes?: Cause[] } };
    if (e.code === 422) return { kind: "invalid", causes: status.details?.causes ?? [] };
    if (e.code === 400) {
      const msg = status.message ?? e.message;
      return { kind: "decode", reason: /unmarshalerDecoder: (.*?), error found/.exec(msg)?.[1] ?? msg };
    }
    throw e;
  }
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
    metadata: { name: raw.metadata?.name, namespace: ns, uid: randomUUID() },
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

/** The 1.20 apiserver's verdict on the variant's pods and PVCs, mapped to StatefulSet fields. */
async function oracle(v: Variant, ns: string): Promise<Groups> {
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
    const pod = newStatefulSetPod(set, ordinal);
    const res = await dryRunCreate(R.pods, ns, pod);
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
    for (const [i, claim] of newClaims(set, ordinal).entries()) {
      const r = await dryRunCreate(R.pvcs, ns, claim);
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

interface Outcome {
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

beforeAll(setupCluster);

describe("the real apiserver as the oracle for pod and PVC creation", () => {
  let ns: string;
  const outcomes: Outcome[] = [];
  const setOutcomes: Array<{ variant: Variant; agree: boolean; skipped?: string; fired: boolean; exception?: string }> = [];

  beforeAll(async () => {
    ns = await newNamespace("oracle");
    // Keep any registered Ordinal webhook (e.g. left by another file) away from the oracle.
    kubectl(["label", "namespace", ns, `${WEBHOOKS_OPT_OUT_LABEL}=disabled`]);
  });

  it(`has at least 70 variants (${VARIANTS.length}), covering every rule family`, () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(70);
    const families = new Set(VARIANTS.map((v) => v.family));
    for (const f of ["containers", "container-names", "image", "ports", "volumes", "volume-mounts", "resources", "env", "probes", "security-context", "pvc", "set-name"])
      expect(families).toContain(f);
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
  });

  for (const v of VARIANTS)
    it(`pod/PVC: ${v.name}`, async () => {
      const o = compare(v, await oracle(v, ns), ordinalVerdict(v, ns));
      outcomes.push(o);
      expect(o.agree, `${v.name}: only 1.20 ${JSON.stringify(o.onlyOracle)}; only Ordinal ${JSON.stringify(o.onlyOrdinal)}`).toBe(true);
    });

  for (const v of VARIANTS)
    it(`apps/v1 admission: ${v.name}`, async () => {
      const name = v.set.metadata?.name;
      const res = await dryRunCreate(R.appsStatefulSets, ns, {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { ...v.set.metadata, namespace: ns },
        spec: v.set.spec,
      });
      if (res.kind === "decode") {
        // The template does not decode (a quantity): a JSON error, not a StatefulSet rule; the pod check covers it.
        setOutcomes.push({ variant: v, agree: true, skipped: "decode", fired: false });
        return;
      }
      const theirs = new Set(res.kind === "invalid" ? res.causes.map((c) => pair(c.field ?? "", c.reason ?? "")) : []);
      const obj = { ...v.set, apiVersion: "apps/v1", metadata: { ...v.set.metadata, name, namespace: ns } };
      const mine = new Set(
        validateStatefulSet(obj, undefined, { group: "apps", checkPods: false })
          .errors.filter((e) => !NOT_IN_1_20.some((f) => e.field === f || e.field.startsWith(f + ".")))
          .map((e) => pair(e.field, e.type)),
      );
      const onlyOracle = [...theirs].filter((p) => !mine.has(p)).sort();
      const onlyOrdinal = [...mine].filter((p) => !theirs.has(p)).sort();
      const ex = SET_EXCEPTIONS[v.name];
      const want = { onlyOracle: [...(ex?.onlyOracle ?? [])].sort(), onlyOrdinal: [...(ex?.onlyOrdinal ?? [])].sort() };
      setOutcomes.push({ variant: v, agree: JSON.stringify({ onlyOracle, onlyOrdinal }) === JSON.stringify(want), fired: theirs.size > 0, exception: ex?.why });
      expect({ onlyOracle, onlyOrdinal }, v.name).toEqual(want);
    });

  it("reports agreement counts", () => {
    const agreeing = outcomes.filter((o) => o.agree);
    const pod = agreeing.filter((o) => o.podRefused).length;
    const pvc = agreeing.filter((o) => o.pvcRefused).length;
    const admitted = agreeing.filter((o) => !o.podRefused && !o.pvcRefused).length;
    const decode = agreeing.filter((o) => o.decode).length;
    const exceptions = agreeing.filter((o) => o.exception).length;
    const byFamily = new Map<string, [number, number]>();
    for (const o of outcomes) {
      const [a, n] = byFamily.get(o.variant.family) ?? [0, 0];
      byFamily.set(o.variant.family, [a + (o.agree ? 1 : 0), n + 1]);
    }
    console.log(
      `oracle (seed ${SEED}): ${agreeing.length}/${outcomes.length} variants agree ` +
        `(pod refused ${pod}, pvc refused ${pvc}, admitted ${admitted}; decode errors ${decode}; documented exceptions ${exceptions})\n` +
        `  by family: ${[...byFamily].map(([f, [a, n]]) => `${f} ${a}/${n}`).join(", ")}`,
    );
    const setAgree = setOutcomes.filter((o) => o.agree);
    console.log(
      `apps/v1 admission: ${setAgree.length}/${setOutcomes.length} variants agree ` +
        `(set-level rules fired in ${setAgree.filter((o) => o.fired).length}; skipped as undecodable ${setOutcomes.filter((o) => o.skipped).length}; ` +
        `documented exceptions ${setAgree.filter((o) => o.exception).length})`,
    );
    const disagreeing = outcomes.filter((o) => !o.agree);
    for (const o of disagreeing) console.log(`  DISAGREE ${o.variant.name}: only 1.20 ${JSON.stringify(o.onlyOracle)}; only Ordinal ${JSON.stringify(o.onlyOrdinal)}`);
    expect(outcomes.length).toBe(VARIANTS.length);
    expect(outcomes.length).toBeGreaterThanOrEqual(60);
    expect(disagreeing.map((o) => o.variant.name)).toEqual([]);
    expect(setOutcomes.filter((o) => !o.agree).map((o) => o.variant.name)).toEqual([]);
    // Every documented exception names a variant; one no longer needed fails that variant (the
    // difference must be exactly the declared one), so fixed differences leave the list.
    for (const name of [...Object.keys(EXCEPTIONS), ...Object.keys(SET_EXCEPTIONS)]) expect(VARIANTS.some((v) => v.name === name), name).toBe(true);
  });
});

describe("kubectl apply against the webhook served by `ordinal serve` (issue 4)", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    server = startNodeServer({ WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() });
    await waitHealthy(NODE_URL, server);
    for (let i = 0; i < 60; i++) {
      if (await admin.get<KubeObject>(R.validatingWebhooks, undefined, "ordinal")) break;
      await sleep(500);
    }
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeDefined();
    ns = await newNamespace("oracle-apply");
  });
  afterAll(async () => {
    await server?.stop();
    // Leave no configuration pointing at the stopped server (failurePolicy Fail would block other files).
    kubectl(["delete", "mutatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
    kubectl(["delete", "validatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
  });

  const withNs = (set: Raw, name: string) => ({ ...set, metadata: { ...set.metadata, name, namespace: ns } });

  it("admits the valid base set (server-side dry run)", () => {
    const r = kubectlResult(["apply", "--dry-run=server", "-f", "-"], JSON.stringify(withNs(baseSet(), "base")));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  for (const [i, t] of TWELVE.entries())
    it(`refuses ${t.name} at ${t.field}`, () => {
      const set = baseSet();
      t.apply(set);
      const r = kubectlResult(["apply", "-f", "-"], JSON.stringify(withNs(set, `bad-${i}`)));
      expect(r.code, r.stdout).not.toBe(0);
      expect(r.stderr).toContain(`The StatefulSet "bad-${i}" is invalid`);
      expect(r.stderr).toContain(`${t.field}:`);
      expect(r.stderr).toContain("would fail at");
    });

  const corpus = corpusSets();
  it("has the upstream corpus (8 StatefulSets)", () => expect(corpus).toHaveLength(8));
  for (const { file, set } of corpus)
    it(`admits the upstream ${file} (server-side dry run)`, async () => {
      const own = await newNamespace("oracle-corpus");
      const obj = { ...set, metadata: { ...set.metadata, namespace: own } };
      const r = kubectlResult(["apply", "--dry-run=server", "-f", "-"], JSON.stringify(obj));
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("(server dry run)");
    });
});
