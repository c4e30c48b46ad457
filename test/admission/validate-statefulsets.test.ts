// The webhook wiring of StatefulSet validation: which requests are checked, how errors and
// warnings reach the AdmissionResponse. The rules themselves are tested in test/validation.
import { describe, expect, it } from "vitest";
import { MAX_ERROR_CHARS, MAX_REPORTED_ERRORS } from "../../src/admission/invalid.ts";
import { MAX_OBJECT_VALUES, MAX_STRING_CHARS } from "../../src/admission/limits.ts";
import { statefulSetRequestSteps, validateStatefulSetRequest } from "../../src/admission/validate-statefulsets.ts";
import { runStepsPausing } from "../../src/validation/steps.ts";
import { aggregateMessage, invalid } from "../../src/validation/field-error.ts";
import { appsSts, osts, request, sampleSet } from "./helpers.ts";
import { MAX_REPLICAS } from "../../src/api/statefulset.ts";

type Obj = ReturnType<typeof sampleSet> & Record<string, unknown>;
const base = (): Obj => structuredClone(sampleSet()) as Obj;

/** An apps/v1 StatefulSet of the same shape (no Ordinal-only fields). */
const appsBase = (): Obj => ({ ...base(), apiVersion: "apps/v1" });

function broken(o: Obj): Obj {
  o.spec.replicas = -1;
  o.spec.template.metadata!.labels = { app: "other" };
  (o.spec.template.spec as { restartPolicy?: string }).restartPolicy = "Never";
  return o;
}

const on = { validateAppsV1StatefulSets: true };
const off = { validateAppsV1StatefulSets: false };

