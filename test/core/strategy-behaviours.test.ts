/**
 * Two behaviours of the update strategy that nothing pinned (issue 22), each through plan():
 *  - a pod whose InPlaceUpdateReady gate Ordinal has set False, but which the kubelet still
 *    reports Ready, is out of traffic already and counts against maxUnavailable;
 *  - a paused set still scales down (README: scaling goes on while paused).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { Action } from "../../src/core/actions.ts";
import { plan } from "../../src/core/planner.ts";
import { NOW, claimFor, makeSet, pod, revisionOf } from "./fixtures.ts";

/** The pod names an action writes to (events and status writes name none). */
const touched = (actions: Action[]): string[] =>
  actions.flatMap((a) => (a.type === "createPod" ? [a.pod.metadata!.name!] : "name" in a && a.type !== "deleteRevision" ? [a.name] : []));

describe("a pod whose gate Ordinal set False but which still reports Ready", () => {
  const image = (tag: string) => ({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: `img:${tag}` }] } } });
  const old = makeSet();
  const oldRev = revisionOf(old);
  it.each(["OrderedReady", "Parallel"])("counts against maxUnavailable 1 (%s): no second pod leaves traffic", (podManagementPolicy) => {
    const rollingUpdate = { maxUnavailable: 1, podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 30 } };
    const next = makeSet({ ...image("2"), podManagementPolicy, updateStrategy: { type: "RollingUpdate", rollingUpdate } }, { generation: 2 }, { currentRevision: oldRev.metadata!.name });
    const nextRev = revisionOf(next, 2);
    const o = oldRev.metadata!.name!;
    const pods = [0, 1, 2].map((i) => pod(next, i, o));
    // web-2: the first step of its in-place update is written (gate False, grace period running);
    // the kubelet has not yet reported Ready False (a wake can bring the next pass first).
    const gated: Pod = pods[2];
    gated.status!.conditions = [
      { type: "Ready", status: "True", lastTransitionTime: "2026-11-21T11:00:00Z" as unknown as Date },
      { type: "InPlaceUpdateReady", status: "False", reason: "StartInPlaceUpdate", lastTransitionTime: new Date(NOW.getTime() - 1000).toISOString() as unknown as Date },
    ];
    const p = plan({ set: next, pods, claims: [0, 1, 2].map((i) => claimFor(next, i)), revisions: [oldRev, nextRev], now: NOW });
    // web-2 waits out its grace period; web-1 and web-0 stay in traffic.
    expect(touched(p.actions).filter((n) => n !== "web-2")).toEqual([]);
    expect(p.requeueAfterMs).toBeGreaterThan(0);
  });
});

describe("a paused set", () => {
  it.each(["OrderedReady", "Parallel"])("still scales down (%s): the highest pod goes, the rollout stays paused", (podManagementPolicy) => {
    const old = makeSet({ replicas: 3 });
    const oldRev = revisionOf(old);
    const o = oldRev.metadata!.name!;
    // A template change is waiting behind the pause, and replicas went from 3 to 2.
    const next = makeSet(
      {
        replicas: 2,
        podManagementPolicy,
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } },
      },
      { generation: 2 },
      { currentRevision: o },
    );
    const p = plan({ set: next, pods: [0, 1, 2].map((i) => pod(next, i, o)), claims: [0, 1, 2].map((i) => claimFor(next, i)), revisions: [oldRev, revisionOf(next, 2)], now: NOW });
    const deletes = p.actions.filter((a) => a.type === "deletePod");
    expect(deletes).toEqual([expect.objectContaining({ name: "web-2", reason: "scaleDown" })]);
    expect(p.status.conditions?.find((c) => c.type === "Paused")?.status).toBe("True");
  });
});
