// 1,000 malformed or random bodies per webhook route: each must get a 4xx or a well-formed
// AdmissionReview for the request's uid, never a 500. FC_SEED=<n> replays a run.
import fc from "fast-check";
import { applyPatch } from "rfc6902";
import { describe, expect, it } from "vitest";
import { fcRuns, fcSeed } from "../support/random.ts";
import { decodePatch } from "../../src/admission/patch.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { appsSts, handMadePod, imageListKind, osts, RECONCILER, sampleSet } from "./helpers.ts";
import { testApp } from "./test-app.ts";

const podKind = { group: "", version: "v1", kind: "Pod" };

/** Objects near the real thing: a pod or set with one field replaced by random JSON. */
const nearObject = fc
  .tuple(
    fc.constantFrom<() => Record<string, unknown>>(
      () => handMadePod("web-1") as Record<string, unknown>,
      () => newStatefulSetPod(sampleSet(), 0, "r1") as Record<string, unknown>,
      () => structuredClone(sampleSet()) as Record<string, unknown>,
      () => ({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "l" }, spec: { images: { "nginx:1": {} } } }),
    ),
    fc.array(fc.constantFrom("metadata", "spec", "status", "metadata.labels", "metadata.name", "metadata.ownerReferences", "spec.containers", "spec.volumes", "spec.template", "spec.selector", "spec.replicas", "spec.images", "spec.updateStrategy"), { maxLength: 3 }),
    fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 3, maxLength: 3 }),
  )
  .map(([make, paths, values]) => {
    const obj = make();
    paths.forEach((path, i) => {
      const keys = path.split(".");
      let cur: Record<string, unknown> = obj;
      for (const k of keys.slice(0, -1)) {
        if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
        cur = cur[k] as Record<string, unknown>;
      }
      cur[keys[keys.length - 1]] = values[i];
    });
    return obj;
  });

const anyObject = fc.oneof(nearObject, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), fc.jsonValue({ maxDepth: 2 }));

const gvk = fc.oneof(
  fc.constantFrom(podKind, osts, appsSts, imageListKind),
  fc.record({ group: fc.string({ maxLength: 10 }), version: fc.string({ maxLength: 4 }), kind: fc.string({ maxLength: 10 }) }),
  fc.jsonValue({ maxDepth: 1 }),
);

const requestArb = fc.record(
  {
    uid: fc.oneof({ weight: 5, arbitrary: fc.uuid() }, fc.string({ maxLength: 5 }), fc.integer()),
    kind: gvk,
    resource: fc.oneof(fc.constant({ group: "", version: "v1", resource: "pods" }), fc.jsonValue({ maxDepth: 1 })),
    subResource: fc.constantFrom("status", "scale", "", "ephemeralcontainers"),
    operation: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT", "PATCH", ""),
    userInfo: fc.oneof(fc.constant({ username: "admin" }), fc.constant({ username: RECONCILER, groups: ["g"] }), fc.jsonValue({ maxDepth: 1 })),
    namespace: fc.constantFrom("default", "", "kube-system"),
    name: fc.string({ maxLength: 8 }),
    object: anyObject,
    oldObject: anyObject,
    dryRun: fc.boolean(),
  },
  { requiredKeys: ["uid", "kind", "operation", "object"] },
);

const reviewArb = fc.record(
  {
    apiVersion: fc.oneof({ weight: 6, arbitrary: fc.constant("admission.k8s.io/v1") }, fc.constant("admission.k8s.io/v1beta1"), fc.string({ maxLength: 6 })),
    kind: fc.oneof({ weight: 6, arbitrary: fc.constant("AdmissionReview") }, fc.string({ maxLength: 6 })),
    request: fc.oneof({ weight: 8, arbitrary: requestArb }, fc.jsonValue({ maxDepth: 2 })),
  },
  { requiredKeys: [] },
);

const ROUTE_KINDS: Record<string, { group: string; version: string; kind: string }[]> = {
  [WEBHOOK_PATHS.mutatePods]: [podKind],
  [WEBHOOK_PATHS.mutateStatefulSets]: [osts],
  [WEBHOOK_PATHS.validatePods]: [podKind],
  [WEBHOOK_PATHS.validateSpecifiedDelete]: [podKind],
  [WEBHOOK_PATHS.validateStatefulSets]: [osts, appsSts],
  [WEBHOOK_PATHS.validateImageLists]: [imageListKind],
  // The wake hook takes any kind; these are those its rules send.
  [WEBHOOK_PATHS.wake]: [podKind, osts, imageListKind, { group: "autoscaling", version: "v1", kind: "Scale" }, { group: "", version: "v1", kind: "PersistentVolumeClaim" }],
};

