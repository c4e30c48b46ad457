/**
 * A set that cannot be planned (issue 19): its stored object does not parse (InvalidSpec) or its
 * plan throws (PlanFailed). It gets ReconcileError=True and a Warning event, once per change; the
 * pass goes on with the next set, and a budget-bound pass leaves its cursor past it.
 */
import { describe, expect, it } from "vitest";
import type { Condition, StatefulSet } from "../../src/api/statefulset.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { errorConditions, invalidSpecMessage } from "../../src/reconciler/set-error.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const SETS = "/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets";
const now = () => new Date("2026-11-21T12:00:00Z");

/** A set whose template says `volumes: 3`: the CRD keeps the pod spec as is, and planning it throws. */
function throwingSet(name: string) {
  const s = setManifest({ name, replicas: 1, policy: "Parallel", claims: ["data"] });
  (s.spec.template as { spec: Record<string, unknown> }).spec.volumes = 3;
  return s;
}

function setup() {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pods = () => fake.list<{ metadata: { name: string } }>("/api/v1/namespaces/default/pods").map((p) => p.metadata.name).sort();
  const condition = (name: string) => fake.get<StatefulSet>(`${SETS}/${name}`)!.status?.conditions?.find((c) => c.type === "ReconcileError");
  const events = () => fake.list<{ reason: string; type: string; message: string; involvedObject: { name: string } }>("/api/v1/namespaces/default/events");
  return { fake, client, pods, condition, events };
}

describe("a set whose plan throws", () => {
  it("gets ReconcileError=True (PlanFailed) and a Warning event; the sets after it are reconciled", async () => {
    const { fake, client, pods, condition, events } = setup();
    await fake.seed(setManifest({ name: "a", replicas: 1, policy: "Parallel" }));
    await fake.seed(throwingSet("b"));
    await fake.seed(setManifest({ name: "c", replicas: 1, policy: "Parallel" }));
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(r.sets.map((s) => [s.set, s.error === undefined])).toEqual([["default/a", true], ["default/b", false], ["default/c", true]]);
    expect(r.sets[1].error).toMatch(/^PlanFailed: .*not iterable/);
    expect(pods()).toEqual(["a-0", "c-0"]);
    expect(condition("b")).toMatchObject({ status: "True", reason: "PlanFailed", message: expect.stringMatching(/not iterable/) });
    const warning = events().filter((e) => e.involvedObject.name === "b");
    expect(warning).toEqual([expect.objectContaining({ type: "Warning", reason: "PlanFailed", message: expect.stringMatching(/^StatefulSet default\/b could not be planned: /) })]);
  });

  it("writes the condition and the event once, not every pass; a fixed spec turns the condition False", async () => {
    const { fake, client, condition, events } = setup();
    await fake.seed(throwingSet("b"));
    await reconcilePass(client, { now, log: silentLogger });
    fake.log.clear();
    await reconcilePass(client, { now, log: silentLogger });
    expect(fake.log.entries.filter((e) => e.verb !== "list" && e.verb !== "get")).toEqual([]);
    expect(events()).toHaveLength(1);
    await client.patch(R.statefulSets, "default", "b", { spec: { template: { spec: { volumes: null } } } }, "merge");
    await reconcilePass(client, { now, log: silentLogger });
    expect(condition("b")).toMatchObject({ status: "False", reason: "Planned" });
  });

  it("a pass that runs out of budget after it leaves the cursor past it", async () => {
    const { fake, client, pods } = setup();
    for (const s of [setManifest({ name: "a", replicas: 1 }), throwingSet("b"), setManifest({ name: "c", replicas: 1 })]) await fake.seed(s);
    let visited = 0;
    const first = await reconcilePass(client, { now, log: silentLogger, shouldStop: () => visited++ >= 2 });
    expect(first.cursor).toBe("default/b");
    const next = await reconcilePass(client, { now, log: silentLogger, startAfter: first.cursor, shouldStop: () => false });
    expect(next.sets[0].set).toBe("default/c");
    expect(pods()).toEqual(["a-0", "c-0"]);
  });
});

