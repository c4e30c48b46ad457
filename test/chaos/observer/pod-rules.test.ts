import { describe, expect, it } from "vitest";
import { Feed, newPod, newSet, started } from "./feed.ts";
import { RULES } from "./types.ts";

describe("identity: one pod per ordinal, none outside the range, no adoption", () => {
  it("a pod created at an ordinal outside the range is a violation; inside it is not", () => {
    const set = newSet("web", { podManagementPolicy: "Parallel", replicas: 2 });
    const f = started(new Feed(), set, 2);
    expect(f.rules()).toEqual([]);
    f.add("pod", newPod(set, 2));
    expect(f.rules()).toEqual([RULES.range]);
  });

  it("a create that read the set before a scale-down within staleReadMs is not; after it is", () => {
    const set = newSet("web", { podManagementPolicy: "Parallel", replicas: 3 });
    const f = started(new Feed({ staleReadMs: 5000 }), set, 2);
    f.mod("set", { ...set, spec: { ...set.spec, replicas: 2 } }).tick(1000).add("pod", newPod(set, 2));
    expect(f.rules()).toEqual([]);
    const g = started(new Feed({ staleReadMs: 5000 }), set, 2);
    g.mod("set", { ...set, spec: { ...set.spec, replicas: 2 } }).tick(6000).add("pod", newPod(set, 2));
    expect(g.rules()).toEqual([RULES.range]);
  });

  it("a replacement created while the old pod of that name is still there is a violation; after its DELETED it is not", () => {
    const set = newSet("web", { podManagementPolicy: "Parallel", replicas: 1 });
    const f = started(new Feed(), set, 1);
    f.mod("pod", newPod(set, 0, { deleting: true })).add("pod", newPod(set, 0, { uid: "second" }));
    expect(f.rules()).toContain(RULES.onePerOrdinal);
    const g = started(new Feed(), set, 1);
    g.mod("pod", newPod(set, 0, { deleting: true })).del("pod", newPod(set, 0, { deleting: true })).add("pod", newPod(set, 0, { uid: "second" }));
    expect(g.rules()).toEqual([]);
  });

  it("taking over a pod another controller owns is a violation; adopting an orphan in range is not", () => {
    const set = newSet("web", { podManagementPolicy: "Parallel", replicas: 2 });
    const f = started(new Feed(), set, 1);
    f.add("pod", newPod(set, 1, { owner: "someone-else" })).mod("pod", newPod(set, 1));
    expect(f.rules()).toEqual([RULES.adoption]);
    const g = started(new Feed(), set, 1);
    g.add("pod", newPod(set, 1, { owner: null })).mod("pod", newPod(set, 1));
    expect(g.rules()).toEqual([]);
  });

  it("adopting an orphan outside the range is a violation", () => {
    const set = newSet("web", { podManagementPolicy: "Parallel", replicas: 1 });
    const f = started(new Feed(), set, 1);
    f.add("pod", newPod(set, 4, { owner: null })).mod("pod", newPod(set, 4));
    expect(f.rules()).toEqual([RULES.adoption]);
  });
});

describe("OrderedReady", () => {
  const set = newSet("db", { replicas: 3 });

  it("pod N+1 created while N is Pending is a violation; once N is Running and Ready it is not", () => {
    const f = new Feed().add("set", set).add("pod", newPod(set, 0, { phase: "Pending", ready: false })).add("pod", newPod(set, 1, { phase: "Pending", ready: false }));
    expect(f.rules()).toEqual([RULES.orderedCreate]);
    const g = new Feed().add("set", set).add("pod", newPod(set, 0, { phase: "Pending", ready: false })).mod("pod", newPod(set, 0)).add("pod", newPod(set, 1, { ready: false }));
    expect(g.rules()).toEqual([]);
  });

  it("a create whose read of pod N is within staleReadMs of N turning unready is not; later it is", () => {
    const f = new Feed({ staleReadMs: 5000 }).add("set", set).add("pod", newPod(set, 0)).mod("pod", newPod(set, 0, { ready: false })).tick(2000).add("pod", newPod(set, 1, { ready: false }));
    expect(f.rules()).toEqual([]);
    const g = new Feed({ staleReadMs: 5000 }).add("set", set).add("pod", newPod(set, 0)).mod("pod", newPod(set, 0, { ready: false })).tick(8000).add("pod", newPod(set, 1, { ready: false }));
    expect(g.rules()).toEqual([RULES.orderedCreate]);
  });

  it("a pod created with a lower ordinal missing is a violation; Parallel creates any order", () => {
    expect(new Feed().add("set", set).add("pod", newPod(set, 1)).rules()).toEqual([RULES.orderedCreate]);
    const par = newSet("par", { replicas: 3, podManagementPolicy: "Parallel" });
    expect(new Feed().add("set", par).add("pod", newPod(par, 2, { ready: false })).add("pod", newPod(par, 0, { ready: false })).rules()).toEqual([]);
  });

  it("scale-down deletes the highest first, one at a time", () => {
    const down = { ...set, spec: { ...set.spec, replicas: 1 } };
    // 2 goes first and is gone before 1 is deleted: fine.
    const ok = started(new Feed({ staleReadMs: 1000 }), set).mod("set", down).tick(2000);
    ok.mod("pod", newPod(set, 2, { deleting: true })).del("pod", newPod(set, 2, { deleting: true })).mod("pod", newPod(set, 1, { deleting: true }));
    expect(ok.rules()).toEqual([]);
    // 1 before 2.
    const low = started(new Feed({ staleReadMs: 1000 }), set).mod("set", down).tick(2000).mod("pod", newPod(set, 1, { deleting: true }));
    expect(low.rules()).toEqual([RULES.orderedScaleDown]);
    // 1 while 2 is still terminating.
    const two = started(new Feed({ staleReadMs: 1000 }), set).mod("set", down).tick(2000);
    two.mod("pod", newPod(set, 2, { deleting: true })).mod("pod", newPod(set, 1, { deleting: true }));
    expect(two.rules()).toEqual([RULES.orderedScaleDown]);
  });

  it("a deletion the injector made is not judged as Ordinal's scale-down", () => {
    const down = { ...set, spec: { ...set.spec, replicas: 1 } };
    const f = started(new Feed({ staleReadMs: 1000 }), set).mod("set", down).tick(2000);
    f.windows.push({ kind: "pod-kill", start: f.now, pods: ["team-a/db-1"] });
    f.mod("pod", newPod(set, 1, { deleting: true }));
    expect(f.rules()).toEqual([]);
  });
});

