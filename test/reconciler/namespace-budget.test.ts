/**
 * Isolation between namespaces (issue 35, src/reconciler/namespace-budget.ts): what a pass holds of
 * one namespace is bounded by its object budget. Before it, a pass listed a namespace's managed
 * objects whole (a set of `replicas: 150000` held every pod it had, and the reconcile thread died at
 * 20,000), so these fail: the budget was ignored, every set was planned from one read, and nothing
 * was set aside.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { KubeObject } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { inSlices, NamespaceSetAside, objectBudgetFor, OverBudget, ReadBudget, sliceSelector, slicesOf } from "../../src/reconciler/namespace-budget.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

const set = (name: string, replicas: number): KubeObject => ({ metadata: { name, namespace: "a" }, spec: { replicas } }) as KubeObject;

describe("ReadBudget", () => {
  it("keeps up to max objects and throws OverBudget on the next", () => {
    const b = new ReadBudget(2);
    expect([b.keep(), b.keep()]).toEqual([true, true]);
    expect(() => b.keep()).toThrow(OverBudget);
  });
});

describe("objectBudgetFor", () => {
  it("is about 100 objects per MiB of heap (the shipped 128 MiB: 13,107), never under 100", () => {
    expect(objectBudgetFor(128)).toBe(13_107);
    expect(objectBudgetFor(0)).toBe(100);
  });
});

describe("slicesOf", () => {
  it("cuts runs whose expected objects (replicas + 1) fit half the budget, in order; a set alone may not", () => {
    const sets = [set("a", 3), set("b", 3), set("c", 50), set("d", 1), set("e", -4)];
    expect(slicesOf(sets, 20).map((s) => s.map((x) => x.metadata?.name))).toEqual([["a", "b"], ["c"], ["d", "e"]]);
  });

  it("puts at most 100 sets in a slice", () => {
    const sets = Array.from({ length: 250 }, (_, i) => set(`s${i}`, 0));
    expect(slicesOf(sets, 1_000_000).map((s) => s.length)).toEqual([100, 100, 50]);
  });
});

describe("inSlices", () => {
  /** run reconciles sets whose objects are `objects[name]` with a budget of `max`, and returns the selectors read and the sets set aside. */
  async function run(objects: Record<string, number>, max: number | undefined, ownSelector = false) {
    const reads: string[] = [];
    const setAside: string[] = [];
    const sets = Object.keys(objects).map((n) => set(n, 1));
    const parsed = await inSlices(sets, "ordinal.dev/statefulset", max, {
      slice: async (part, selector, budget) => {
        reads.push(selector);
        const total = selector === "ordinal.dev/statefulset" ? Object.values(objects).reduce((a, b) => a + b, 0) : part.reduce((a, s) => a + objects[s.metadata!.name!], 0);
        for (let i = 0; i < total; i++) budget?.keep();
        return new Map(part.map((s) => [s.metadata!.name!, true]));
      },
      setAside: async (s) => void setAside.push(s.metadata!.name!),
      stopped: () => false,
      ownSelector,
    });
    return { reads, setAside, parsed: [...parsed.keys()] };
  }

  it("reads the namespace once when its objects fit (or when there is no budget)", async () => {
    expect(await run({ a: 3, b: 3 }, 6)).toEqual({ reads: ["ordinal.dev/statefulset"], setAside: [], parsed: ["a", "b"] });
    expect((await run({ a: 300 }, undefined)).parsed).toEqual(["a"]);
  });

  it("over budget, reads slices of its sets, halving a slice while it is over, and sets aside a set over budget alone", async () => {
    // Expected 2 objects a set: slices of two sets (4, half the budget).
    const r = await run({ a: 2, b: 2, c: 9, d: 1 }, 8);
    expect(r.reads).toEqual([
      "ordinal.dev/statefulset",
      sliceSelector(["a", "b"]),
      sliceSelector(["c", "d"]),
      sliceSelector(["c"]),
      sliceSelector(["d"]),
    ]);
    expect(r.setAside).toEqual(["c"]);
    expect(r.parsed).toEqual(["a", "b", "d"]);
  });

  it("sets a targeted pass's set over budget aside from its first read (no second read of it)", async () => {
    expect(await run({ c: 9 }, 8, true)).toEqual({ reads: ["ordinal.dev/statefulset"], setAside: ["c"], parsed: [] });
    // The pass's own selector (the namespace's managed objects) may hold more than the set's: read again by name.
    expect((await run({ c: 9 }, 8, false)).reads).toEqual(["ordinal.dev/statefulset", sliceSelector(["c"])]);
  });
});

