import { describe, expect, it } from "vitest";
import { Feed, NS, T0, newLease } from "./feed.ts";
import { auditWrite, fnv1a32, shardLeaseName } from "./leases.ts";
import { RULES } from "./types.ts";

describe("shardLeaseName (docs/design.md: FNV-1a of the namespace modulo the count)", () => {
  it("is FNV-1a 32 (the published test vectors) and names the shard's Lease", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    expect(shardLeaseName("a", 8)).toBe(`ordinal-reconciler-${0xe40c292c % 8}-of-8`);
    expect(shardLeaseName("a", 1)).toBe("ordinal-reconciler");
  });
});

describe("auditWrite", () => {
  const line = (o: object) => JSON.stringify({ stage: "ResponseComplete", verb: "create", userAgent: "ordinal/node-aaaa", objectRef: { resource: "pods", namespace: NS, name: "web-0" }, responseStatus: { code: 201 }, requestReceivedTimestamp: "2026-12-05T00:00:01.500000Z", ...o });
  const ns = new Set([NS]);

  it("keeps a replica's successful write to a watched namespace, with its holder and time", () => {
    expect(auditWrite(line({}), ns)).toEqual({ at: T0 + 1500, holder: "node-aaaa", verb: "create", namespace: NS, object: `pods ${NS}/web-0` });
  });

  it("drops reads, failed writes, Leases, Events, other namespaces and other clients", () => {
    for (const o of [{ verb: "get" }, { requestURI: `/api/v1/namespaces/${NS}/pods?dryRun=All` }, { responseStatus: { code: 409 } }, { objectRef: { resource: "leases", namespace: NS, name: "x" } }, { objectRef: { resource: "events", namespace: NS } }, { objectRef: { resource: "pods", namespace: "other" } }, { userAgent: "kubectl/v1.32" }, { stage: "ResponseStarted" }]) {
      expect(auditWrite(line(o), ns)).toBeUndefined();
    }
    expect(auditWrite("not json", ns)).toBeUndefined();
    expect(auditWrite(line({ objectRef: { resource: "pods", namespace: "other" } }), new Set())?.namespace).toBe("other");
  });
});

describe("writes and the shard Lease", () => {
  const lease = shardLeaseName(NS, 4);
  const write = (at: number, holder = "node-a") => ({ at, holder, verb: "patch", namespace: NS, object: `pods ${NS}/web-0` });

  it("a write within the holder's Lease is fine; 30 s after its last renewal it is a violation", () => {
    const f = new Feed({ shards: 4 }).add("lease", newLease(lease, "node-a", T0));
    f.checker.audit(write(T0 + 5000));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([]);
    f.checker.audit(write(T0 + 45_000));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([RULES.staleWrite]);
  });

  it("a write after another replica took the Lease is a violation, even within the old duration", () => {
    const f = new Feed({ shards: 4 }).add("lease", newLease(lease, "node-a", T0)).tick(10_000).add("lease", newLease(lease, "node-b", T0 + 10_000));
    f.checker.audit(write(T0 + 15_000));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([RULES.staleWrite]);
  });

  it("a write by a replica that never held the namespace's shard is a violation; another shard's Lease does not count", () => {
    const other = [0, 1, 2, 3].map((i) => `ordinal-reconciler-${i}-of-4`).find((n) => n !== lease)!;
    const f = new Feed({ shards: 4 }).add("lease", newLease(lease, "node-b", T0)).add("lease", newLease(other, "node-a", T0));
    f.checker.audit(write(T0 + 1000));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([RULES.staleWrite]);
  });

  it("without a count given, the writer's Lease among the counts seen is the one judged (Leases of an earlier count stay)", () => {
    const f = new Feed().add("lease", newLease(lease, "node-old", T0)).add("lease", newLease("ordinal-reconciler", "node-a", T0));
    f.checker.audit(write(T0 + 1000));
    f.checker.audit(write(T0 + 2000, "node-old"));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([]);
    f.checker.audit(write(T0 + 3000, "node-c"));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([RULES.staleWrite]);
  });

  it("the shard count is read from the Lease names when not given", () => {
    const f = new Feed().add("lease", newLease(lease, "node-a", T0));
    f.checker.audit(write(T0 + 1000));
    f.checker.judgeAudit();
    expect(f.rules()).toEqual([]);
    expect(f.checker.report().auditWrites).toBe(1);
  });
});
