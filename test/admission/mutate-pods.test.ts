import fc from "fast-check";
import { applyPatch } from "rfc6902";
import { describe, expect, it } from "vitest";
import { fcRuns, fcSeed } from "../support/random.ts";
import type { Pod, Volume } from "../../src/api/k8s.ts";
import { identityPatch, mutatePod, withOrdinalIdentity, type LookupStatefulSet } from "../../src/admission/mutate-pods.ts";
import { decodePatch, type PatchOperation } from "../../src/admission/patch.ts";
import { INPLACE_READY_CONDITION, POD_INDEX_LABEL, POD_NAME_LABEL, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { lookupStatefulSetWith, SET_CACHE_TTL_MS } from "../../src/admission/lookup.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { handMadePod, request, sampleSet } from "./helpers.ts";

const lookup: LookupStatefulSet = async (ns, name) => (ns === "default" && name === "web" ? sampleSet() : undefined);

/** apply runs our patch through rfc6902 (an independent implementation) and fails on any error. */
function apply(doc: unknown, ops: PatchOperation[]): unknown {
  const copy = structuredClone(doc);
  const errors = applyPatch(copy as object, ops as Parameters<typeof applyPatch>[1]);
  const failed = errors.filter((e) => e !== null);
  if (failed.length > 0) throw new Error(`patch does not apply: ${failed.map(String).join("; ")}\n${JSON.stringify(ops)}`);
  return copy;
}

async function mutate(pod: unknown, fields: Parameters<typeof request>[0] = {}) {
  const req = request({ object: pod, name: (pod as Pod).metadata?.name, ...fields });
  const { response } = await mutatePod(req, { lookupStatefulSet: lookup });
  expect(response.uid).toBe(req.uid);
  expect(response.allowed).toBe(true);
  const ops = response.patch ? decodePatch(response.patch) : [];
  if (response.patch) expect(response.patchType).toBe("JSONPatch");
  else expect(response.patchType).toBeUndefined();
  return { response, ops, result: apply(pod, ops) as Pod };
}

describe("mutatePod", () => {
  it("gives a hand-made pod the identity the planner gives its pods", async () => {
    const { ops, result, response } = await mutate(handMadePod("web-1"));
    expect(response.warnings).toBeUndefined();
    expect(result.metadata?.labels).toEqual({ app: "web", [SET_NAME_LABEL]: "web", [POD_NAME_LABEL]: "web-1", [POD_INDEX_LABEL]: "1" });
    expect(result.spec?.hostname).toBe("web-1");
    expect(result.spec?.subdomain).toBe("web");
    expect(result.spec?.volumes).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "data-web-1" } },
      { name: "config", configMap: { name: "web-config" } },
    ]);
    expect(result.spec?.readinessGates).toEqual([{ conditionType: INPLACE_READY_CONDITION }]);
    // `/` in label keys is escaped as ~1 (RFC 6901).
    expect(ops).toContainEqual({ op: "add", path: "/metadata/labels/statefulset.kubernetes.io~1pod-name", value: "web-1" });
    // And the result is what the planner would have created from the template (minus ownerReferences).
    const planned = newStatefulSetPod(sampleSet(), 1);
    expect(result.spec).toEqual(planned.spec);
    expect(result.metadata?.labels).toEqual(planned.metadata?.labels);
  });

  it("yields no patch for a pod the planner built", async () => {
    const { ops, response } = await mutate(newStatefulSetPod(sampleSet(), 2, "rev-1"));
    expect(ops).toEqual([]);
    expect(response.patch).toBeUndefined();
  });

  const cases: { name: string; pod: Pod; fields?: Parameters<typeof request>[0]; warning?: RegExp; patched: boolean }[] = [
    {
      name: "a pod owned by the set (ownerReference, no labels at all) gets the labels map created",
      pod: {
        metadata: { name: "web-0", ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "uid-web", controller: true }] },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
      patched: true,
    },
    {
      name: "a pod that is not ours passes untouched",
      pod: { metadata: { name: "other-0", labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "i" }] } },
      patched: false,
    },
    {
      name: "another controller's pod with our label is not ours",
      pod: {
        metadata: {
          name: "web-0",
          labels: { [SET_NAME_LABEL]: "web" },
          ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u", controller: true }],
        },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
      patched: false,
    },
    {
      name: "a name that is not <set>-<n> passes with a warning",
      pod: { metadata: { name: "web-blue", labels: { [SET_NAME_LABEL]: "web" } }, spec: { containers: [] } },
      warning: /not "web-<ordinal>"/,
      patched: false,
    },
    {
      name: "generateName (no name yet) passes with a warning",
      pod: { metadata: { generateName: "web-", labels: { [SET_NAME_LABEL]: "web" } }, spec: { containers: [] } },
      warning: /generateName is not supported/,
      patched: false,
    },
    {
      // G7 (issue 35): no warning tells a caller whether a set exists.
      name: "a set that does not exist: pass, without a warning",
      pod: { metadata: { name: "db-0", labels: { [SET_NAME_LABEL]: "db" } }, spec: { containers: [] } },
      patched: false,
    },
    {
      // G7: nor what its ordinal range is (the reconciler deletes a pod outside it).
      name: "an ordinal outside the range is patched, without a warning",
      pod: handMadePod("web-7"),
      patched: true,
    },
    // Issue 11 finding 8: "web-01" parses to ordinal 1 but is not a member (upstream's identityMatches).
    ...["web-01", "web-00", "web-007"].map((name) => ({
      name: `a non-canonical ordinal (${name}) is not given an identity`,
      pod: handMadePod(name),
      warning: new RegExp(`pod name "${name}" is not "web-<ordinal>"`),
      patched: false,
    })),
    // Labelled for web but named as a pod of another set: the parent in the name must be the set.
    ...["db-1", "web-db-1"].map((name) => ({
      name: `a canonical name of another set (${name}) is not given web's identity`,
      pod: handMadePod(name),
      warning: new RegExp(`pod name "${name}" is not "web-<ordinal>"`),
      patched: false,
    })),
    {
      name: "UPDATE is not this hook's business",
      pod: handMadePod("web-1"),
      fields: { operation: "UPDATE", oldObject: handMadePod("web-1") },
      patched: false,
    },
    {
      name: "a claim volume pointing elsewhere is replaced; other volumes stay, in order",
      pod: {
        ...handMadePod("web-2"),
        spec: {
          containers: [{ name: "nginx", image: "nginx:1.25" }],
          volumes: [{ name: "config", configMap: { name: "web-config" } }, { name: "data", persistentVolumeClaim: { claimName: "wrong" } }],
        },
      },
      patched: true,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { response, ops, result } = await mutate(c.pod, c.fields);
      expect(ops.length > 0).toBe(c.patched);
      if (c.warning) expect(response.warnings?.join("\n")).toMatch(c.warning);
      else expect(response.warnings).toBeUndefined();
      if (c.patched) {
        const name = c.pod.metadata!.name!;
        expect(result.metadata?.labels?.[POD_NAME_LABEL]).toBe(name);
        expect(result.spec?.volumes?.find((v) => v.name === "data")?.persistentVolumeClaim?.claimName).toBe(`data-${name}`);
      }
    });
  }

  it("passes with a warning when no lookup is configured", async () => {
    const { response } = await mutatePod(request({ object: handMadePod() }), {});
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.warnings?.[0]).toMatch(/cannot look up StatefulSet default\/web/);
  });

  it("takes the namespace from the request when the object has none", async () => {
    const pod = handMadePod("web-0");
    delete pod.metadata!.namespace;
    const { ops } = await mutate(pod, { namespace: "default" });
    expect(ops).toContainEqual({ op: "add", path: "/metadata/namespace", value: "default" });
  });
});