/** Requests the wake hook's rules send (webhook-configs.ts). */
const WAKE_SENT = [
  { resource: { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" }, subResource: undefined, operation: "DELETE" },
  { resource: { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" }, subResource: "scale", operation: "UPDATE" },
  { resource: { group: "", version: "v1", resource: "pods" }, subResource: undefined, operation: "DELETE" },
  { resource: { group: "", version: "v1", resource: "pods" }, subResource: "status", operation: "UPDATE" },
  { resource: { group: "", version: "v1", resource: "persistentvolumeclaims" }, subResource: undefined, operation: "CREATE" },
];

/** A review the envelope check accepts for the route, carrying near-real or random objects. */
const wellFormedReview = (path: string) =>
  fc
    .record({
      uid: fc.uuid(),
      kind: fc.constantFrom(...ROUTE_KINDS[path]),
      resource: fc.constantFrom(
        { group: "", version: "v1", resource: "things" },
        { group: "", version: "v1", resource: "pods" },
        { group: "", version: "v1", resource: "persistentvolumeclaims" },
        { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" },
        { group: "apps.ordinal.dev", version: "v1", resource: "imagelists" },
      ),
      subResource: fc.option(fc.constantFrom("status", "scale", "ephemeralcontainers"), { nil: undefined, freq: 3 }),
      operation: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT"),
      userInfo: fc.constantFrom({ username: "admin" }, { username: RECONCILER, groups: ["g"] }, {}),
      namespace: fc.constantFrom("default", "kube-system"),
      name: fc.string({ maxLength: 8 }),
      object: fc.oneof({ weight: 4, arbitrary: nearObject }, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })),
      oldObject: nearObject,
      dryRun: fc.boolean(),
      // The wake hook takes only what its rules send (hooksSend): half its reviews are such a request.
      sent: path === WEBHOOK_PATHS.wake ? fc.option(fc.constantFrom(...WAKE_SENT), { nil: undefined, freq: 2 }) : fc.constant(undefined),
    })
    .map(({ sent, ...request }) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { ...request, ...sent } }));

const bodyArb = (path: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: wellFormedReview(path) },
    { weight: 4, arbitrary: reviewArb.map((r) => JSON.stringify(r)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: wellFormedReview(path).map((r) => r.slice(0, -3)) },
  );

describe("fuzz: every webhook route", () => {
  const runs = fcRuns(300, 1000);
  for (const path of Object.values(WEBHOOK_PATHS)) {
    it(`${path}: ${runs} random bodies get a 4xx or a clean AdmissionReview, never a 500 (seed ${fcSeed})`, async () => {
      const t = await testApp({ validateAppsV1StatefulSets: true, onWake: () => {} });
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(bodyArb(path), async (body) => {
          const res = await t.post(path, body);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect([200, 400]).toContain(res.status);
          const json = (await res.json()) as Record<string, unknown>;
          if (res.status === 400) {
            expect(json).toMatchObject({ error: "BadRequest", message: expect.any(String) });
            return;
          }
          const sent = JSON.parse(body) as { request: { uid: string; object: unknown } };
          expect(json).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: sent.request.uid, allowed: expect.any(Boolean) } });
          const response = json.response as { patch?: string; patchType?: string; allowed: boolean; status?: { message?: string } };
          if (!response.allowed) expect(response.status?.message).toEqual(expect.any(String));
          if (response.patch) {
            expect(response.patchType).toBe("JSONPatch");
            const doc = structuredClone(sent.request.object) as object;
            expect(applyPatch(doc, decodePatch(response.patch) as Parameters<typeof applyPatch>[1]).filter((e) => e !== null)).toEqual([]);
          }
        }),
        { numRuns: runs },
      );
      // Both kinds of answer were exercised.
      expect(statuses.get(200)).toBeGreaterThan(runs / 4);
      expect(statuses.get(400)).toBeGreaterThan(runs / 20);
      // Handlers may throw only on objects the apiserver would never send (the safety net answers);
      // a jump here means realistic input started to fail.
      const failures = t.log.lines.filter((l) => l.msg === "admission handler failed");
      expect(failures.length, JSON.stringify(failures.slice(0, 3).map((l) => l.fields?.error))).toBeLessThan(runs / 10);
    }, 60_000);
  }
});

