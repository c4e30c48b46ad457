// spec.roles' rules (src/core/roles.ts, src/core/switchover.ts): a pod's rank, the gate between
// ranks, the switchover step in every state, requests gone stale, and the timeout judged only after
// the label is read.
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { rankGate, roleRank, rolesSummary, roleWords } from "../../src/core/roles.ts";
import { PAUSED_WITHDRAWAL, pendingSwitchover, podsWritten, staleRequests, switchoverStep, UNWANTED_WITHDRAWAL } from "../../src/core/switchover.ts";
import { newUpdateOrder } from "../../src/core/update-order.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { newPod, newSet } from "../support/fixtures.ts";

const ROLES = { labelKey: "spilo-role", updateOrder: ["replica", "sync", "master"], switchover: { roles: ["master"], timeoutSeconds: 60 } };
const set = newSet({ spec: { roles: ROLES } });
const NOW = new Date("2026-12-05T01:00:00Z");
const pod = (ordinal: number, role?: string, request?: string, state: Parameters<typeof newPod>[3] = "ready"): Pod => {
  const p = newPod(set, ordinal, "r1", state);
  if (role !== undefined) p.metadata!.labels = { ...p.metadata!.labels, "spilo-role": role };
  if (request !== undefined) p.metadata!.annotations = { ...p.metadata!.annotations, [SWITCHOVER_REQUEST_ANNOTATION]: request };
  return p;
};
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name);

describe("roleRank", () => {
  it.each([
    ["replica", 0],
    ["sync", 1],
    ["master", 2],
    [undefined, 0],
    ["uninitialized", 0],
  ])("role %s ranks %i (unknown with the first role)", (role, rank) => expect(roleRank(pod(0, role), ROLES)).toBe(rank));

  it("sorts the update order by role before the ordinal (update-order.ts)", () => {
    const order = newUpdateOrder(set, undefined);
    expect(names(order.sort([pod(0, "master"), pod(1, "replica"), pod(2, "sync"), pod(3), pod(4, "replica")]))).toEqual(["web-4", "web-3", "web-1", "web-2", "web-0"]);
  });

  it("says a pod's role in words", () => {
    expect([roleWords(pod(0, "master"), ROLES), roleWords(pod(1), ROLES), roleWords(pod(2, "x"), ROLES)]).toEqual(["web-0 (master)", "web-1 (no role)", "web-2 (role x not in updateOrder)"]);
  });

  it("summarizes the pods by role in update order", () => {
    expect(rolesSummary(ROLES, [pod(0, "master"), pod(1, "replica"), pod(2), pod(3, "replica")])).toBe("spilo-role: (no role) web-2 → replica web-1, web-3 → master web-0");
  });
});

describe("rankGate", () => {
  it("is the lowest rank among the unfinished pods, naming one", () => {
    expect(rankGate(ROLES, [pod(0, "master"), pod(2, "sync"), pod(1, "sync")], undefined)).toEqual({ rank: 1, waitingOn: "pod web-2 (sync) is not updated and available yet" });
  });
  it("a missing replica holds every rank above the first", () => {
    expect(rankGate(ROLES, [pod(0, "master")], "web-1")).toEqual({ rank: 0, waitingOn: "pod web-1 is not created yet" });
  });
  it("is undefined without roles or with nothing unfinished", () => {
    expect(rankGate(undefined, [pod(0, "master")], "web-1")).toBeUndefined();
    expect(rankGate(ROLES, [], undefined)).toBeUndefined();
  });
});

