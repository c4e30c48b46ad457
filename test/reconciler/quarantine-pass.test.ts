/**
 * A quarantined namespace never stops the passes of the others (issue 35, src/reconciler/
 * namespace-guard.ts): with the real guard, a sharded full pass lists each namespace's sets through
 * it, and a targeted pass lists its set through it. Before, both lists threw NamespaceSetAside out
 * of the pass: a shard's full pass failed (and was tried again every waitingRecheckMs, the
 * namespaces after the quarantined one never passed), and a targeted pass of a quarantined set
 * failed instead of reporting NamespaceQuarantined on it. These tests fail before.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { NamespaceGuard } from "../../src/reconciler/namespace-guard.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { strikeInCluster } from "../../src/reconciler/quarantine.ts";
import type { ScheduleSnapshot } from "../../src/schedule/model.ts";
import { ShardRunner, type ShardStore } from "../../src/schedule/shard-runner.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

const SHARDS = 2;
/** Three namespaces of shard 0 of 2, in the order a pass visits them; the first is quarantined. */
const [QUARANTINED, ...OTHERS] = ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"].filter((n) => shardOf(n, SHARDS) === 0).slice(0, 3);

/** world returns a fake with a set `web` (1 replica) and an ImageList in each namespace, QUARANTINED struck in the record, and a guard that read it. */
async function world(now: () => Date) {
  const namespaces = [QUARANTINED, ...OTHERS];
  const fake = createFakeApiServer({ namespaces: [...namespaces, "ordinal-system"] });
  for (const namespace of namespaces) {
    fake.seed(setManifest({ namespace, replicas: 1 }));
    fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-1", namespace }, spec: { images: { "nginx:1.26": {} } } });
  }
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  await strikeInCluster(client, "ordinal-system", QUARANTINED, "the reconcile thread ran out of heap while reading it", now());
  const guard = new NamespaceGuard(client, "ordinal-system", silentLogger, now);
  await guard.start(undefined);
  const pods = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
  const condition = (ns: string) =>
    fake.get<{ status?: { conditions?: { type: string; status: string; reason?: string }[] } }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/web`)?.status?.conditions?.find((c) => c.type === "ReconcileError");
  return { fake, client, guarded: guard.guardedClient(client, () => {}), pods, condition };
}

describe("a pass through the namespace guard", () => {
  it("a sharded full pass reports the quarantined namespace's sets and passes the namespaces after it", async () => {
    const w = await world(() => NOW);
    const r = await reconcilePass(w.guarded, { now: () => NOW, log: silentLogger, shard: { index: 0, count: SHARDS } });
    expect(r.sets.find((s) => s.set === `${QUARANTINED}/web`)?.error).toMatch(/^NamespaceQuarantined: namespace \S+ is set aside until/);
    expect(w.condition(QUARANTINED)).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    expect(w.pods(QUARANTINED)).toEqual([]);
    for (const ns of OTHERS) expect(w.pods(ns)).toEqual(["web-0"]);
  });

  it("a targeted pass of a quarantined set reports NamespaceQuarantined on it (with and without its hints)", async () => {
    const w = await world(() => NOW);
    const plain = await reconcilePass(w.guarded, { now: () => NOW, log: silentLogger, namespace: QUARANTINED, setName: "web" });
    expect(plain.sets.map((s) => s.error?.split(":")[0])).toEqual(["NamespaceQuarantined"]);
    expect(w.condition(QUARANTINED)).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    const hinted = await reconcilePass(w.guarded, { now: () => NOW, log: silentLogger, namespace: QUARANTINED, setName: "web", hints: { knownSet: { withClaims: false } } });
    expect(hinted.sets.map((s) => s.error?.split(":")[0])).toEqual(["NamespaceQuarantined"]);
    expect(hinted.imageListActions ?? []).toEqual([]);
    expect(w.pods(QUARANTINED)).toEqual([]);
  });
});

describe("a Worker shard with a quarantined namespace", () => {
  it("finishes its full pass (the next one an interval away, not waitingRecheckMs) and passes the others", async () => {
    const t = NOW.getTime();
    const now = () => new Date(t);
    const w = await world(now);
    const stored: { schedule?: ScheduleSnapshot; reading?: string } = { schedule: { due: {}, nextFullPassAt: t + 3_600_000 } };
    const store: ShardStore = {
      load: async () => stored.schedule,
      save: async (s) => void (stored.schedule = s),
      setAlarm: async () => {},
      reading: { load: async () => stored.reading, save: async (ns) => void (stored.reading = ns) },
    };
    const intervalMs = 60_000;
    const runner = new ShardRunner({ client: w.client, store, log: silentLogger, shard: { index: 0, count: SHARDS }, leaseNamespace: "ordinal-system", holder: "ordinal-worker", intervalMs, budgetMs: 3_600_000, maxRequests: 900, coalesceMs: 0, now, clock: () => t });
    await runner.poke();
    expect(stored.schedule?.nextFullPassAt).toBe(t + intervalMs);
    expect(w.condition(QUARANTINED)).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    for (const ns of OTHERS) expect(w.pods(ns)).toEqual(["web-0"]);
  });
});