describe("a set whose stored object does not parse", () => {
  it("(replicas 2147483647, stored before the CRD's maximum) gets a Warning event (InvalidSpec) naming the field; the pass goes on", async () => {
    const { fake, client, pods, condition, events } = setup();
    const big = setManifest({ name: "big", replicas: 1 });
    big.spec.replicas = 2147483647;
    fake.put({ ...big, metadata: { ...big.metadata, uid: "big-uid", generation: 1 } });
    await fake.seed(setManifest({ name: "web", replicas: 1 }));
    const logged: Record<string, unknown>[] = [];
    const log = { ...silentLogger, warn: (msg: string, f?: Record<string, unknown>) => logged.push({ msg, ...f }) };
    const r = await reconcilePass(client, { now, log });
    expect(r.sets.map((s) => s.set)).toEqual(["default/big", "default/web"]);
    expect(r.sets[0].error).toMatch(/^InvalidSpec: spec\.replicas: .*150000/);
    expect(pods()).toEqual(["web-0"]);
    expect(events().map((e) => [e.involvedObject.name, e.type, e.reason])).toContainEqual(["big", "Warning", "InvalidSpec"]);
    // The apiserver validates the whole object on a status write, so a spec the schema now refuses
    // takes no condition (as on kube-apiserver 1.20): the event and the log line say it.
    expect(condition("big")).toBeUndefined();
    // One line for the failure (its reason and error, which the event repeats), one for the status write that failed.
    expect(logged.map((l) => l.msg)).toEqual(["set not planned", "set error condition not written"]);
    expect(logged[0]).toMatchObject({ set: "default/big", reason: "InvalidSpec", error: expect.stringMatching(/^spec\.replicas: /) });
  });
});

describe("errorConditions", () => {
  const at = new Date("2026-11-21T12:00:00.500Z");
  const other: Condition = { type: "Progressing", status: "True", lastTransitionTime: "2026-11-20T00:00:00Z", reason: "RolloutComplete", message: "done" };
  it.each([
    ["none stored: appended", [other], "PlanFailed", "boom", [other, { type: "ReconcileError", status: "True", lastTransitionTime: "2026-11-21T12:00:00Z", reason: "PlanFailed", message: "boom" }]],
    ["the same stored: nothing to write", [{ type: "ReconcileError", status: "True", lastTransitionTime: "t0", reason: "PlanFailed", message: "boom" }], "PlanFailed", "boom", undefined],
    ["another message: replaced in place, still True since t0", [{ type: "ReconcileError", status: "True", lastTransitionTime: "t0", reason: "PlanFailed", message: "old" }, other], "InvalidSpec", "bad", [{ type: "ReconcileError", status: "True", lastTransitionTime: "t0", reason: "InvalidSpec", message: "bad" }, other]],
    ["was False: True from now", [{ type: "ReconcileError", status: "False", lastTransitionTime: "t0", reason: "Planned", message: "ok" }], "PlanFailed", "boom", [{ type: "ReconcileError", status: "True", lastTransitionTime: "2026-11-21T12:00:00Z", reason: "PlanFailed", message: "boom" }]],
    ["stored conditions not a list: only ours", "garbage", "PlanFailed", "boom", [{ type: "ReconcileError", status: "True", lastTransitionTime: "2026-11-21T12:00:00Z", reason: "PlanFailed", message: "boom" }]],
  ])("%s", (_, stored, reason, message, want) => {
    expect(errorConditions(stored, reason as "PlanFailed" | "InvalidSpec", message as string, at)).toEqual(want);
  });
  it("invalidSpecMessage names each issue's path and is bounded", () => {
    expect(invalidSpecMessage([{ path: ["spec", "replicas"], message: "Too big" }, { path: [], message: "x" }])).toBe("spec.replicas: Too big; (object): x");
    expect(invalidSpecMessage(Array.from({ length: 500 }, () => ({ path: ["spec"], message: "y".repeat(50) }))).length).toBe(1024);
  });
});
