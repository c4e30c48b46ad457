/**
 * Seeded randomized runs of sharded reconcilers (issue 24): 2–3 `ordinal serve` replicas, each
 * electing itself for each of 4 shards' Leases (LeaderElector, client-go style) and running the
 * full passes of the shards it leads through the fence (fencedClient, as ReconcileScheduler
 * composes them), on the fake apiserver, driven by one injected clock: deterministic, no timers.
 * Sets live in six namespaces spread over the four shards. During the chaos:
 * - every replica's requests get 409/429/500/network faults and lost responses (chaos.ts's kinds);
 * - replicas die: a crash at one of their next requests cuts a pass mid-way (no Lease release),
 *   or they die between steps; a dead replica restarts later (the same identity or a new one);
 * - a replica pauses (a long GC pause, a partition) right after one of its calls: the world goes
 *   on for several steps without it (the others renew, take its expired Leases and act), then its
 *   pass resumes where it stopped, Lease lapsed; also between the retries of one call (the fence
 *   is asked before every attempt: with it asked once per call, a retry landed after the Lease
 *   moved at seed 23 of 80);
 * - the kubelet player moves pods and a person scales sets, changes images, deletes and fails pods.
 * Checked on every write a replica's request applied in a namespace: the shard's Lease on the
 * apiserver names that replica (the fence refused its writes once the Lease moved), and no other
 * replica believed it led that shard then. Checked all along: one pod per ordinal, no PVC deleted
 * without a retention policy. Once the chaos stops (dead replicas restarted), every set converges
 * to upstream's end state. A last case turns the fence off (writes pass unchecked) and requires the
 * same oracle to catch it. Runs 4 seeds by default and 150 under ORDINAL_THOROUGH=1.
 */
