/** The informer (list + watch mirror) and the caching client over it, on the fake apiserver's watch. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { cachingClient, matcher } from "../../src/kube/cached-client.ts";
import type { KubeObject } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { Informer, newerThan } from "../../src/kube/informer.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { mulberry32 } from "../../src/sim/fake-apiserver/random.ts";

const LABEL = "ordinal.dev/statefulset";
const pod = (name: string, labels: Record<string, string> = { [LABEL]: "web" }) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", labels }, spec: { containers: [{ name: "c", image: "i" }] } });
const tick = () => new Promise((r) => setTimeout(r, 0));

/** until waits (event loop turns, no wall clock) until `f` is true. */
async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !f(); i++) await tick();
  expect(f()).toBe(true);
}

function setup(o: { maxBytes?: number; sleep?: (ms: number) => Promise<void> } = {}) {
  const fake = createFakeApiServer({ seed: 1 });
  const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch, sleep: async () => {} });
  const events: string[] = [];
  const informer = new Informer(c, { resource: R.pods, labelSelector: LABEL, log: silentLogger, sleep: async () => tick().then(() => undefined), holds: (p) => p.metadata?.labels?.[LABEL] !== undefined, onEvent: (t, obj) => events.push(`${t} ${obj.metadata?.name}`), ...o });
  return { fake, c, informer, events };
}