/**
 * Hostile shapes (issue 11): random nesting depth (to 400), wide lists (to 3,000 entries), long
 * strings (to 100 KB), planted at random places of near-real pods and sets, on every route.
 * Bounded by iteration count (FUZZ_RUNS, else 40 per route, 160 under ORDINAL_THOROUGH=1), not by time.
 */
const hostileArb = fc.record({
  base: fc.constantFrom<() => Record<string, unknown>>(
    () => handMadePod("web-1") as Record<string, unknown>,
    () => newStatefulSetPod(sampleSet(), 1, "r1") as Record<string, unknown>,
    () => structuredClone(sampleSet()) as Record<string, unknown>,
  ),
  at: fc.constantFrom("metadata.labels.x", "metadata.annotations", "metadata.ownerReferences", "spec.containers", "spec.template.spec.containers", "spec.volumes", "spec.x", "status.conditions"),
  depth: fc.integer({ min: 0, max: 400 }),
  width: fc.integer({ min: 0, max: 3_000 }),
  strLen: fc.integer({ min: 0, max: 100_000 }),
  operation: fc.constantFrom("CREATE", "UPDATE"),
  subResource: fc.constantFrom(undefined, "status", "resize"),
  user: fc.constantFrom("admin", RECONCILER),
  kind: fc.constantFrom(podKind, osts, imageListKind),
});

/** hostileBody builds the review as text (JSON.stringify itself would overflow on deep values). */
type Hostile = typeof hostileArb extends fc.Arbitrary<infer T> ? T : never;
function hostileBody(h: Hostile): string {
  const obj = h.base();
  const wide = Array.from({ length: h.width }, (_, i) => (i % 3 === 0 ? { name: `Bad_${i}`, image: " " } : i % 3 === 1 ? "x".repeat(i % 50) : i));
  const keys = h.at.split(".");
  let cur: Record<string, unknown> = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== "object" || cur[k] === null || Array.isArray(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = ["HOLE", "s".repeat(h.strLen), ...wide];
  const request = { uid: "fuzz-uid", kind: h.kind, resource: { group: h.kind.group, version: "v1", resource: "x" }, subResource: h.subResource, operation: h.operation, userInfo: { username: h.user }, namespace: "default", object: obj, oldObject: h.operation === "UPDATE" ? h.base() : undefined };
  const deep = `${"[".repeat(h.depth)}"bottom"${"]".repeat(h.depth)}`;
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request }).replace('"HOLE"', deep);
}

describe("fuzz: hostile nesting and sizes on every route", () => {
  const runs = Number(process.env.FUZZ_RUNS ?? fcRuns(40, 160));
  for (const path of Object.values(WEBHOOK_PATHS)) {
    it(`${path}: ${runs} hostile reviews: a 4xx or a bounded AdmissionReview, never a 500 or an admit without identity (seed ${fcSeed})`, async () => {
      const t = await testApp({ validateAppsV1StatefulSets: true, onWake: () => {} });
      await fc.assert(
        fc.asyncProperty(hostileArb, async (h) => {
          const body = hostileBody(h);
          const res = await t.post(path, body);
          const text = await res.text();
          expect([200, 400, 413]).toContain(res.status);
          expect(text.length).toBeLessThan(256 * 1024);
          if (res.status !== 200) return;
          const review = JSON.parse(text) as { response: { uid: string; allowed: boolean; patch?: string; status?: { code?: number } } };
          expect(review.response.uid).toBe("fuzz-uid");
          if (h.depth >= 100) expect(review.response).toMatchObject({ allowed: false, status: { code: 400 } });
          // A pod of the set is never admitted by the mutating hook without its patch... unless it already has its identity.
          // (Only a top-level pod CREATE gets identity: a subresource write is not a pod creation.)
          if (path === WEBHOOK_PATHS.mutatePods && h.kind === podKind && h.operation === "CREATE" && h.subResource === undefined && review.response.allowed && h.depth < 100) {
            const sent = JSON.parse(body) as { request: { object: { metadata?: { name?: string; labels?: Record<string, string> } } } };
            const labels = sent.request.object.metadata?.labels ?? {};
            if (sent.request.object.metadata?.name === "web-1" && labels["ordinal.dev/statefulset"] === "web" && typeof labels === "object") {
              expect(review.response.patch ?? labels["statefulset.kubernetes.io/pod-name"]).toBeDefined();
            }
          }
        }),
        { numRuns: runs },
      );
    }, 120_000);
  }
});