import { describe, expect, it } from "vitest";
import type { Lease, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { getOrdinal } from "../../src/objects/names.ts";
import { LeaderElector, type ElectionTiming } from "../../src/lease/elector.ts";
import { fencedClient } from "../../src/lease/fence.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { faultFetch } from "../../src/sim/faults/fault-fetch.ts";
import { Faults, networkError, type FaultKind } from "../../src/sim/faults/faults.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { convergedTo, mulberry32 } from "./chaos.ts";

const FILE = "test/reconciler/shard-chaos-runs.test.ts";
const RUNS = randomRuns(4, 150);
const SHARDS = 4;
const LEASE_NS = "ordinal-system";
/** Six namespaces over the four shards (FNV-1a: shards 0, 1, 2, 3, 0, 1). */
const NAMESPACES = ["ns-a", "ns-b", "ns-c", "ns-d", "ns-e", "ns-f"];
const ELECTION: ElectionTiming = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const CHAOS_STEPS = 60;
const MAX_STEPS = 150;

type Rnd = () => number;
/** The faults of every replica's requests while chaos lasts (conflicts fall on writes only). */
const CHAOS_KINDS: readonly FaultKind[] = ["conflict", "throttle", "internal", "network", "lost"];

interface SetPlan {
  namespace: string;
  name: string;
  whenScaled: "Retain" | "Delete";
  claims: number;
}

/** The world all replicas share: the apiserver, the clock, and the oracle's findings. */
interface World {
  fake: FakeApiServer;
  rnd: Rnd;
  /** Local ms of every replica (one clock: the elector's rule never compares clocks anyway). */
  t: number;
  chaos: boolean;
  fenceOn: boolean;
  violations: string[];
  replicas: Replica[];
  kubelet: KubeletPlayer;
  /** Set while a replica is paused: the world goes on without it (no nested pauses). */
  paused: Replica | undefined;
  counts: { crashes: number; pauses: number; lapsedPauses: number; takeovers: number; refused: number; writes: number };
}

/** One `ordinal serve` process: its electors (one per shard) and its fault-injecting client; dies and restarts. */
class Replica {
  alive = true;
  holder: string;
  private generation = 0;
  electors: LeaderElector[] = [];
  private client!: KubeClient;
  /** The current process: once dead, none of its requests reaches the apiserver again. */
  private proc = { dead: false };
  private readonly cursors: (string | undefined)[] = [];
  private readonly faults = new Faults();
  /** The process crashes at its request after this many more (while chaos lasts). */
  private crashIn: number | undefined;
  /** Down for this many more steps (when dead). */
  downFor = 0;

  constructor(
    readonly id: string,
    private readonly w: World,
  ) {
    this.holder = id;
    const seed = Math.floor(w.rnd() * 2 ** 32);
    this.faults.random({ seed, rate: 0.05, kinds: CHAOS_KINDS, when: () => w.chaos });
    this.start();
  }

  /** start is a new process: fresh electors (nothing remembered), the same identity or a new one (a new pod). */
  start(): void {
    this.alive = true;
    if (this.generation > 0 && this.w.rnd() < 0.5) this.holder = `${this.id}.${this.generation}`;
    this.generation++;
    const proc = { dead: false };
    this.proc = proc;
    this.crashIn = undefined;
    const faulty = faultFetch(this.w.fake.fetch, this.faults, { after: (info, outcome) => (outcome.applied ? this.observeWrite(info.method, info.path) : undefined) });
    const fetch: FetchLike = async (input, init) => {
      if (proc.dead) throw networkError("the process is dead");
      if (this.crashIn !== undefined && this.crashIn-- <= 0) {
        // Killed at this request, before or after the apiserver applied it: the pass is cut, no Lease released.
        if (this.w.rnd() < 0.5) await faulty(input, init).catch(() => undefined);
        proc.dead = true;
        this.w.counts.crashes++;
        this.die();
        throw networkError("the process was killed");
      }
      const res = await faulty(input, init);
      // Paused after any answer: between two calls, or between a call's retries (a 429/5xx is retried).
      await this.maybePause();
      return res;
    };
    this.client = createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {}, maxAttempts: 2 });
    this.electors = Array.from({ length: SHARDS }, (_, i) => new LeaderElector(this.client, { namespace: LEASE_NS, name: shardLeaseName(i, SHARDS), holder: this.holder }, () => this.w.t, () => new Date(this.w.t), ELECTION));
    this.cursors.length = 0;
  }

  /** die kills the process where it stands: no Lease released. */
  die(): void {
    this.proc.dead = true;
    this.alive = false;
    this.downFor = 1 + Math.floor(this.w.rnd() * 12);
  }

  /** leads is what this process believes about a shard (the elector's renew deadline). */
  leads(shard: number): boolean {
    return this.alive && this.electors[shard].isLeader();
  }

  /**
   * step is one turn of the process: renew or try each shard's Lease when due, then one full pass
   * of each shard it leads (fenced; stopping between sets once it no longer leads). Errors end that
   * attempt or pass (the scheduler logs them and retries); a killed process stops at once.
   */
  async step(): Promise<void> {
    if (!this.alive) return;
    const proc = this.proc;
    if (this.w.chaos && this.crashIn === undefined && this.w.rnd() < 0.05) this.crashIn = Math.floor(this.w.rnd() * 20);
    for (let shard = 0; shard < SHARDS && !proc.dead; shard++) {
      const e = this.electors[shard];
      if (e.msUntilRenew() > 0) continue;
      const was = e.isLeader();
      await e.tryAcquireOrRenew().catch(() => undefined);
      if (!was && e.isLeader()) this.w.counts.takeovers++;
    }
    for (let shard = 0; shard < SHARDS && !proc.dead; shard++) {
      const e = this.electors[shard];
      if (!e.isLeader()) continue;
      const holds = () => {
        if (!this.w.fenceOn || e.isLeader()) return true;
        this.w.counts.refused++;
        return false;
      };
      const pass = await reconcilePass(fencedClient(this.client, holds), {
        now: () => new Date(this.w.t),
        log: silentLogger,
        shard: { index: shard, count: SHARDS },
        startAfter: this.cursors[shard],
        shouldStop: () => proc.dead || !e.isLeader(),
      }).catch(() => undefined);
      if (pass) this.cursors[shard] = pass.cursor;
    }
  }

  /** maybePause, after one of this process's requests while chaos lasts, lets the world go on without it for 2–14 steps. */
  private async maybePause(): Promise<void> {
    const w = this.w;
    if (!w.chaos || w.paused || !this.alive || w.rnd() >= 0.02) return;
    w.paused = this;
    w.counts.pauses++;
    const leadsBefore = this.electors.map((e) => e.isLeader());
    const steps = 2 + Math.floor(w.rnd() * 13);
    for (let i = 0; i < steps; i++) await worldStep(w);
    if (leadsBefore.some((l, s) => l && !this.electors[s].isLeader())) w.counts.lapsedPauses++;
    w.paused = undefined;
  }

  /** observeWrite is the oracle of every request this process's requests applied: a write in a namespace needs the shard's Lease on the apiserver, and no other believer. */
  private observeWrite(method: string, path: string): void {
    if (method === "GET") return;
    const ns = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
    if (!ns || ns === LEASE_NS) return;
    this.w.counts.writes++;
    const shard = shardOf(ns, SHARDS);
    const lease = this.w.fake.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases/${shardLeaseName(shard, SHARDS)}`);
    const holder = lease?.spec?.holderIdentity;
    if (holder !== this.holder) this.w.violations.push(`${this.holder} wrote ${method} ${path} while the Lease of shard ${shard} named ${holder ?? "no one"}`);
    const others = this.w.replicas.filter((r) => r !== this && r.leads(shard)).map((r) => r.holder);
    if (this.leads(shard) && others.length) this.w.violations.push(`${this.holder} and ${others.join(", ")} both believed they led shard ${shard} at ${method} ${path}`);
  }
}

/** worldStep is one step of everything but a paused replica: the live replicas' turns, then the kubelet's, then time passes. */
async function worldStep(w: World): Promise<void> {
  for (const r of w.replicas) if (r !== w.paused) await r.step();
  await w.kubelet.step();
  w.t += 1000 + Math.floor(w.rnd() * 2000);
}

function setsOf(rnd: Rnd): SetPlan[] {
  const out: SetPlan[] = [];
  for (const [i, namespace] of NAMESPACES.entries()) {
    const n = rnd() < 0.4 ? 2 : 1;
    for (let k = 0; k < n; k++) out.push({ namespace, name: `s${i}${k}`, whenScaled: rnd() < 0.5 ? "Retain" : "Delete", claims: rnd() < 0.5 ? 1 : 0 });
  }
  return out;
}

function manifest(p: SetPlan, rnd: Rnd) {
  const onDelete = rnd() < 0.2;
  return setManifest({
    namespace: p.namespace,
    name: p.name,
    replicas: 1 + Math.floor(rnd() * 3),
    policy: rnd() < 0.6 ? "OrderedReady" : "Parallel",
    image: "img:1",
    claims: Array.from({ length: p.claims }, (_, i) => `data${i}`),
    spec: {
      updateStrategy: onDelete ? { type: "OnDelete" } : { type: "RollingUpdate" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: p.whenScaled },
    },
  });
}

interface RunResult {
  steps: number;
  counts: World["counts"];
  violations: string[];
}

async function runOnce(seed: number, fenceOn = true): Promise<RunResult> {
  const rnd = mulberry32(seed);
  const w = {
    rnd,
    t: Date.parse("2026-11-27T00:00:00Z"),
    chaos: true,
    fenceOn,
    violations: [] as string[],
    replicas: [] as Replica[],
    paused: undefined,
    counts: { crashes: 0, pauses: 0, lapsedPauses: 0, takeovers: 0, refused: 0, writes: 0 },
  } as Omit<World, "fake" | "kubelet"> as World;
  const now = () => new Date(w.t);
  w.fake = createFakeApiServer({ now, namespaces: [...NAMESPACES, LEASE_NS] });
  const person = createKubeClient({ baseUrl: "https://fake", fetch: w.fake.fetch, sleep: async () => {} });
  const failPods = new Set<string>();
  w.kubelet = new KubeletPlayer(person, { random: rnd, speed: 0.4 + rnd() * 0.6, now, failPods });
  const sets = setsOf(rnd);
  for (const p of sets) await person.create(R.statefulSets, p.namespace, manifest(p, rnd));
  const replicaCount = 2 + Math.floor(rnd() * 2);
  w.replicas = Array.from({ length: replicaCount }, (_, i) => new Replica(`r${i}`, w));

  const podsOf = (p: SetPlan) => person.list<Pod>(R.pods, p.namespace, { labelSelector: `app=${p.name}` });
  const claimsOf = async (p: SetPlan) => new Set((await person.list<PersistentVolumeClaim>(R.pvcs, p.namespace)).map((c) => c.metadata!.name!).filter((n) => new RegExp(`^data\\d+-${p.name}-\\d+$`).test(n)));
  const condemned = new Map(sets.map((p) => [p.name, new Set<number>()]));
  const claimsSeen = new Map<string, Set<string>>();
  for (const p of sets) claimsSeen.set(p.name, await claimsOf(p));
  let image = 1;

  for (let step = 0; step < MAX_STEPS; step++) {
    await worldStep(w);
    if (w.chaos) {
      for (const r of w.replicas) {
        if (r.alive && rnd() < 0.02) r.die();
        else if (!r.alive && --r.downFor <= 0) r.start();
      }
      const p = sets[Math.floor(rnd() * sets.length)];
      const x = rnd();
      if (x < 0.08) {
        const replicas = Math.floor(rnd() * 4);
        for (let i = replicas; i < 4; i++) condemned.get(p.name)!.add(i);
        await person.patch(R.statefulSets, p.namespace, p.name, { spec: { replicas } }, "merge");
      } else if (x < 0.14) {
        const cur = StatefulSetSchema.parse(await person.get(R.statefulSets, p.namespace, p.name));
        const template = { ...cur.spec.template, spec: { ...cur.spec.template.spec, containers: cur.spec.template.spec.containers.map((c) => ({ ...c, image: `img:${++image}` })) } };
        await person.patch(R.statefulSets, p.namespace, p.name, { spec: { template } }, "merge");
      } else if (x < 0.18) {
        const pods = await podsOf(p);
        const victim = pods[Math.floor(rnd() * pods.length)];
        if (victim && rnd() < 0.5) failPods.add(victim.metadata!.name!);
        else if (victim) await person.delete(R.pods, p.namespace, victim.metadata!.name!);
      }
    }
    if (step === CHAOS_STEPS) {
      // Chaos over: faults stop, no more deaths or pauses, and every dead replica is restarted.
      w.chaos = false;
      for (const r of w.replicas) if (!r.alive) r.start();
    }
    for (const p of sets) {
      const pods = await podsOf(p);
      const ordinals = pods.map((pod) => getOrdinal(pod.metadata!.name!));
      if (new Set(ordinals).size !== ordinals.length) w.violations.push(`${p.namespace}/${p.name}: two pods for one ordinal (${ordinals.join(",")})`);
      const claims = await claimsOf(p);
      for (const c of claimsSeen.get(p.name)!) {
        if (!claims.has(c) && !(p.whenScaled === "Delete" && condemned.get(p.name)!.has(Number(c.split("-").pop())))) w.violations.push(`PVC ${p.namespace}/${c} deleted without a retention policy saying so`);
      }
      claimsSeen.set(p.name, claims);
    }
    if (w.violations.length) return { steps: step, counts: w.counts, violations: w.violations };
    if (!w.chaos && step > CHAOS_STEPS + 2) {
      let all = true;
      for (const p of sets) {
        const set = StatefulSetSchema.parse(await person.get(R.statefulSets, p.namespace, p.name));
        if (!convergedTo(set, await podsOf(p))) all = false;
      }
      if (all) return { steps: step, counts: w.counts, violations: [] };
    }
  }
  const stuck: string[] = [];
  for (const p of sets) {
    const set = StatefulSetSchema.parse(await person.get(R.statefulSets, p.namespace, p.name));
    if (!convergedTo(set, await podsOf(p))) stuck.push(`${p.namespace}/${p.name} (replicas ${set.spec.replicas}, pods ${(await podsOf(p)).map((x) => x.metadata!.name).join(",")})`);
  }
  throw new Error(`did not converge within ${MAX_STEPS} steps: ${stuck.join("; ")}; leases: ${w.fake
    .list<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases`)
    .map((l) => `${l.metadata?.name}=${l.spec?.holderIdentity ?? ""}`)
    .join(", ")}`);
}