describe("validateStatefulSetRequest", () => {
  it("admits a valid set", () => {
    const req = request({ kind: osts, object: base(), name: "web" });
    const { response } = validateStatefulSetRequest(req, off);
    expect(response).toMatchObject({ uid: req.uid, allowed: true });
  });

  it("denies an invalid set with every error at once, as the apiserver words them", () => {
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: broken(base()) }), off);
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 422, reason: "Invalid", details: { name: "web", group: "apps.ordinal.dev", kind: "StatefulSet" } });
    const message = response.status!.message!;
    expect(message).toMatch(/^StatefulSet\.apps\.ordinal\.dev "web" is invalid: \[/);
    expect(message).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
    expect(message).toContain("spec.template.metadata.labels: Invalid value:");
    expect(message).toContain("`selector` does not match template `labels`");
    expect(message).toContain('spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"');
    expect(response.status!.details!.causes!.length).toBeGreaterThanOrEqual(3);
  });

  it("denies replicas above MAX_REPLICAS, saying what the limit is (the CRD's maximum holds for kubectl scale)", () => {
    const o = base();
    o.spec.replicas = 2147483647;
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o }), off);
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      `StatefulSet.apps.ordinal.dev "web" is invalid: spec.replicas: Invalid value: 2147483647: must be less than or equal to ${MAX_REPLICAS}, the most pods Kubernetes supports in a whole cluster`,
    );
    o.spec.replicas = MAX_REPLICAS;
    expect(validateStatefulSetRequest(request({ kind: osts, object: o }), off).response.allowed).toBe(true);
  });

  it("denies the chosen-deletion label in the template with a field error (G5), on create and update", () => {
    const o = base();
    o.spec.template.metadata!.labels = { ...o.spec.template.metadata!.labels, "ordinal.dev/specified-delete": "true" };
    for (const req of [request({ kind: osts, object: o }), request({ kind: osts, object: o, oldObject: base(), operation: "UPDATE" })]) {
      const { response } = validateStatefulSetRequest(req, off);
      expect(response.allowed).toBe(false);
      expect(response.status).toMatchObject({ code: 422, reason: "Invalid", details: { causes: [{ reason: "FieldValueForbidden", field: "spec.template.metadata.labels[ordinal.dev/specified-delete]" }] } });
    }
  });

  it("passes warnings through, allowed or not", () => {
    const o = base();
    (o.spec.template.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds = 0;
    const ok = validateStatefulSetRequest(request({ kind: osts, object: o }), off).response;
    expect(ok.allowed).toBe(true);
    expect(ok.warnings?.join("\n")).toMatch(/terminationGracePeriodSeconds/);
    const bad = validateStatefulSetRequest(request({ kind: osts, object: broken(o) }), off).response;
    expect(bad.allowed).toBe(false);
    expect(bad.warnings?.join("\n")).toMatch(/terminationGracePeriodSeconds/);
  });

  it("checks apps/v1 StatefulSets only when the option is on", () => {
    const req = request({ kind: appsSts, object: broken(appsBase()) });
    expect(validateStatefulSetRequest(req, off).response).toEqual({ uid: req.uid, allowed: true });
    const denied = validateStatefulSetRequest(req, on).response;
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toMatch(/^StatefulSet\.apps "web" is invalid: /);
  });

  it("refuses a typo in the template with the apiserver's strict decoding words, before any other error", () => {
    const o = broken(base());
    (o.spec.template.spec!.containers[0] as unknown as Record<string, unknown>).ports = [{ containerPort: 80, protocl: "TCP" }];
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o }), off);
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 400, reason: "BadRequest", message: 'strict decoding error: unknown field "spec.template.spec.containers[0].ports[0].protocl"' });
  });

  it("an UPDATE keeps a typo stored before (scaling a set stays possible) but refuses a new one", () => {
    const old = base();
    (old.spec.template.spec as unknown as Record<string, unknown>).dnspolicy = "Default";
    const scaled = structuredClone(old);
    scaled.spec.replicas = 5;
    expect(validateStatefulSetRequest(request({ kind: osts, operation: "UPDATE", object: scaled, oldObject: old }), off).response.allowed).toBe(true);
    (scaled.spec.template.metadata as unknown as Record<string, unknown>).lables = {};
    expect(validateStatefulSetRequest(request({ kind: osts, operation: "UPDATE", object: scaled, oldObject: old }), off).response.status?.message).toBe(
      'strict decoding error: unknown field "spec.template.metadata.lables"',
    );
  });

  it("cuts a hostile key in the answer", () => {
    const o = base();
    (o.spec.template.spec as unknown as Record<string, unknown>)["k".repeat(5000)] = 1;
    const message = validateStatefulSetRequest(request({ kind: osts, object: o }), off).response.status!.message!;
    expect(message.length).toBeLessThan(400);
  });

  it("denies changing an immutable field on UPDATE", () => {
    const old = base();
    const changed = base();
    changed.spec.serviceName = "other";
    const { response } = validateStatefulSetRequest(request({ kind: osts, operation: "UPDATE", object: changed, oldObject: old }), off);
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain("spec: Forbidden: updates to statefulset spec for fields other than");
  });

  it("admits an UPDATE that leaves an invalid stored spec as it was, with its errors as warnings", () => {
    const old = broken(base());
    const relabelled = structuredClone(old);
    relabelled.metadata.labels = { team: "a" };
    const { response } = validateStatefulSetRequest(request({ kind: osts, operation: "UPDATE", object: relabelled, oldObject: old }), off);
    expect(response.allowed).toBe(true);
    expect(response.warnings?.some((w) => w.startsWith("existing spec is invalid: spec.replicas"))).toBe(true);
  });

  it("but an UPDATE that changes the spec is checked", () => {
    const old = broken(base());
    const scaled = structuredClone(old);
    scaled.spec.replicas = -2;
    expect(validateStatefulSetRequest(request({ kind: osts, operation: "UPDATE", object: scaled, oldObject: old }), off).response.allowed).toBe(false);
  });

  it("lets DELETE and subresources through", () => {
    expect(validateStatefulSetRequest(request({ kind: osts, operation: "DELETE", oldObject: broken(base()) }), off).response.allowed).toBe(true);
    const old = base();
    const req = request({ kind: osts, operation: "UPDATE", subResource: "status", object: broken(base()), oldObject: old });
    expect(validateStatefulSetRequest(req, off).response.allowed).toBe(true);
  });
});

