import { describe, expect, it } from "vitest";
import { Feed, NS, newClaim, newPod, newSet, started } from "./feed.ts";
import { RULES } from "./types.ts";

describe("maxUnavailable (Ordinal's own deletions and in-place updates)", () => {
  const set = newSet("web", { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } });

  it("a second pod deleted while the first is not back is a violation; after it is Ready again it is not", () => {
    const f = started(new Feed(), set).mod("pod", newPod(set, 2, { deleting: true })).mod("pod", newPod(set, 1, { deleting: true }));
    expect(f.rules()).toEqual([RULES.maxUnavailable]);
    // What the run held against: three creates (each judged for identity, range and order), two pods Ordinal took.
    expect(f.checker.report().checks).toEqual({ [RULES.maxUnavailable]: 2, [RULES.onePerOrdinal]: 3, [RULES.orderedCreate]: 3, [RULES.range]: 3 });
    const g = started(new Feed(), set).mod("pod", newPod(set, 2, { deleting: true })).del("pod", newPod(set, 2, { deleting: true }));
    g.add("pod", newPod(set, 2, { uid: "n2", rev: "r2", ready: false })).mod("pod", newPod(set, 2, { uid: "n2", rev: "r2" })).mod("pod", newPod(set, 1, { deleting: true }));
    expect(g.rules()).toEqual([]);
  });

  it("in place: two gates False at once with maxUnavailable 1 is a violation, with 2 it is not", () => {
    const f = started(new Feed(), set, 3, { gate: true }).mod("pod", newPod(set, 2, { gate: false })).mod("pod", newPod(set, 1, { gate: false }));
    expect(f.rules()).toEqual([RULES.maxUnavailable]);
    const two = newSet("web", { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "50%" } } });
    const g = started(new Feed(), two, 3, { gate: true }).mod("pod", newPod(two, 2, { gate: false })).mod("pod", newPod(two, 1, { gate: false }));
    expect(g.rules()).toEqual([]);
  });

  it("what the injector or the kubelet made unavailable is accounted apart, and an unavailable pod is updated at no cost", () => {
    const f = started(new Feed(), set);
    f.windows.push({ kind: "pod-kill", start: f.now, end: f.now + 100, pods: [`${NS}/web-2`] });
    f.mod("pod", newPod(set, 2, { deleting: true })).tick(5000).mod("pod", newPod(set, 1, { deleting: true }));
    expect(f.rules()).toEqual([]);
    const g = started(new Feed(), set).mod("pod", newPod(set, 2, { ready: false })).mod("pod", newPod(set, 2, { ready: false, deleting: true })).mod("pod", newPod(set, 1, { deleting: true }));
    expect(g.rules()).toEqual([]);
  });

  it("a pod Ready for less than minReadySeconds is not available: taking it costs nothing, and it does not free the budget", () => {
    const slow = newSet("web", { replicas: 3, minReadySeconds: 30, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } });
    const f = started(new Feed(), slow).mod("pod", newPod(slow, 2, { deleting: true })).del("pod", newPod(slow, 2, { deleting: true }));
    f.add("pod", newPod(slow, 2, { uid: "n2", readySince: f.now })).tick(5000).mod("pod", newPod(slow, 1, { deleting: true }));
    expect(f.rules()).toEqual([RULES.maxUnavailable]);
    const g = started(new Feed(), slow).mod("pod", newPod(slow, 2, { deleting: true })).del("pod", newPod(slow, 2, { deleting: true }));
    g.add("pod", newPod(slow, 2, { uid: "n2", readySince: g.now })).tick(40_000).mod("pod", newPod(slow, 1, { deleting: true }));
    expect(g.rules()).toEqual([]);
  });

  it("scale-down deletions are outside the range and not counted", () => {
    const f = started(new Feed(), set).mod("set", { ...set, spec: { ...set.spec, replicas: 1 } }).mod("pod", newPod(set, 2, { deleting: true })).mod("pod", newPod(set, 0, { deleting: true }));
    expect(f.rules()).not.toContain(RULES.maxUnavailable);
  });

  // Seed 7 of the e2e chaos run: 2 -> 0 scale-down (app-1 deleted; the set's event seen after the
  // pod's), back up, and a deletion of app-0 decided on a read of replicas 0 made before the scale-up.
  it("a scale-down that deleted a pod, then a scale-up, leaves no unavailability behind; a stale-read scale-down deletion costs nothing", () => {
    const two = newSet("web", { replicas: 2, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } });
    const scale = (n: number) => ({ ...two, spec: { ...two.spec, replicas: n } });
    const f = started(new Feed(), two).mod("pod", newPod(two, 1, { deleting: true })).mod("set", scale(0)).del("pod", newPod(two, 1, { deleting: true }));
    f.tick(3000).mod("set", scale(2)).tick(3000).mod("set", scale(0)).tick(3000).mod("set", scale(2)).tick(1500).mod("pod", newPod(two, 0, { deleting: true }));
    expect(f.rules()).toEqual([]);
    // The stale read is excused only for a deletion: a rollout's second pod taken at once still counts.
    const g = started(new Feed(), two).mod("set", scale(0)).tick(1000).mod("set", scale(2)).mod("pod", newPod(two, 1, { rev: "r2", ready: false })).mod("pod", newPod(two, 0, { rev: "r2", ready: false }));
    expect(g.rules()).toEqual([RULES.maxUnavailable]);
  });

  it("a deletion of an ordinal outside the range in a version read within staleReadMs is a scale-down's, not the rollout's", () => {
    const par = newSet("web", { replicas: 3, podManagementPolicy: "Parallel", updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } });
    const scale = (n: number) => ({ ...par, spec: { ...par.spec, replicas: n } });
    const run = (wait: number) => started(new Feed(), par).mod("pod", newPod(par, 0, { deleting: true })).mod("set", scale(1)).tick(1000).mod("set", scale(3)).tick(wait).mod("pod", newPod(par, 2, { deleting: true }));
    expect(run(1000).rules()).toEqual([]);
    // Past the window the read cannot be that old: the second pod taken at once is a violation.
    expect(run(10_000).rules()).toEqual([RULES.maxUnavailable]);
  });
});