describe("switchoverStep", () => {
  it("goes on for a pod that holds no switchover role and carries no request", () => {
    expect(switchoverStep(set, pod(0, "replica"), NOW)).toEqual({ go: true, actions: [] });
    expect(switchoverStep(set, pod(0), NOW)).toEqual({ go: true, actions: [] });
  });
  it("asks the leader to hand its role away: one write, held", () => {
    const step = switchoverStep(set, pod(2, "master"), NOW);
    expect(step.go).toBe(false);
    expect(step.actions).toEqual([
      expect.objectContaining({ type: "setSwitchoverRequest", name: "web-2", resourceVersion: "1", at: "2026-12-05T01:00:00Z", reason: "SwitchoverRequested" }),
    ]);
    expect(step.held).toBe("pod web-2 holds role master: switchover requested at 2026-12-05T01:00:00Z, waiting for its label spilo-role to move (timeout 60s)");
  });
  it("waits on a request within its timeout, asking to be looked at when it times out", () => {
    const step = switchoverStep(set, pod(2, "master", "2026-12-05T00:59:30Z"), NOW);
    expect(step).toMatchObject({ go: false, actions: [], requeueAfterMs: 30_000 });
  });
  it("keeps holding a request past its timeout: never touches the leader", () => {
    const step = switchoverStep(set, pod(2, "master", "2026-12-05T00:58:00Z"), NOW);
    expect(step).toMatchObject({ go: false, actions: [] });
    expect(step.held).toContain("was not answered within 60s");
  });
  it("removes an answered request first (the pod is updated next pass), however late the pass", () => {
    const step = switchoverStep(set, pod(2, "replica", "2026-12-04T00:00:00Z"), NOW);
    expect(step.go).toBe(false);
    expect(step.actions).toEqual([expect.objectContaining({ type: "setSwitchoverRequest", name: "web-2", at: null, reason: "SwitchoverDone" })]);
  });
  it("asks again, from now, when the request's time does not parse", () => {
    expect(switchoverStep(set, pod(2, "master", "soon"), NOW).actions).toEqual([expect.objectContaining({ at: "2026-12-05T01:00:00Z" })]);
  });
  it("goes on for a failed pod: it serves nothing and can answer nothing", () => {
    expect(switchoverStep(set, pod(2, "master", undefined, "failed"), NOW)).toEqual({ go: true, actions: [] });
  });
  it("asks nothing of a set without a switchover", () => {
    const plain = newSet({ spec: { roles: { labelKey: "spilo-role", updateOrder: ["replica", "master"] } } });
    expect(switchoverStep(plain, pod(2, "master"), NOW)).toEqual({ go: true, actions: [] });
  });
});

describe("pendingSwitchover: the timeout is judged only after the label is read", () => {
  it("an answered request is never pending, however old", () => {
    expect(pendingSwitchover(set, pod(2, "replica", "2026-12-01T00:00:00Z"), NOW)).toBeUndefined();
  });
  it.each([
    ["2026-12-05T00:59:01Z", false],
    ["2026-12-05T00:59:00Z", true],
    ["2026-12-05T02:00:00Z", false],
  ])("requested at %s: timed out %s", (at, timedOut) => expect(pendingSwitchover(set, pod(2, "master", at), NOW)?.timedOut).toBe(timedOut));
});

describe("staleRequests", () => {
  const wanted = () => undefined;
  it("removes a request whose role moved, on pods no phase wrote", () => {
    const out = staleRequests(set, [pod(0, "replica", "t"), pod(1, "replica", "t"), pod(2, "master")], new Set(["web-1"]), wanted);
    expect(out.map((a) => (a.type === "setSwitchoverRequest" ? [a.name, a.at, a.reason] : a.type))).toEqual([["web-0", null, "SwitchoverDone"]]);
  });
  it.each([
    ["no longer to be updated", UNWANTED_WITHDRAWAL],
    ["the rollout paused", PAUSED_WITHDRAWAL],
  ])("withdraws a request on a leader %s, saying why", (_, why) => {
    const out = staleRequests(set, [pod(2, "master", "t")], new Set(), () => why);
    expect(out).toEqual([expect.objectContaining({ name: "web-2", at: null, reason: "SwitchoverWithdrawn", message: `StatefulSet default/web withdraws its switchover request on pod web-2: ${why}` })]);
  });
  it("keeps a request that still waits", () => {
    expect(staleRequests(set, [pod(2, "master", "t")], new Set(), wanted)).toEqual([]);
  });
  it("names the pods actions write", () => {
    expect([...podsWritten([{ type: "deletePod", name: "web-1", uid: "u", reason: "update" }, { type: "event", eventType: "Normal", reason: "x", message: "y" }, { type: "deleteRevision", name: "rev" }])]).toEqual(["web-1"]);
  });
});