const names = (objs: KubeObject[]) => objs.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`);

describe("Informer", () => {
  it("mirrors what a list returns, through random writes, a broken watch and a 410", async () => {
    const { fake, c, informer } = setup();
    informer.start();
    await until(() => informer.synced);
    const rng = mulberry32(7);
    for (let step = 0; step < 300; step++) {
      const n = `p${Math.floor(rng() * 12)}`;
      const r = rng();
      if (step === 100) fake.faults.add({ verb: "watch", resource: "pods", fault: "network", times: 2 });
      try {
        if (r < 0.4) await c.create(R.pods, "default", pod(n, rng() < 0.8 ? { [LABEL]: "web" } : { other: "x" }));
        else if (r < 0.7) await c.patch(R.pods, "default", n, { metadata: { labels: rng() < 0.5 ? { [LABEL]: "web" } : { [LABEL]: null } } }, "merge");
        else await c.delete(R.pods, "default", n, { gracePeriodSeconds: 0 });
      } catch {
        // absent or already there: the mirror must agree either way
      }
      if (step % 25 === 0) await tick();
    }
    const want = await c.list<KubeObject>(R.pods, "default", { labelSelector: LABEL });
    await until(() => JSON.stringify(names(informer.list("default", () => true))) === JSON.stringify(names(want)));
    await informer.stop();
  });

  it("relists after a 410 and tells onEvent what changed while it was not watching", async () => {
    const fake = createFakeApiServer({ seed: 1, watchHistory: 5 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch, sleep: async () => {} });
    const events: string[] = [];
    const informer = new Informer(c, { resource: R.pods, labelSelector: LABEL, log: silentLogger, watchTimeoutSeconds: 0.02, sleep: () => tick().then(() => undefined), onEvent: (t, o) => events.push(`${t} ${o.metadata?.name}`) });
    await c.create(R.pods, "default", pod("a"));
    await c.create(R.pods, "default", pod("b"));
    informer.start();
    await until(() => informer.synced);
    // The watch ends by itself (timeoutSeconds); while it cannot be opened again, more changes than the history keeps.
    const down = fake.faults.add({ verb: "watch", resource: "pods", fault: "network" });
    await until(() => down.hits > 0);
    await c.delete(R.pods, "default", "a", { gracePeriodSeconds: 0 });
    await c.create(R.pods, "default", pod("c"));
    for (let i = 0; i < 8; i++) await c.patch(R.pods, "default", "b", { metadata: { labels: { n: String(i) } } }, "merge");
    down.remove();
    const want = await c.list<KubeObject>(R.pods, "default", { labelSelector: LABEL });
    await until(() => JSON.stringify(names(informer.list("default", () => true))) === JSON.stringify(names(want)));
    expect(events).toEqual(expect.arrayContaining(["DELETED a", "ADDED c", "MODIFIED b"]));
    // Listed twice by the informer (at start, after the 410) and once by the test.
    expect(fake.log.entries.filter((e) => e.verb === "list" && e.resource === "pods").length).toBe(3);
    await informer.stop();
  });

  it("holds its own writes at once, and an older event never replaces a later write", async () => {
    const { c, informer } = setup();
    informer.start();
    await until(() => informer.synced);
    const created = await c.create<KubeObject>(R.pods, "default", pod("a"));
    informer.observe(created);
    expect(informer.get("default", "a")?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const patched = await c.patch<KubeObject>(R.pods, "default", "a", { metadata: { labels: { x: "1" } } }, "merge");
    informer.observe(patched);
    informer.observe(created); // stale: ignored
    expect(informer.get("default", "a")?.metadata?.labels?.x).toBe("1");
    await until(() => informer.get("default", "a")?.metadata?.resourceVersion === patched.metadata?.resourceVersion);
    await informer.stop();
  });

  it("a delete of ours marks a pod terminating until the watch says more; a revision is dropped", async () => {
    const { c, informer } = setup();
    informer.start();
    await until(() => informer.synced);
    informer.observe(await c.create<KubeObject>(R.pods, "default", pod("a")));
    informer.observeDelete("default", "a");
    expect(informer.get("default", "a")?.metadata?.deletionTimestamp).toBeTruthy();
    await informer.stop();
  });

  it("gives up past its memory budget: unsynced, nothing held", async () => {
    const { c, informer } = setup({ maxBytes: 3000 });
    informer.start();
    await until(() => informer.synced);
    for (let i = 0; i < 5; i++) await c.create(R.pods, "default", pod(`p${i}`));
    await until(() => !informer.synced);
    expect(informer.heldBytes).toBe(0);
    expect(informer.list(undefined, () => true)).toEqual([]);
  });
});

describe("newerThan", () => {
  it.each([
    ["10", "9", true],
    ["9", "10", false],
    ["123", "124", false],
    ["5", "5", false],
    ["x", "5", true],
  ])("%s after %s: %s", (a, b, want) => expect(newerThan(a, b)).toBe(want));
});

describe("cachingClient", () => {
  it("answers covered lists and gets from the mirror without a request; the rest goes to the apiserver", async () => {
    const { fake, c, informer } = setup();
    await c.create(R.pods, "default", pod("a"));
    await c.create(R.pods, "default", pod("b", { [LABEL]: "db" }));
    await c.create(R.pods, "default", pod("z", { app: "z" }));
    informer.start();
    await until(() => informer.synced);
    const cached = cachingClient(c, [informer]);
    fake.log.clear();
    expect((await cached.list<KubeObject>(R.pods, "default", { labelSelector: LABEL })).map((p) => p.metadata?.name)).toEqual(["a", "b"]);
    expect((await cached.list<KubeObject>(R.pods, "default", { labelSelector: `${LABEL}=db` })).map((p) => p.metadata?.name)).toEqual(["b"]);
    expect((await cached.list<KubeObject>(R.pods, "other", { labelSelector: LABEL })).length).toBe(0);
    expect((await cached.get<KubeObject>(R.pods, "default", "a"))?.metadata?.name).toBe("a");
    expect(fake.log.total).toBe(0);
    // Not held (no label): the apiserver answers.
    expect((await cached.get<KubeObject>(R.pods, "default", "z"))?.metadata?.name).toBe("z");
    expect((await cached.list<KubeObject>(R.pods, "default", { labelSelector: "app=z" })).map((p) => p.metadata?.name)).toEqual(["z"]);
    expect(fake.log.total).toBe(2);
    // A write is seen by the next read, before any watch event could come.
    await cached.patch(R.pods, "default", "a", { metadata: { labels: { seen: "yes" } } }, "merge");
    expect((await cached.get<KubeObject>(R.pods, "default", "a"))?.metadata?.labels?.seen).toBe("yes");
    // Copies: what a reader changes is not the mirror's.
    const mine = await cached.get<KubeObject>(R.pods, "default", "a");
    mine!.metadata!.labels!.seen = "changed";
    expect((await cached.get<KubeObject>(R.pods, "default", "a"))?.metadata?.labels?.seen).toBe("yes");
    await informer.stop();
  });

  it.each([
    [LABEL, { labelSelector: LABEL }, true],
    [LABEL, { labelSelector: `${LABEL}=web` }, true],
    [LABEL, { labelSelector: `${LABEL}=web,app=x` }, true],
    [LABEL, { labelSelector: "app=x" }, false],
    [LABEL, { labelSelector: `${LABEL} in (web)` }, false],
    [LABEL, { labelSelector: LABEL, fieldSelector: "metadata.name=a" }, true],
    [LABEL, { labelSelector: LABEL, fieldSelector: "spec.nodeName=n" }, false],
    [undefined, { fieldSelector: "metadata.name=a" }, true],
    [undefined, {}, true],
  ])("informer %s answers %j: %s", (own, opts, want) => expect(!!matcher(own, opts)).toBe(want));
});

describe("Informer of a resource the apiserver does not serve", () => {
  it("is synced and empty (as a list answering 404 means), so readers need not ask", async () => {
    const fake = createFakeApiServer({ seed: 1, customResources: [] });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch, sleep: async () => {} });
    const informer = new Informer(c, { resource: R.imageLists, log: silentLogger, sleep: () => tick().then(() => undefined) });
    informer.start();
    await until(() => informer.synced);
    expect(informer.list(undefined, () => true)).toEqual([]);
    fake.log.clear();
    expect(await cachingClient(c, [informer]).list(R.imageLists, "default")).toEqual([]);
    expect(fake.log.total).toBe(0);
    await informer.stop();
  });
});

describe("Informer under the review's failure cases", () => {
  it("a watch refused (403: RBAC without watch) leaves the mirror unsynced: readers go to the apiserver", async () => {
    const { fake, c, informer } = setup();
    await c.create(R.pods, "default", pod("a"));
    fake.faults.add({ verb: "watch", resource: "pods", fault: { status: 403, reason: "Forbidden" } });
    informer.start();
    await until(() => fake.log.entries.filter((e) => e.verb === "watch").length >= 2);
    expect(informer.synced).toBe(false);
    await c.create(R.pods, "default", pod("b"));
    expect((await cachingClient(c, [informer]).list<KubeObject>(R.pods, "default", { labelSelector: LABEL })).map((p) => p.metadata?.name)).toEqual(["a", "b"]);
    await informer.stop();
  });

  it("an own write that removes the selector label leaves the mirror (either order of answer and DELETED)", async () => {
    const { c, informer } = setup();
    const cc = cachingClient(c, [informer]);
    await c.create(R.pods, "default", pod("a"));
    informer.start();
    await until(() => informer.synced);
    await cc.patch(R.pods, "default", "a", { metadata: { labels: { [LABEL]: null } } }, "merge");
    for (let i = 0; i < 50; i++) await tick();
    expect(informer.get("default", "a")).toBeUndefined();
    expect(await cc.get<KubeObject>(R.pods, "default", "a")).toMatchObject({ metadata: { name: "a" } });
    await informer.stop();
  });

  it("a write's answer that comes after the watch's DELETED does not bring the object back", async () => {
    const { c, informer, events } = setup();
    await c.create(R.pods, "default", pod("a"));
    informer.start();
    await until(() => informer.synced);
    const patched = await c.patch<KubeObject>(R.pods, "default", "a", { metadata: { annotations: { n: "1" } } }, "merge");
    await c.delete(R.pods, "default", "a", { gracePeriodSeconds: 0 });
    await until(() => events.includes("DELETED a"));
    informer.observe(patched);
    expect(informer.get("default", "a")).toBeUndefined();
    await informer.stop();
  });

  it("stop() ends a failure backoff at once", async () => {
    const { fake, informer } = setup({ sleep: () => new Promise<void>(() => {}) });
    fake.faults.add({ verb: "list", resource: "pods", fault: "network" });
    informer.start();
    await until(() => fake.log.entries.some((e) => e.verb === "list"));
    await informer.stop(); // would never return while the backoff's sleep waits
  });
});

describe("Informer's waits", () => {
  it("leave no abort listener behind: a watch refused 40 times holds none (a listener per wait grew without bound)", async () => {
    const { fake, informer } = setup();
    fake.faults.add({ verb: "watch", resource: "pods", fault: { status: 403, reason: "Forbidden" } });
    informer.start();
    await until(() => fake.log.entries.filter((e) => e.verb === "watch").length >= 40);
    const signal = (informer as unknown as { abort: AbortController }).abort.signal;
    expect(getEventListeners(signal, "abort").length).toBeLessThanOrEqual(1);
    await informer.stop();
  });
});