// ---- property: our patch, applied by rfc6902, gives exactly the mutated pod; mutating twice is a no-op.

const key = fc.stringMatching(/^[a-z0-9~/._-]{1,12}$/);
const labelMap = fc.dictionary(key, fc.string({ maxLength: 6 }), { maxKeys: 4 });
const volumeName = fc.constantFrom("data", "logs", "config", "cache", "a/b", "x~y");
const volume: fc.Arbitrary<Volume> = fc.oneof(
  volumeName.map((name) => ({ name, emptyDir: {} })),
  fc.tuple(volumeName, fc.string({ maxLength: 5 })).map(([name, claimName]) => ({ name, persistentVolumeClaim: { claimName } })),
);
const podArb = fc.record(
  {
    labels: labelMap,
    annotations: labelMap,
    volumes: fc.uniqueArray(volume, { selector: (v) => v.name, maxLength: 4 }),
    gates: fc.array(fc.constantFrom(INPLACE_READY_CONDITION, "other/gate", "Ready~ish"), { maxLength: 2 }),
    hostname: fc.string({ maxLength: 6 }),
    subdomain: fc.string({ maxLength: 6 }),
    identityLabels: fc.boolean(),
  },
  { requiredKeys: ["identityLabels"] },
);
const setArb = fc.record({
  serviceName: fc.constantFrom("", "web", "headless"),
  claims: fc.uniqueArray(fc.constantFrom("data", "logs", "a/b"), { maxLength: 3 }),
  ordinal: fc.nat(5),
});

