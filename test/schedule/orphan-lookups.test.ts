/** OrphanLookups (src/schedule/orphan-lookups.ts): one lookup per set at a time, taken once, dropped after LOOKUP_TTL_MS, within the limiter. */
import { describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.ts";
import { LOOKUP_TTL_MS, OrphanLookups } from "../../src/schedule/orphan-lookups.ts";
import { WakeLimiter } from "../../src/schedule/wake-limiter.ts";

function setup(rate = { burst: 20, perSecond: 10 }) {
  let t = 0;
  const lists: string[] = [];
  const client = { list: async (r: { resource: string }, ns: string, o: { labelSelector: string }) => (lists.push(`${ns} ${r.resource} ${o.labelSelector}`), []) } as unknown as KubeClient;
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
    expect(await l?.found).toEqual({ pods: [], revisions: [] });
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

  it("the limiter bounds them: beyond a set's burst none is sent", () => {
    const { lookups, lists } = setup({ burst: 1, perSecond: 1 });
    lookups.start("default", "web", "app=web");
    lookups.take("default", "web");
    lookups.start("default", "web", "app=web");
    expect(lists).toHaveLength(2);
    expect(lookups.take("default", "web")).toBeUndefined();
  });

  it("holds 64 at most", () => {
    const { lookups, lists } = setup();
    for (let i = 0; i < 70; i++) lookups.start("default", `s${i}`, "app=web");
    expect(lists).toHaveLength(128);
    expect(lookups.take("default", "s64")).toBeUndefined();
    expect(lookups.take("default", "s63")).toBeDefined();
  });
});