describe("reconcilePass with an object budget", () => {
  function setup() {
    const fake = createFakeApiServer({ namespaces: ["a", "b"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const pods = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata?.name ?? "").sort();
    const condition = (ns: string, name: string) =>
      fake.get<{ status?: { conditions?: { type: string; status: string; reason?: string }[] } }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/${name}`)?.status?.conditions?.find((c) => c.type === "ReconcileError");
    const events = (ns: string) => fake.list<{ reason: string; type: string; involvedObject: { name: string } }>(`/api/v1/namespaces/${ns}/events`);
    const pass = (objectBudget: number) => reconcilePass(client, { now: () => NOW, log: silentLogger, objectBudget });
    return { fake, client, pods, condition, events, pass };
  }

  it("reconciles a namespace over budget in slices of its sets: every set gets its pods", async () => {
    const { fake, pods, pass } = setup();
    for (const n of ["x", "y", "z"]) fake.seed(setManifest({ name: n, namespace: "a", replicas: 3, policy: "Parallel" }));
    await pass(100);
    expect(pods("a")).toHaveLength(9);
    fake.log.clear();
    // 9 pods and 3 revisions: over a budget of 8 at once, within it per set.
    for (const n of ["x", "y", "z"]) fake.put({ ...fake.get<KubeObject & { spec: object }>(`/apis/apps.ordinal.dev/v1/namespaces/a/statefulsets/${n}`)!, spec: { ...fake.get<{ spec: object }>(`/apis/apps.ordinal.dev/v1/namespaces/a/statefulsets/${n}`)!.spec, replicas: 4 } });
    const r = await pass(8);
    expect(r.sets.map((s) => s.error)).toEqual([undefined, undefined, undefined]);
    expect(pods("a")).toHaveLength(12);
    expect(fake.log.entries.filter((e) => e.verb === "list" && e.resource === "pods").map((e) => new URLSearchParams(e.query).get("labelSelector"))).toEqual(["ordinal.dev/statefulset", "ordinal.dev/statefulset in (x)", "ordinal.dev/statefulset in (y)", "ordinal.dev/statefulset in (z)"]);
  });

  it("sets aside a set over budget alone (ReconcileError OverBudget, a Warning event) and reconciles the others, in its namespace and the next", async () => {
    const { fake, pods, pass, condition, events } = setup();
    fake.seed(setManifest({ name: "huge", namespace: "a", replicas: 20, policy: "Parallel" }));
    await pass(1000);
    expect(pods("a")).toHaveLength(20);
    fake.seed(setManifest({ name: "small", namespace: "a", replicas: 1 }));
    fake.seed(setManifest({ name: "other", namespace: "b", replicas: 1 }));
    const huge = fake.get<KubeObject & { spec: object }>("/apis/apps.ordinal.dev/v1/namespaces/a/statefulsets/huge")!;
    fake.put({ ...huge, spec: { ...huge.spec, replicas: 2 } });
    const r = await pass(10);
    expect(r.sets.find((s) => s.set === "a/huge")?.error).toMatch(/^OverBudget: its pods, claims and revisions are more than the 10 objects/);
    expect(condition("a", "huge")).toMatchObject({ status: "True", reason: "OverBudget" });
    expect(events("a").filter((e) => e.involvedObject.name === "huge" && e.type === "Warning").map((e) => e.reason)).toEqual(["OverBudget"]);
    // The set aside is left as it is (20 pods, though it asks for 2); the others are reconciled.
    expect(pods("a").filter((p) => p.startsWith("huge-"))).toHaveLength(20);
    expect(pods("a")).toContain("small-0");
    expect(pods("b")).toEqual(["other-0"]);
  });

  it("reports a namespace its runtime set aside on its sets and reconciles the next", async () => {
    const { fake, client, pods, condition } = setup();
    fake.seed(setManifest({ name: "web", namespace: "a", replicas: 1 }));
    fake.seed(setManifest({ name: "web", namespace: "b", replicas: 1 }));
    const until = new Date(NOW.getTime() + 60_000);
    const guarded = { ...client, list: ((r, ns, o) => (ns === "a" ? Promise.reject(new NamespaceSetAside("a", until, "the reconcile thread ran out of heap")) : client.list(r, ns, o))) as typeof client.list };
    const r = await reconcilePass(guarded, { now: () => NOW, log: silentLogger });
    expect(r.sets.find((s) => s.set === "a/web")?.error).toMatch(/^NamespaceQuarantined: namespace a is set aside until/);
    expect(condition("a", "web")).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    expect(pods("a")).toEqual([]);
    expect(pods("b")).toEqual(["web-0"]);
  });
});