interface PodShape {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  volumes?: Volume[];
  gates?: string[];
  hostname?: string;
  subdomain?: string;
  /** Carry stale pod-name / pod-index labels. */
  identityLabels: boolean;
}

function buildPod(r: PodShape, ordinal: number): Pod {
  const labels = { ...(r.labels ?? {}), [SET_NAME_LABEL]: "web" };
  if (r.identityLabels) Object.assign(labels, { [POD_NAME_LABEL]: "stale", [POD_INDEX_LABEL]: "99" });
  const pod: Pod = { metadata: { name: `web-${ordinal}`, namespace: "default", labels }, spec: { containers: [{ name: "c", image: "i" }] } };
  if (r.annotations) pod.metadata!.annotations = r.annotations;
  if (r.volumes) pod.spec!.volumes = r.volumes;
  if (r.gates) pod.spec!.readinessGates = r.gates.map((conditionType) => ({ conditionType }));
  if (r.hostname !== undefined) pod.spec!.hostname = r.hostname;
  if (r.subdomain !== undefined) pod.spec!.subdomain = r.subdomain;
  return pod;
}

describe("lookupStatefulSetWith: the set cache", () => {
  const client = (sets: Record<string, unknown>) => {
    const calls: string[] = [];
    const c = { get: async (_r: unknown, ns: string, name: string) => (calls.push(`${ns}/${name}`), structuredClone(sets[`${ns}/${name}`])) } as unknown as KubeClient;
    return { c, calls };
  };
  const raw = (uid: string) => ({ ...structuredClone(sampleSet()), metadata: { name: "web", namespace: "default", uid } });

  it("serves pods that name the cached set's uid without a GET, for SET_CACHE_TTL_MS", async () => {
    let t = 0;
    const { c, calls } = client({ "default/web": raw("u1") });
    const lookup = lookupStatefulSetWith(c, () => t);
    expect((await lookup("default", "web", "u1"))?.metadata.uid).toBe("u1");
    expect((await lookup("default", "web", "u1"))?.metadata.uid).toBe("u1");
    expect(calls).toHaveLength(1);
    t += SET_CACHE_TTL_MS;
    await lookup("default", "web", "u1");
    expect(calls).toHaveLength(2);
  });

  it("fetches when the pod names another uid (a recreated set) or none (a hand-made pod)", async () => {
    const sets: Record<string, unknown> = { "default/web": raw("u1") };
    const { c, calls } = client(sets);
    const lookup = lookupStatefulSetWith(c, () => 0);
    await lookup("default", "web", "u1");
    sets["default/web"] = raw("u2");
    expect((await lookup("default", "web", "u2"))?.metadata.uid).toBe("u2");
    await lookup("default", "web");
    expect(calls).toHaveLength(3);
    delete sets["default/web"];
    expect(await lookup("default", "web")).toBeUndefined();
    expect(await lookup("default", "web", "u2")).toBeUndefined();
  });

  it("mutatePod passes the controller reference's uid to the lookup", async () => {
    const seen: (string | undefined)[] = [];
    const pod = newStatefulSetPod(sampleSet(), 1, "r1");
    await mutatePod(request({ object: pod }), { lookupStatefulSet: async (_ns, _n, uid) => (seen.push(uid), sampleSet()) });
    await mutatePod(request({ object: handMadePod("web-1") }), { lookupStatefulSet: async (_ns, _n, uid) => (seen.push(uid), sampleSet()) });
    expect(seen).toEqual(["uid-web", undefined]);
  });
});

