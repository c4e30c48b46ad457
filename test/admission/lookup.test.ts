/** lookupStatefulSetWith's cache (src/admission/lookup.ts): its time-to-live on a real clock, and its size bound. */
import { describe, expect, it } from "vitest";
import { lookupStatefulSetWith, MAX_SET_READS_IN_FLIGHT, SET_CACHE_TTL_MS } from "../../src/admission/lookup.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { sampleSet } from "./helpers.ts";

/** client answers a GET of `<ns>/<name>` with a set of that name and uid `uid-<name>`, and records it. */
function client() {
  const calls: string[] = [];
  const get = async (_r: unknown, ns: string, name: string) => {
    calls.push(`${ns}/${name}`);
    return { ...structuredClone(sampleSet()), metadata: { name, namespace: ns, uid: `uid-${name}` } };
  };
  return { c: { get } as unknown as KubeClient, calls };
}

describe("lookupStatefulSetWith", () => {
  it.each<[string, number, number]>([
    ["a millisecond before the time-to-live: cached", SET_CACHE_TTL_MS - 1, 1],
    ["at the time-to-live: fetched again", SET_CACHE_TTL_MS, 2],
  ])("%s", async (_, later, gets) => {
    let t = Date.parse("2026-11-21T12:00:00Z");
    const { c, calls } = client();
    const lookup = lookupStatefulSetWith(c, () => t);
    await lookup("default", "web", "uid-web");
    t += later;
    expect((await lookup("default", "web", "uid-web"))?.metadata.name).toBe("web");
    expect(calls).toHaveLength(gets);
  });

  it("remembers 256 sets: the oldest is dropped for the 257th, the others stay", async () => {
    const { c, calls } = client();
    const lookup = lookupStatefulSetWith(c, () => 0);
    const names = Array.from({ length: 257 }, (_, i) => `s${i}`);
    for (const n of names) await lookup("default", n, `uid-${n}`);
    expect(calls).toHaveLength(257);
    await lookup("default", "s1", "uid-s1");
    await lookup("default", "s256", "uid-s256");
    expect(calls).toHaveLength(257);
    await lookup("default", "s0", "uid-s0");
    expect(calls.slice(257)).toEqual(["default/s0"]);
  });

  it("remember: a set admitted with a uid serves pods naming that uid without a GET; another uid, a set without a uid or one that does not parse is fetched", async () => {
    const { c, calls } = client();
    const lookup = lookupStatefulSetWith(c, () => 0);
    const admitted = (name: string, uid?: string) => ({ ...structuredClone(sampleSet()), metadata: { name, namespace: "default", ...(uid ? { uid } : {}) } });
    lookup.remember(admitted("web", "uid-web"));
    lookup.remember(admitted("db"));
    lookup.remember({ ...admitted("cache", "uid-cache"), spec: { replicas: "many" } });
    expect((await lookup("default", "web", "uid-web"))?.metadata.uid).toBe("uid-web");
    expect(calls).toEqual([]);
    await lookup("default", "db", "uid-db");
    await lookup("default", "cache", "uid-cache");
    expect(calls).toEqual(["default/db", "default/cache"]);
    // A set admitted again under its name (deleted and recreated) replaces the one remembered.
    lookup.remember(admitted("web", "uid-web-2"));
    await lookup("default", "web", "uid-web");
    expect(calls).toEqual(["default/db", "default/cache", "default/web"]);
  });

  it("lookups of one set while its GET is in flight share it: 20 at once (pods of a new set, or forged reviews naming it) send one", async () => {
    const { c, calls } = client();
    const lookup = lookupStatefulSetWith(c, () => 0);
    const sets = await Promise.all(Array.from({ length: 20 }, () => lookup("victim", "web")));
    expect(calls).toEqual(["victim/web"]);
    expect(sets.every((s) => s?.metadata.name === "web")).toBe(true);
    await lookup("victim", "web");
    expect(calls).toEqual(["victim/web", "victim/web"]);
  });

  /** heldGets returns a client whose GETs wait until the test releases them, oldest first. */
  function heldGets() {
    const calls: string[] = [];
    const waiting: (() => void)[] = [];
    const get = async (_r: unknown, ns: string, name: string) => {
      calls.push(`${ns}/${name}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { ...structuredClone(sampleSet()), metadata: { name, namespace: ns, uid: `uid-${name}` } };
    };
    const releaseOne = async () => {
      waiting.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    };
    return { c: { get } as unknown as KubeClient, calls, releaseOne };
  }

  it("at most MAX_SET_READS_IN_FLIGHT GETs at once: forged reviews naming 40 sets send 16, the others wait their turn; a set being read or queued is shared", async () => {
    const { c, calls, releaseOne } = heldGets();
    const lookup = lookupStatefulSetWith(c, () => 0);
    const answers = Array.from({ length: 40 }, (_, i) => lookup("victim", `s${i}`).then((s) => s?.metadata.name, (e: Error) => e.message));
    const shared = lookup("victim", "s0");
    const sharedQueued = lookup("victim", "s30");
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(MAX_SET_READS_IN_FLIGHT);
    expect(MAX_SET_READS_IN_FLIGHT).toBe(16);
    for (let i = 0; i < 40; i++) await releaseOne();
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`));
    expect(calls).toHaveLength(40);
    expect((await shared)?.metadata.name).toBe("s0");
    expect((await sharedQueued)?.metadata.name).toBe("s30");
  });

  it("a genuine pod's lookup is never refused for forged ones: 200 forged lookups of one namespace queued, another namespace's set is read in the next turn", async () => {
    // Before: the 17th lookup (the genuine one among them) was refused, and its pod with it (500).
    const { c, calls, releaseOne } = heldGets();
    const lookup = lookupStatefulSetWith(c, () => 0);
    const forged = Array.from({ length: 200 }, (_, i) => lookup("evil", `f${i}`).catch((e: Error) => e.message));
    const genuine = lookup("team", "db");
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(16);
    await releaseOne();
    await releaseOne();
    // The namespaces take turns: "evil" queued first, so one of its reads, then "team"'s.
    expect(calls.slice(16)).toEqual(["evil/f16", "team/db"]);
    for (let i = 0; i < 16; i++) await releaseOne();
    expect((await genuine)?.metadata.name).toBe("db");
    // The queue is bounded: over it, a lookup is refused (try again).
    const small = lookupStatefulSetWith(heldGets().c, () => 0, 1, 2);
    void small("evil", "a");
    void small("evil", "b");
    void small("evil", "c");
    await expect(small("team", "db")).rejects.toThrow("1 StatefulSet reads are in flight and 2 waiting already: try again");
    for (let i = 0; i < 183; i++) await releaseOne();
    expect((await Promise.all(forged)).map((s) => (typeof s === "string" ? s : s?.metadata.name))).toEqual(Array.from({ length: 200 }, (_, i) => `f${i}`));
  });

  it("sets of the same name in two namespaces are two entries", async () => {
    const { c, calls } = client();
    const lookup = lookupStatefulSetWith(c, () => 0);
    expect((await lookup("a", "web", "uid-web"))?.metadata.namespace).toBe("a");
    expect((await lookup("b", "web", "uid-web"))?.metadata.namespace).toBe("b");
    expect((await lookup("a", "web", "uid-web"))?.metadata.namespace).toBe("a");
    expect(calls).toEqual(["a/web", "b/web"]);
  });
});
