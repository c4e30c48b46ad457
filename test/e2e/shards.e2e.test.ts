/**
 * Two `ordinal serve` replicas sharing 8 shards on the real kube-apiserver (issue 24): with
 * RECONCILE_SHARDS=8 each takes its fair share (4, read from the shard Leases), sets in namespaces
 * of both replicas' shards converge; one replica is SIGKILLed and the other holds all 8 within the
 * lease duration plus a retry period and a pass, and a set of a shard it took over still converges
 * (scaled up). The apiserver's audit log (ORDINAL_AUDIT_LOG, set by run.sh; each replica's
 * User-Agent is `ordinal/<holder>`) shows each namespace written, until the kill, by its shard's
 * holder only, and after it by the survivor only. Leases of 6 s (RECONCILE_LEASE_SECONDS): retry
 * period 2 s, so the file runs in well under a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { readAuditLog } from "../support/audit.ts";
import { setManifest } from "../support/fixtures.ts";
import { caBundle, NODE_URL, startNodeServer, unregisterWebhooks, waitHealthy, type Running } from "./servers.ts";
import { admin, kubeletFor, newNamespace, setupCluster, sleep } from "./support.ts";

const N = 8;
const LEASE_SECONDS = 6;
const RETRY_MS = (LEASE_SECONDS * 1000) / 3;
const SECOND_URL = "https://127.0.0.1:28444";
const shared = { RECONCILE_SHARDS: String(N), RECONCILE_LEASE_SECONDS: String(LEASE_SECONDS) };

/** holders returns who holds each shard's Lease now ("" for nobody). */
async function holders(): Promise<string[]> {
  const leases = await admin.list<Lease>(R.leases, "ordinal-system");
  const by = new Map(leases.map((l) => [l.metadata?.name, l.spec?.holderIdentity ?? ""]));
  return Array.from({ length: N }, (_, i) => by.get(shardLeaseName(i, N)) ?? "");
}

/** holderOf returns the replica's Lease identity, from the "lease acquired" lines it logged. */
const holderOf = (r: Running): string | undefined => /"msg":"lease acquired".*?"holder":"(node-[0-9a-f]{8})"/.exec(r.output())?.[1];

async function until<T>(what: string, f: () => Promise<T | undefined>, servers: Running[], timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${servers.map((s) => s.output().slice(-3000)).join("\n----\n")}`);
}

/** readyPods returns the names of the namespace's Ready pods after one kubelet step. */
async function readyPods(ns: string): Promise<string[]> {
  await kubeletFor(ns).step();
  const pods = await admin.list<Pod>(R.pods, ns);
  return pods
    .filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .map((p) => p.metadata!.name!)
    .sort();
}

beforeAll(setupCluster);

describe("two `ordinal serve` replicas share 8 shards, and one takes over when the other dies", () => {
  let first: Running | undefined;
  let second: Running | undefined;
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    unregisterWebhooks();
  });

  it("share (4 each), converge, SIGKILL one: the other holds all 8 within duration + retry + a pass; no namespace written by both", async () => {
    const auditLog = process.env.ORDINAL_AUDIT_LOG;
    expect(auditLog, "run through npm run e2e (test/e2e/run.sh sets ORDINAL_AUDIT_LOG)").toBeTruthy();
    // Both keep the webhooks registered at the first one (28443): registration runs before shard 0's
    // full passes, whoever holds it; the second (28444) is the one killed.
    const registration = { WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() };
    first = startNodeServer({ ...shared, ...registration });
    second = startNodeServer({ ...shared, ...registration }, { port: 28444, keepLeases: true });
    const servers = [first, second];
    await waitHealthy(NODE_URL, first);
    await waitHealthy(SECOND_URL, second);
    await until("webhooks registered", async () => ((await admin.get(R.validatingWebhooks, undefined, "ordinal")) ? true : undefined), servers);

    // Each holds its fair share: 4 shards each, read from the Leases.
    const [a, b] = await until("each replica holds 4 shards", async () => {
      const h = await holders();
      const ids = [holderOf(first!), holderOf(second!)];
      if (!ids[0] || !ids[1]) return undefined;
      return h.filter((x) => x === ids[0]).length === 4 && h.filter((x) => x === ids[1]).length === 4 ? (ids as [string, string]) : undefined;
    }, servers);
    const byShard = await holders();

    // Sets in 8+ namespaces, covering shards of both replicas.
    const namespaces: string[] = [];
    while (namespaces.length < 8 || !namespaces.some((n) => byShard[shardOf(n, N)] === a) || !namespaces.some((n) => byShard[shardOf(n, N)] === b)) {
      const ns = await newNamespace("shards");
      namespaces.push(ns);
      await admin.create(R.statefulSets, ns, setManifest({ name: "web", namespace: ns, replicas: 1, policy: "Parallel", image: "nginx:1.25", container: "nginx" }));
    }
    for (const ns of namespaces) await until(`${ns}: web-0 Ready`, async () => ((await readyPods(ns)).join() === "web-0" ? true : undefined), servers);

    // SIGKILL the second replica: no release, its Leases expire.
    const gone = new Promise((r) => second!.proc.once("exit", r));
    const killedAt = Date.now();
    process.kill(-second.proc.pid!, "SIGKILL");
    await gone;
    await until("the survivor holds all 8 shards", async () => ((await holders()).every((h) => h === a) ? true : undefined), servers);
    const tookMs = Date.now() - killedAt;
    console.log(`takeover: the survivor held all ${N} shards ${tookMs} ms after the SIGKILL (lease ${LEASE_SECONDS} s, retry ${RETRY_MS} ms)`);
    // Lease duration + a retry period, and a pass (plus this test's 250 ms polling).
    expect(tookMs).toBeLessThan(LEASE_SECONDS * 1000 + RETRY_MS + 5_000);

    // A set of a shard the survivor took over still converges: scaled up.
    const moved = namespaces.find((n) => byShard[shardOf(n, N)] === b)!;
    await admin.patch(R.statefulSets, moved, "web", { spec: { replicas: 2 } }, "merge");
    await until(`${moved}: web-0, web-1 Ready`, async () => ((await readyPods(moved)).join() === "web-0,web-1" ? true : undefined), servers);

    // The audit log: who wrote in each namespace, and when.
    const writes = readAuditLog(auditLog!).filter((e) => e.userAgent.startsWith("ordinal/node-") && namespaces.includes(e.namespace ?? "") && e.verb !== "get" && e.verb !== "list" && e.verb !== "watch");
    const holder = (ua: string) => ua.slice("ordinal/".length).split(" ")[0];
    expect(writes.some((w) => holder(w.userAgent) === a) && writes.some((w) => holder(w.userAgent) === b)).toBe(true);
    for (const ns of namespaces) {
      const before = new Set(writes.filter((w) => w.namespace === ns && w.at < killedAt).map((w) => holder(w.userAgent)));
      // Until the kill, only the holder of the namespace's shard wrote there (the shards did not move).
      expect([ns, [...before]]).toEqual([ns, before.size ? [byShard[shardOf(ns, N)]] : []]);
    }
    const after = new Set(writes.filter((w) => w.at >= killedAt).map((w) => holder(w.userAgent)));
    expect([...after]).toEqual([a]);
    expect(writes.some((w) => w.namespace === moved && w.at >= killedAt)).toBe(true);
  });
});