describe("randomized runs of sharded replicas that die, pause and restart", () => {
  it(`${RUNS} seeded runs: one writer per namespace (the Lease's holder) and every set converges`, async () => {
    const totals: Record<string, number> = {};
    const checked = async (seed: number) => {
      const r = await runOnce(seed);
      if (r.violations.length) throw new Error(r.violations.slice(0, 5).join("; "));
      return r;
    };
    for (const r of await forEachSeed(FILE, RUNS, checked)) {
      for (const [k, v] of Object.entries(r.counts)) totals[k] = (totals[k] ?? 0) + v;
    }
    console.log(`shard chaos runs: ${RUNS} converged; ${JSON.stringify(totals)}`);
    expect(totals.crashes).toBeGreaterThan(0);
    expect(totals.lapsedPauses).toBeGreaterThan(0);
    expect(totals.refused).toBeGreaterThan(0);
  }, 600_000);

  it("the same oracle catches replicas whose fence is off (a paused pass writes after its Lease moved)", async () => {
    const caught: string[] = [];
    for (let seed = 1; seed <= RUNS && !caught.length; seed++) {
      const r = await runOnce(seed, false).catch((e: unknown) => ({ violations: [] as string[], error: e }));
      caught.push(...r.violations.filter((v) => v.includes("while the Lease of shard")));
    }
    expect(caught.length).toBeGreaterThan(0);
  }, 600_000);
});