// Issue 11 finding 1: a set with thousands of invalid entries, or one huge invalid string, used to
// produce a response of many megabytes (the string echoed about six times) after a quadratic dedupe.
describe("validateStatefulSetRequest: bounded answers to hostile sets", () => {
  const size = (v: unknown) => JSON.stringify(v).length;

  it("thousands of invalid containers: at most MAX_REPORTED_ERRORS errors, counted beyond", () => {
    const o = base();
    o.spec.template.spec.containers = Array.from({ length: 600 }, (_, i) => ({ name: `Bad_${i}`, image: "" }));
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o, name: "web" }), off);
    expect(response.allowed).toBe(false);
    expect(response.status?.details?.causes).toHaveLength(MAX_REPORTED_ERRORS);
    expect(response.status?.message).toMatch(/, and up to \d+ more errors\]$/);
    expect(size(response)).toBeLessThan(200_000);
  });

  it("a long invalid string is cut, not echoed", () => {
    const o = base();
    o.spec.template.spec.containers[0].image = "a b".repeat(20_000);
    o.spec.template.metadata!.labels = { app: "web", bad: "v ".repeat(30_000) };
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o, name: "web" }), off);
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain("characters, cut)");
    expect(size(response)).toBeLessThan(20 * MAX_ERROR_CHARS);
  });

  it("a set beyond MAX_OBJECT_VALUES values or with a string over MAX_STRING_CHARS is refused before it is walked", () => {
    const many = base();
    many.spec.template.spec.containers[0].env = Array.from({ length: MAX_OBJECT_VALUES / 2 }, (_, i) => ({ name: `V${i}`, value: "x" }));
    const huge = base();
    huge.spec.template.spec.containers[0].image = "a".repeat(MAX_STRING_CHARS + 1);
    for (const [o, why] of [
      [many, /more than 5000 JSON values/],
      [huge, /string longer than 65536 characters/],
    ] as const) {
      const { response } = validateStatefulSetRequest(request({ kind: osts, object: o, name: "web" }), off);
      expect(response).toMatchObject({ allowed: false, status: { code: 422, message: expect.stringMatching(why) } });
      expect(size(response)).toBeLessThan(2000);
    }
    // A real set with managedFields of any size is not counted by them.
    const managed = base();
    (managed.metadata as Record<string, unknown>).managedFields = Array.from({ length: 20_000 }, () => ({ manager: "m" }));
    expect(validateStatefulSetRequest(request({ kind: osts, object: managed, name: "web" }), off).response.allowed).toBe(true);
  });

  it("an over-long name is cut in the message and details", () => {
    const o = base();
    o.metadata.name = "n".repeat(100_000);
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o }), off);
    expect(response.allowed).toBe(false);
    expect(size(response)).toBeLessThan(10 * MAX_ERROR_CHARS);
  });

  it("aggregateMessage de-duplicates in one pass: 50,000 distinct messages, each once, in order", () => {
    const errors = Array.from({ length: 50_000 }, (_, i) => invalid(`spec.f[${i}]`, i, "bad"));
    const msg = aggregateMessage([...errors, ...errors]);
    expect(msg.startsWith("[spec.f[0]: Invalid value: 0: bad, spec.f[1]:")).toBe(true);
    expect(msg.split(", ").length).toBe(50_000);
  });
});

// The bench's worst case "1.2k duplicate claims", small: every error counted, the first 100 shown.
describe("validateStatefulSetRequest on many duplicate, too long claim template names", () => {
  it("shows the pod's errors of every template, then the PVCs' in order, and counts the rest", () => {
    const o = base();
    const long = `D-${"x".repeat(298)}`;
    (o.spec as Record<string, unknown>).volumeClaimTemplates = Array.from({ length: 40 }, () => ({ metadata: { name: long }, spec: {} }));
    const { response } = validateStatefulSetRequest(request({ kind: osts, object: o, name: "web" }), off);
    const causes = response.status!.details!.causes!;
    expect(causes).toHaveLength(MAX_REPORTED_ERRORS);
    const at = (i: number) => `spec.volumeClaimTemplates[${i}]`;
    // 2 errors of the pod's volume per template (40), then 4 of each template's PVC: 240 in all.
    expect(causes.map((c) => c.field)).toEqual([
      ...Array.from({ length: 40 }, (_, i) => [`${at(i)}.metadata.name`, `${at(i)}.metadata.name`]).flat(),
      ...Array.from({ length: 5 }, (_, i) => [`${at(i)}.metadata.name`, `${at(i)}.metadata.name`, `${at(i)}.spec.accessModes`, `${at(i)}.spec.resources[storage]`]).flat(),
    ]);
    expect(causes[80].message).toBe(`Invalid value: "${long}": PVC name "${long}-web-0": must be no more than 253 characters (would fail at PVC creation)`);
    expect(response.status!.message).toMatch(/, and up to 140 more errors\]$/);
  });
});

// Issue 11: a large set is judged in steps, so the server answers other requests in between.
describe("statefulSetRequestSteps", () => {
  it("pauses between the set's rules, the pod and every 200 claims, and answers as validateStatefulSetRequest", async () => {
    const o = base();
    o.spec.template.spec.containers = Array.from({ length: 300 }, (_, i) => ({ name: `Bad_${i}`, image: " x" }));
    (o.spec as Record<string, unknown>).volumeClaimTemplates = Array.from({ length: 450 }, (_, i) => ({ metadata: { name: `Claim_${i}` }, spec: {} }));
    const req = request({ kind: osts, object: o, name: "web" });
    let pauses = 0;
    const paused = await runStepsPausing(statefulSetRequestSteps(req, off), async () => {
      pauses++;
    });
    expect(paused).toEqual(validateStatefulSetRequest(req, off));
    expect(paused.response.allowed).toBe(false);
    expect(pauses).toBe(1 + 1 + 2 + 1); // rules | pod | claims 0-199 | 200-399 | 400-449, images, dedupe
  });
});
