/**
 * OrphanLookups (src/schedule/orphan-lookups.ts): one lookup per namespace and selector, shared by
 * the sets that wait for it, taken once per set, dropped after LOOKUP_TTL_MS, at most MAX_HELD at
 * once, within the limiter's bucket of the namespace.
 */
import { describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.ts";
import { LOOKUP_TTL_MS, MAX_HELD, OrphanLookups } from "../../src/schedule/orphan-lookups.ts";
import { WakeLimiter } from "../../src/schedule/wake-limiter.ts";

function setup(rate = { burst: 20, perSecond: 10 }) {
  let t = 0;
  const lists: string[] = [];
  const client = { list: async (r: { resource: string }, ns: string, o: { labelSelector: string }) => (lists.push(`${ns} ${r.resource} ${o.labelSelector}`), [{ metadata: { name: "p" } }]) } as unknown as KubeClient;
  const lookups = new OrphanLookups(client, () => t, new WakeLimiter(() => t, rate, { burst: 100, perSecond: 50 }));
  return { lookups, lists, at: (ms: number) => void (t = ms) };
}

describe("OrphanLookups", () => {
  it("start sends the pods and revisions lists by the selector once per set; take hands it over once", async () => {
    const { lookups, lists } = setup();
    lookups.start("default", "web", "app=web");
    lookups.start("default", "web", "app=web");
    expect(lists).toEqual(["default pods app=web", "default controllerrevisions app=web"]);
    const l = lookups.take("default", "web");
    expect(l?.selector).toBe("app=web");
    expect(await l?.found).toEqual({ pods: [{ metadata: { name: "p" } }], revisions: [{ metadata: { name: "p" } }] });
    expect(lookups.take("default", "web")).toBeUndefined();
    expect(lookups.take("other", "web")).toBeUndefined();
  });

  it("a lookup no pass took within LOOKUP_TTL_MS is dropped (a new one may start)", () => {
    const { lookups, lists, at } = setup();
    lookups.start("default", "web", "app=web");
    at(LOOKUP_TTL_MS);
    expect(lookups.take("default", "web")).toBeUndefined();
    lookups.start("default", "web", "app=web");
    at(2 * LOOKUP_TTL_MS);
    lookups.start("default", "web", "app=web");
    expect(lists).toHaveLength(6);
  });

  it("the limiter bounds them per namespace: beyond its burst none is sent, whatever the sets' names", () => {
    const { lookups, lists } = setup({ burst: 1, perSecond: 1 });
    lookups.start("default", "web", "app=web");
    lookups.take("default", "web");
    lookups.start("default", "db", "app=db");
    expect(lists).toHaveLength(2);
    expect(lookups.take("default", "db")).toBeUndefined();
    lookups.start("other", "db", "app=db");
    expect(lists).toHaveLength(4);
  });

  it("G6: 80 sets of one namespace with the same selector share one lookup; each takes its own copy", async () => {
    const { lookups, lists } = setup();
    for (let i = 0; i < 80; i++) lookups.start("default", `s${i}`, "app=web");
    expect(lists).toEqual(["default pods app=web", "default controllerrevisions app=web"]);
    const taken = await Promise.all(Array.from({ length: 80 }, (_, i) => lookups.take("default", `s${i}`)!.found));
    expect(new Set(taken.map((t) => t.pods)).size).toBe(80);
    expect(taken.every((t) => t.pods[0]!.metadata!.name === "p")).toBe(true);
    // Taken by every set: gone, so the next set sends its own.
    lookups.start("default", "late", "app=web");
    expect(lists).toHaveLength(4);
  });

  it(`holds ${MAX_HELD} lookups at most (in flight or waiting for their passes): sets beyond look themselves`, () => {
    const { lookups, lists } = setup();
    for (let i = 0; i < 70; i++) lookups.start("default", `s${i}`, `app=s${i}`);
    expect(lists).toHaveLength(2 * MAX_HELD);
    expect(lookups.take("default", `s${MAX_HELD}`)).toBeUndefined();
    expect(lookups.take("default", "s0")).toBeDefined();
    lookups.start("default", "next", "app=next");
    expect(lists).toHaveLength(2 * MAX_HELD + 2);
  });
});