describe("scaleStrategy.maxUnavailable (Parallel scale-up)", () => {
  const set = newSet("par", { replicas: 3, podManagementPolicy: "Parallel", scaleStrategy: { maxUnavailable: 1 } });

  it("a new pod while another is not yet available is a violation; one at a time is not", () => {
    expect(new Feed().add("set", set).add("pod", newPod(set, 0, { ready: false })).add("pod", newPod(set, 1, { ready: false })).rules()).toEqual([RULES.scaleMaxUnavailable]);
    const f = new Feed().add("set", set).add("pod", newPod(set, 0, { ready: false })).mod("pod", newPod(set, 0)).add("pod", newPod(set, 1, { ready: false }));
    expect(f.rules()).toEqual([]);
  });

  it("a replacement of a pod that existed is the rolling update's business, not the scale budget's", () => {
    const f = started(new Feed(), set).add("pod", newPod(set, 3, { ready: false }));
    expect(f.rules()).toContain(RULES.range);
    const g = started(new Feed(), set).mod("pod", newPod(set, 1, { ready: false })).del("pod", newPod(set, 2)).add("pod", newPod(set, 2, { uid: "new", ready: false }));
    expect(g.rules()).not.toContain(RULES.scaleMaxUnavailable);
  });
});

describe("preDelete hook", () => {
  const set = newSet("db", { replicas: 2, podManagementPolicy: "Parallel", lifecycle: { preDelete: { labelsHandler: { "example.io/drain": "true" }, finalizersHandler: ["example.io/keep"] } } });
  const hooked = { labels: { "example.io/drain": "true" } };

  it("deleting a pod that still carries the hook's label is a violation; once removed it is not", () => {
    const f = started(new Feed({ staleReadMs: 1000 }), set, 2, hooked).tick(5000).mod("pod", newPod(set, 1, { ...hooked, deleting: true }));
    expect(f.rules()).toEqual([RULES.preDelete]);
    const g = started(new Feed({ staleReadMs: 1000 }), set, 2, hooked).mod("pod", newPod(set, 1)).mod("pod", newPod(set, 1, { deleting: true }));
    expect(g.rules()).toEqual([]);
  });

  it("a hook finalizer holds as a label does; a Failed pod is not held", () => {
    const f = started(new Feed({ staleReadMs: 1000 }), set, 2, { finalizers: ["example.io/keep"] }).tick(5000).mod("pod", newPod(set, 1, { finalizers: ["example.io/keep"], deleting: true }));
    expect(f.rules()).toEqual([RULES.preDelete]);
    const g = started(new Feed({ staleReadMs: 1000 }), set, 2, hooked).mod("pod", newPod(set, 1, { ...hooked, phase: "Failed", ready: false })).mod("pod", newPod(set, 1, { ...hooked, phase: "Failed", ready: false, deleting: true }));
    expect(g.rules()).toEqual([]);
  });
});

describe("a relist after a watch gap", () => {
  it("stores what changed in the gap without judging it as a transition; the next live event is judged against it", () => {
    const set = newSet("db", { replicas: 3 });
    const f = new Feed().add("set", set).resync("pod", "ADDED", newPod(set, 1, { ready: false }));
    expect(f.rules()).toEqual([]);
    expect(f.checker.report().resyncEvents).toBe(1);
    f.add("pod", newPod(set, 2, { ready: false }));
    expect(f.rules()).toEqual([RULES.orderedCreate]);
  });
});
