/**
 * `ordinal serve` replicas sharing deploy/'s 8 shards on the real kube-apiserver (issues 24, 36).
 * Each replica runs with POD_NAME (replica-a, -b, -c): its Lease identity and User-Agent are
 * `<POD_NAME>-<hex>`, so the apiserver's audit log (ORDINAL_AUDIT_LOG, set by run.sh) names it.
 * - Started together, in either order, with deploy/'s settings (8 shards, 30 s Leases): 4 each
 *   within a retry period and two polls (16 s) of both being healthy (before issue 36: one held all
 *   8 for about 20 s, until it had been above its share for two rounds).
 * - With 6 s Leases (retry period 2 s): two share 4/4 and their sets converge; a third joins and
 *   gets its part (3, 3, 2) while every set scales; one is SIGKILLed and the other two hold all 8
 *   within the lease duration plus a retry period and a pass; a set of a moved shard still converges.
 *   A sampler reads the shard Leases' holders every 200 ms throughout; the audit log shows no write
 *   to a namespace by a replica that held neither before nor after it (no two replicas acting on
 *   one namespace at once).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { readAuditLog } from "../support/audit.ts";
import { setManifest } from "../support/fixtures.ts";
import { caBundle, NODE_URL, startNodeServer, unregisterWebhooks, waitHealthy, type Running } from "./servers.ts";
import { admin, kubeletFor, newNamespace, setupCluster, sleep } from "./support.ts";

const N = 8;
const PORTS = [28443, 28444, 28445];
const NAMES = ["replica-a", "replica-b", "replica-c"];
// Registration runs before shard 0's full passes, whoever holds it: every replica registers the
// webhooks at 28443 (replica-a, never killed).
const registration = () => ({ WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() });

/** nameOf returns the replica (POD_NAME) a Lease holder identity or User-Agent belongs to ("" for none). */
const nameOf = (holder: string): string => NAMES.find((n) => new RegExp(`^(ordinal/)?${n}-[0-9a-f]{8}\\b`).test(holder)) ?? "";

/** holders returns which replica holds each shard's Lease now ("" for nobody). */
async function holders(): Promise<string[]> {
  const leases = await admin.list<Lease>(R.leases, "ordinal-system");
  const by = new Map(leases.map((l) => [l.metadata?.name, nameOf(l.spec?.holderIdentity ?? "")]));
  return Array.from({ length: N }, (_, i) => by.get(shardLeaseName(i, N)) ?? "");
}

/** shares returns how many shards each replica of `names` holds. */
const shares = (h: string[], names: string[]): number[] => names.map((n) => h.filter((x) => x === n).length);

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

let servers: Running[] = [];
/** replica starts replica `i` (POD_NAME NAMES[i] on PORTS[i]); the first one of a test frees the Leases an earlier one left. */
function replica(i: number, vars: Record<string, string>): Running {
  const r = startNodeServer({ RECONCILE_SHARDS: String(N), POD_NAME: NAMES[i], ...registration(), ...vars }, { port: PORTS[i], keepLeases: servers.length > 0 });
  servers.push(r);
  return r;
}

beforeAll(setupCluster);
afterEach(async () => {
  for (const s of servers.reverse()) await s.stop();
  servers = [];
  unregisterWebhooks();
});

describe("two `ordinal serve` replicas started together with deploy/'s settings", () => {
  it.each([
    { order: "replica-a first", first: 0 },
    { order: "replica-b first", first: 1 },
  ])("$order: 4 shards each within a retry period and two polls (16 s) of both being healthy", async ({ first }) => {
    const started = [first, 1 - first].map((i) => ({ i, r: replica(i, {}) }));
    for (const { i, r } of started) await waitHealthy(`https://127.0.0.1:${PORTS[i]}`, r);
    const healthyAt = Date.now();
    await until("4 shards each", async () => (shares(await holders(), NAMES.slice(0, 2)).join() === "4,4" ? true : undefined), servers, 16_000);
    const moved = servers.map((s) => (s.output().match(/shards given back/g) ?? []).length);
    console.log(`start (${NAMES[first]} first): 4/4 ${Date.now() - healthyAt} ms after both were healthy (30 s Leases: retry 10 s, poll 2.5 s); handovers: ${moved.join(", ")}`);
  });
});

