/** The fake apiserver's watch: what kube-apiserver 1.20 streams for `?watch=true` on a collection. */
import { describe, expect, it } from "vitest";
import type { WatchEvent } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", labels }, spec: { containers: [{ name: "c", image: "i" }] } });

/** collect opens a watch and returns the events seen until `until` returns true on the list. */
async function collect(gen: AsyncGenerator<WatchEvent>, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const ev of gen) {
    out.push(ev);
    if (out.length >= n) break;
  }
  return out;
}

describe("fake apiserver watch", () => {
  it("without a resourceVersion: ADDED for what exists, then the changes, objects typed", async () => {
    const fake = createFakeApiServer({ seed: 1 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch });
    await c.create(R.pods, "default", pod("a"));
    const ac = new AbortController();
    const gen = c.watch(R.pods, "default", { signal: ac.signal });
    const first = collect(gen, 3);
    await new Promise((r) => setTimeout(r, 0));
    await c.create(R.pods, "default", pod("b"));
    await c.patch(R.pods, "default", "a", { metadata: { labels: { x: "1" } } }, "merge");
    const evs = await first;
    ac.abort();
    expect(evs.map((e) => [e.type, e.object.metadata?.name, e.object.kind, e.object.apiVersion])).toEqual([
      ["ADDED", "a", "Pod", "v1"],
      ["ADDED", "b", "Pod", "v1"],
      ["MODIFIED", "a", "Pod", "v1"],
    ]);
  });

  it("from a list's resourceVersion: only later events; a label selector turns leaving into DELETED and joining into ADDED", async () => {
    const fake = createFakeApiServer({ seed: 1 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch });
    await c.create(R.pods, "default", pod("a", { app: "x" }));
    const { resourceVersion } = await c.listWithVersion(R.pods, "default", "app=x");
    await c.create(R.pods, "default", pod("b"));
    await c.patch(R.pods, "default", "b", { metadata: { labels: { app: "x" } } }, "merge");
    await c.patch(R.pods, "default", "a", { metadata: { labels: { app: "y" } } }, "merge");
    await c.delete(R.pods, "default", "b", { gracePeriodSeconds: 0 });
    // (the fake marks a deleted pod terminating before it removes it: a MODIFIED may come between)
    const evs = (await collect(c.watch(R.pods, undefined, { labelSelector: "app=x", resourceVersion }), 4)).filter((e) => e.type !== "MODIFIED");
    expect(evs.map((e) => [e.type, e.object.metadata?.name])).toEqual([
      ["ADDED", "b"],
      ["DELETED", "a"],
      ["DELETED", "b"],
    ]);
    // Each event's resourceVersion is later than the one before (a DELETED carries the deletion's).
    const rvs = evs.map((e) => Number(e.object.metadata?.resourceVersion));
    expect(rvs[0]).toBeGreaterThan(Number(resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0]);
    expect(rvs[2]).toBeGreaterThan(rvs[1]);
  });

  it("a resourceVersion older than the history answers one ERROR event with a 410 Expired Status", async () => {
    const fake = createFakeApiServer({ seed: 1 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch });
    for (let i = 0; i < 10_005; i++) await c.patch(R.namespaces, undefined, "default", { metadata: { labels: { n: String(i % 7) } } }, "merge");
    const evs = await collect(c.watch(R.pods, "default", { resourceVersion: "2" }), 5);
    expect(evs).toHaveLength(1);
    expect(evs[0].type).toBe("ERROR");
    expect(evs[0].object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
  });

  it("timeoutSeconds ends the stream", async () => {
    const fake = createFakeApiServer({ seed: 1 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch });
    const evs = await collect(c.watch(R.pods, "default", { timeoutSeconds: 0.01 as number }), 1);
    expect(evs).toEqual([]);
  });
});

describe("fake apiserver watch, as 1.20 answers", () => {
  it("an object leaving the selector comes as DELETED with its old labels at the new resourceVersion; a resourceVersion that is not a number is a 400", async () => {
    const fake = createFakeApiServer({ seed: 1 });
    const c = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch });
    await c.create(R.pods, "default", pod("a", { app: "x" }));
    const { resourceVersion } = await c.listWithVersion(R.pods, "default", "app=x");
    const moved = await c.patch<{ metadata?: { resourceVersion?: string } }>(R.pods, "default", "a", { metadata: { labels: { app: "y" } } }, "merge");
    const [ev] = await collect(c.watch(R.pods, "default", { labelSelector: "app=x", resourceVersion }), 1);
    expect(ev.type).toBe("DELETED");
    expect(ev.object.metadata?.labels).toEqual({ app: "x" });
    expect(ev.object.metadata?.resourceVersion).toBe(moved.metadata?.resourceVersion);
    await expect(collect(c.watch(R.pods, "default", { resourceVersion: "abc" }), 1)).rejects.toMatchObject({ code: 400 });
  });
});