describe("claims and the retention policy", () => {
  const tmpl = { volumeClaimTemplates: [{ metadata: { name: "data" } }] };

  it("with Retain, deleting a claim is a violation", () => {
    const set = newSet("db", { ...tmpl, replicas: 1 });
    const f = started(new Feed(), set, 1).add("claim", newClaim("data-db-0")).del("claim", newClaim("data-db-0"));
    expect(f.rules()).toEqual([RULES.claimDeleted]);
  });

  it("whenScaled Delete: a scaled-away ordinal's claim may go (owned by its pod, then deleted), one in range may not", () => {
    const set = newSet("db", { ...tmpl, replicas: 3, podManagementPolicy: "Parallel", persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete" } });
    const f = started(new Feed(), set).add("claim", newClaim("data-db-2")).mod("set", { ...set, spec: { ...set.spec, replicas: 2 } });
    f.mod("claim", newClaim("data-db-2", { ownerReferences: [{ kind: "Pod", name: "db-2", uid: "uid-db-2" }] })).tick(60_000).del("claim", newClaim("data-db-2"));
    expect(f.rules()).toEqual([]);
    const g = started(new Feed(), set).add("claim", newClaim("data-db-1")).mod("claim", newClaim("data-db-1", { ownerReferences: [{ kind: "Pod", name: "db-1", uid: "uid-db-1" }] }));
    expect(g.rules()).toEqual([RULES.claimDeleted]);
  });

  it("a namespace being deleted takes its pods and claims without a violation", () => {
    const set = newSet("db", { ...tmpl, replicas: 2 });
    const f = started(new Feed(), set, 2).add("claim", newClaim("data-db-0")).mod("namespace", { metadata: { name: NS, deletionTimestamp: new Date().toISOString() } });
    f.mod("pod", newPod(set, 0, { deleting: true })).mod("pod", newPod(set, 1, { deleting: true })).del("claim", newClaim("data-db-0"));
    expect(f.rules()).toEqual([]);
  });

  it("whenDeleted Delete: the claims go with the set; with Retain they stay", () => {
    const set = newSet("db", { ...tmpl, replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete" } });
    const f = started(new Feed(), set, 1).add("claim", newClaim("data-db-0")).del("set", set).del("claim", newClaim("data-db-0"));
    expect(f.rules()).toEqual([]);
    const kept = newSet("db", { ...tmpl, replicas: 1 });
    const g = started(new Feed(), kept, 1).add("claim", newClaim("data-db-0")).del("set", kept).del("claim", newClaim("data-db-0"));
    expect(g.rules()).toEqual([RULES.claimDeleted]);
  });
});

describe("automatic rollback", () => {
  const set = newSet("web", { replicas: 2, progressDeadlineSeconds: 60, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } });
  const bad = { ...set, spec: { ...set.spec, template: { spec: { containers: [{ name: "app", image: "app:2" }] } } } };
  const rolledBack = { ...set, metadata: { ...set.metadata, annotations: { "ordinal.dev/failed-revisions": "r2" } } };

  it("rolling back a revision whose pod became Ready less than a deadline ago is a violation; a whole deadline later it is not", () => {
    const f = started(new Feed(), set, 2).mod("set", bad).tick(30_000).mod("pod", newPod(set, 1, { rev: "r2", ready: false })).mod("pod", newPod(set, 1, { rev: "r2" }));
    f.mod("pod", newPod(set, 0, { rev: "r2", ready: false })).tick(40_000).mod("set", rolledBack);
    expect(f.rules()).toEqual([RULES.rollback]);
    const g = started(new Feed(), set, 2).mod("set", bad).tick(30_000).mod("pod", newPod(set, 1, { rev: "r2", ready: false })).mod("pod", newPod(set, 1, { rev: "r2" }));
    g.mod("pod", newPod(set, 0, { rev: "r2", ready: false })).tick(65_000).mod("set", rolledBack);
    expect(g.rules()).toEqual([]);
  });

  it("rolling back before a deadline passed since the template changed is a violation", () => {
    const f = started(new Feed(), set, 2).mod("set", bad).tick(20_000).mod("set", rolledBack);
    expect(f.rules()).toEqual([RULES.rollback]);
  });

  it("a template change seen only through a relist does not start the clock at the relist", () => {
    const f = started(new Feed(), set, 2).resync("set", "MODIFIED", bad).tick(20_000).mod("set", rolledBack);
    expect(f.rules()).toEqual([]);
  });

  it("rolling back a revision whose every pod is Ready is a violation", () => {
    const f = started(new Feed(), set, 2).mod("set", bad).tick(1000).mod("pod", newPod(set, 1, { rev: "r2" })).mod("pod", newPod(set, 0, { rev: "r2" })).tick(120_000).mod("set", rolledBack);
    expect(f.rules()).toEqual([RULES.rollback]);
  });
});

describe("convergence", () => {
  const set = newSet("web", { replicas: 2 }, { status: { observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: "r1", updateRevision: "r1" } });

  it("converged once status says what the pods show, all Ready at the last revision, with the time", () => {
    const f = started(new Feed(), { ...set, status: { ...set.status, readyReplicas: 1 } }, 2);
    expect(f.checker.converged(NS, "web")).toBe(false);
    const at = f.now;
    f.mod("set", set);
    expect(f.checker.converged(NS, "web")).toBe(true);
    expect(f.checker.report().convergedAt).toEqual({ [`${NS}/web`]: new Date(at).toISOString() });
    f.mod("pod", newPod(set, 1, { ready: false }));
    expect(f.checker.converged(NS, "web")).toBe(false);
    expect(f.checker.report().convergedAt).toEqual({});
  });

  it("not converged while a pod is at an older revision, gated, or an extra pod exists, or the generation is not observed", () => {
    expect(started(new Feed(), set, 2, { rev: "r0" }).checker.converged(NS, "web")).toBe(false);
    expect(started(new Feed(), set, 2, { gate: false }).checker.converged(NS, "web")).toBe(false);
    expect(started(new Feed(), set, 3).checker.converged(NS, "web")).toBe(false);
    expect(started(new Feed(), { ...set, metadata: { ...set.metadata, generation: 2 } }, 2).checker.converged(NS, "web")).toBe(false);
    expect(started(new Feed(), set, 2).checker.converged(NS, "web")).toBe(true);
  });
});