describe("identityPatch (property)", () => {
  it(`applies with rfc6902 to exactly the mutated pod, and is empty the second time (seed ${fcSeed})`, async () => {
    await fc.assert(
      fc.asyncProperty(podArb, setArb, async (p, s) => {
        const set = sampleSet({ serviceName: s.serviceName, claims: s.claims });
        const pod = buildPod(p, s.ordinal);
        const ops = identityPatch(set, pod, s.ordinal);
        const want = withOrdinalIdentity(set, pod, s.ordinal);
        expect(apply(pod, ops)).toEqual(want);
        expect(identityPatch(set, want, s.ordinal)).toEqual([]);
        // Through the handler too: the encoded patch is the same operations.
        const { response } = await mutatePod(request({ object: pod }), { lookupStatefulSet: async () => set });
        expect(response.patch ? decodePatch(response.patch) : []).toEqual(ops);
      }),
      { numRuns: fcRuns(300, 1000) },
    );
  });
});

describe("identityPatch: members named __proto__", () => {
  it("keeps an own __proto__ member (as JSON.parse makes it) in the pod, its metadata, labels and spec: no operation touches it", () => {
    const set = sampleSet();
    const plain = handMadePod("web-1");
    const text = JSON.stringify(plain)
      .replace(/^\{/, '{"__proto__":{"a":1},')
      .replace('"metadata":{', '"metadata":{"__proto__":{"b":2},')
      .replace('"labels":{', '"labels":{"__proto__":"x",')
      .replace('"spec":{', '"spec":{"__proto__":[],');
    const hostile = JSON.parse(text) as Pod;
    for (const o of [hostile, hostile.metadata, hostile.metadata?.labels, hostile.spec]) expect(Object.hasOwn(o!, "__proto__")).toBe(true);
    const ops = identityPatch(set, hostile, 1);
    expect(ops).toEqual(identityPatch(set, plain, 1));
    expect(ops.length).toBeGreaterThan(0);
    const copy = withOrdinalIdentity(set, hostile, 1);
    for (const o of [copy, copy.metadata, copy.metadata?.labels, copy.spec]) {
      expect(Object.hasOwn(o!, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    }
  });
});

describe("G7 (issue 35): what a forged review naming another namespace's set learns", () => {
  const victim = sampleSet({ serviceName: "victim-svc", claims: ["secret-data"], replicas: 5, start: 3 });
  victim.metadata.namespace = "victim";
  const victimLookup: LookupStatefulSet = async (ns, name) => (ns === "victim" && name === "web" ? victim : undefined);
  const forged = (ns: string, name: string) => {
    const pod = handMadePod(name);
    pod.metadata!.namespace = ns;
    return request({ object: pod, name, namespace: ns, userInfo: { username: "system:anonymous" } });
  };

  it("only what the patch needs: no warning, whether the set exists and in range or not; the patch writes identity labels, hostname, subdomain, claim volumes and the gate, nothing else of the set", async () => {
    for (const name of ["web-0", "web-4", "web-99"]) {
      const { response } = await mutatePod(forged("victim", name), { lookupStatefulSet: victimLookup });
      expect(Object.keys(response).sort()).toEqual(["allowed", "patch", "patchType", "uid"]);
      const paths = decodePatch(response.patch!).map((op) => op.path.split("/").slice(0, 3).join("/"));
      expect(new Set(paths)).toEqual(new Set(["/metadata/labels", "/spec/hostname", "/spec/subdomain", "/spec/volumes", "/spec/readinessGates"]));
    }
    const missing = forged("victim", "db-0");
    (missing.object as Pod).metadata!.labels = { [SET_NAME_LABEL]: "db" };
    const { response } = await mutatePod(missing, { lookupStatefulSet: victimLookup });
    expect(response).toEqual({ uid: expect.any(String), allowed: true });
  });

  it("a stored set that does not parse: the refusal says so, not what the set holds", async () => {
    const stored = { ...structuredClone(victim), spec: { ...structuredClone(victim.spec), replicas: "victim-secret-value" } };
    const lookupOf = lookupStatefulSetWith({ get: async () => stored } as unknown as KubeClient);
    await expect(mutatePod(forged("victim", "web-0"), { lookupStatefulSet: lookupOf })).rejects.toThrow(/^StatefulSet victim\/web as stored does not parse \(the server's log says why\)$/);
  });
});