describe("replicas share 8 shards; a third gets its part; a killed one's shards are taken over; no namespace written by two at once", () => {
  it("6 s Leases: 4/4, then 3/3/2 with a third, then 4/4 after a SIGKILL; sets converge throughout", async () => {
    const auditLog = process.env.ORDINAL_AUDIT_LOG;
    expect(auditLog, "run through npm run e2e (test/e2e/run.sh sets ORDINAL_AUDIT_LOG)").toBeTruthy();
    const vars = { RECONCILE_LEASE_SECONDS: "6" };
    const [a, b] = [replica(0, vars), replica(1, vars)];
    await waitHealthy(NODE_URL, a);
    await waitHealthy(`https://127.0.0.1:${PORTS[1]}`, b);
    await until("webhooks registered", async () => ((await admin.get(R.validatingWebhooks, undefined, "ordinal")) ? true : undefined), servers);
    await until("4 shards each", async () => (shares(await holders(), NAMES.slice(0, 2)).join() === "4,4" ? true : undefined), servers);

    // Who holds each shard, every 200 ms, until the end.
    const samples: { at: number; holders: string[] }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const at = Date.now();
        samples.push({ at, holders: await holders() });
        await sleep(200);
      }
    })();

    // Sets in 8+ namespaces, covering shards of both replicas.
    const byShard = await holders();
    const namespaces: string[] = [];
    while (namespaces.length < 8 || !namespaces.some((n) => byShard[shardOf(n, N)] === NAMES[0]) || !namespaces.some((n) => byShard[shardOf(n, N)] === NAMES[1])) {
      const ns = await newNamespace("shards");
      namespaces.push(ns);
      await admin.create(R.statefulSets, ns, setManifest({ name: "web", namespace: ns, replicas: 1, policy: "Parallel", image: "nginx:1.25", container: "nginx" }));
    }
    for (const ns of namespaces) await until(`${ns}: web-0 Ready`, async () => ((await readyPods(ns)).join() === "web-0" ? true : undefined), servers);

    // A third replica joins while every set scales to 2: it gets its part (3, 3, 2) within a retry period and two polls, plus its start.
    const c = replica(2, vars);
    await waitHealthy(`https://127.0.0.1:${PORTS[2]}`, c);
    const joinedAt = Date.now();
    for (const ns of namespaces) await admin.patch(R.statefulSets, ns, "web", { spec: { replicas: 2 } }, "merge");
    await until("3, 3, 2", async () => ([...shares(await holders(), NAMES)].sort().join() === "2,3,3" ? true : undefined), servers, 10_000);
    console.log(`join: the third replica held its part ${Date.now() - joinedAt} ms after it was healthy (lease 6 s, retry 2 s, poll 500 ms)`);
    for (const ns of namespaces) await until(`${ns}: web-0, web-1 Ready`, async () => ((await readyPods(ns)).join() === "web-0,web-1" ? true : undefined), servers);

    // SIGKILL replica-b: no release, its Leases expire; a and c end with 4 each.
    const lost = (await holders()).flatMap((h, i) => (h === NAMES[1] ? [i] : []));
    const gone = new Promise((r) => b.proc.once("exit", r));
    const killedAt = Date.now();
    process.kill(-b.proc.pid!, "SIGKILL");
    await gone;
    await until("replica-a and replica-c hold all 8", async () => ((await holders()).every((h) => h === NAMES[0] || h === NAMES[2]) ? true : undefined), servers);
    const tookMs = Date.now() - killedAt;
    console.log(`takeover: the survivors held all ${N} shards ${tookMs} ms after the SIGKILL (lease 6 s, retry 2 s)`);
    // Lease duration + a retry period, and a pass (plus this test's 250 ms polling).
    expect(tookMs).toBeLessThan(6_000 + 2_000 + 5_000);
    await until("4 each", async () => (shares(await holders(), [NAMES[0], NAMES[2]]).join() === "4,4" ? true : undefined), servers);

    // A set of a shard that moved still converges: scaled up.
    const moved = namespaces.find((n) => lost.includes(shardOf(n, N)))!;
    await admin.patch(R.statefulSets, moved, "web", { spec: { replicas: 3 } }, "merge");
    await until(`${moved}: web-0..2 Ready`, async () => ((await readyPods(moved)).join() === "web-0,web-1,web-2" ? true : undefined), servers);
    sampling = false;
    await sampler;

    // The audit log: every write of a replica in these namespaces came while it held the namespace's shard by the samples around it.
    const writes = readAuditLog(auditLog!).filter((e) => nameOf(e.userAgent) && namespaces.includes(e.namespace ?? "") && !["get", "list", "watch"].includes(e.verb));
    expect(new Set(writes.map((w) => nameOf(w.userAgent)))).toEqual(new Set(NAMES));
    const overlaps = writes.flatMap((w) => {
      const shard = shardOf(w.namespace!, N);
      const before = [...samples].reverse().find((s) => s.at <= w.at);
      const after = samples.find((s) => s.at >= w.at);
      const who = nameOf(w.userAgent);
      return before && after && before.holders[shard] !== who && after.holders[shard] !== who ? [`${who} ${w.verb} ${w.resource} in ${w.namespace} (shard ${shard}) at ${new Date(w.at).toISOString()}: held by ${before.holders[shard] || "nobody"}, then ${after.holders[shard] || "nobody"}`] : [];
    });
    console.log(`audit: ${writes.length} writes by the replicas in ${namespaces.length} namespaces checked against ${samples.length} samples of the shard holders`);
    expect(overlaps).toEqual([]);
  });
});
