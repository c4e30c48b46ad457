/**
 * A chaos run on a real control plane (test/cluster, started by the caller): deploy/ applied, two
 * `ordinal serve` replicas with deploy/'s settings, each behind its own fault proxy to the
 * apiserver and both behind a webhook "Service"; N mixed sets scaled and re-imaged by a scripted
 * person, the kubelet played; a seeded fault injector; an independent observer (observer/) that
 * counts violations. After the last fault the person stops and the run waits for every set to
 * converge. Returns the figures (report.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { Lease } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { mulberry32 } from "../../src/sim/fake-apiserver/random.ts";
import { applyDeploy, openCluster, restartApiserver, type Cluster } from "./faults/cluster.ts";
import { planFaults, proxyMode, type FaultWindow, type PlannedFault } from "./faults/injector.ts";
import { startNetwork, type Network } from "./faults/network-process.ts";
import { Replica } from "./faults/replicas.ts";
import { startObserver } from "./observer/index.ts";
import { Person } from "./person.ts";
import { chaosFigures, type ChaosFigures } from "./report.ts";
import { chaosSets, type ChaosSet } from "./sets.ts";

export interface ChaosOptions {
  /** The control plane's state dir (test/cluster/start.sh's ORDINAL_CLUSTER_DIR). */
  clusterDir: string;
  /** Its audit log (ORDINAL_AUDIT_LOG), if it writes one. */
  auditLog?: string;
  seed: number;
  /** The fault phase's length. */
  faultMs: number;
  /** How long every set may take to converge after the last fault. */
  convergeLimitMs: number;
  sets: number;
  /** The webhook Service's port, each replica's webhook port, each replica's apiserver proxy port. */
  ports: { front: number; replicas: [number, number]; proxies: [number, number] };
  /** Where replica logs and the run's record go. */
  workDir: string;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_NAMESPACE = "ordinal-system";
/** deploy/ leaves RECONCILE_LEASE_SECONDS at its default. */
const LEASE_SECONDS = 30;

/** freeLeases deletes reconciler Leases an earlier run left (a killed replica does not release them). */
async function freeLeases(c: Cluster): Promise<void> {
  for (const l of await c.admin.list<Lease>(R.leases, LEASE_NAMESPACE)) {
    if (l.metadata?.name?.startsWith("ordinal-reconciler")) await c.admin.delete(R.leases, LEASE_NAMESPACE, l.metadata.name);
  }
}

/** newNamespace creates `name` and waits until its default ServiceAccount has a token (pods need it). */
async function newNamespace(c: Cluster, name: string): Promise<void> {
  if (!(await c.admin.get(R.namespaces, undefined, name))) await c.admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "chaos.ordinal.dev/run": "true" } } });
  for (let i = 0; i < 150; i++) {
    const sa = await c.admin.get<{ secrets?: unknown[] }>(R.serviceAccounts, name, "default");
    if (sa?.secrets?.length) return;
    await sleep(200);
  }
  throw new Error(`namespace ${name}: default ServiceAccount got no token`);
}

/** every runs `f` every `ms` until stopped (one call at a time); returns the stop function. */
function every(ms: number, f: () => Promise<void>): () => Promise<void> {
  let on = true;
  const loop = (async () => {
    while (on) {
      await f().catch(() => undefined);
      await sleep(ms);
    }
  })();
  return async () => {
    on = false;
    await loop;
  };
}

/** Injector executes planned faults, recording each window. */
class Injector {
  readonly windows: FaultWindow[] = [];
  constructor(
    private readonly c: Cluster,
    private readonly replicas: Replica[],
    private readonly net: Network,
    private readonly person: Person,
    private readonly sets: ChaosSet[],
    private readonly random: () => number,
    private readonly log: (l: string) => void,
  ) {}

  async inject(f: PlannedFault): Promise<void> {
    const r = this.replicas[f.replica];
    const target = f.kind.startsWith("webhooks") ? "webhooks" : f.kind === "apiserver-restart" ? "apiserver" : r.o.name;
    const w: FaultWindow = { kind: f.kind, target, ...(target === r.o.name ? { replica: r.o.name } : {}), start: new Date().toISOString() };
    this.windows.push(w);
    this.log(`fault ${f.kind} on ${target} for ${Math.round(f.durationMs / 1000)} s`);
    if (f.kind === "kill") {
      this.net.send({ type: "backend", port: r.o.port, enabled: false });
      await r.kill();
      await sleep(f.durationMs);
      r.start();
      await this.healthy(r);
      this.net.send({ type: "backend", port: r.o.port, enabled: true });
    } else if (f.kind === "stale-leader") {
      this.net.send({ type: "backend", port: r.o.port, enabled: false });
      r.pause();
      await sleep(f.durationMs);
      r.resume();
      this.net.send({ type: "backend", port: r.o.port, enabled: true });
    } else if (f.kind === "apiserver-restart") {
      await restartApiserver(this.c, f.durationMs);
    } else if (f.kind.startsWith("proxy-")) {
      this.net.send({ type: "proxy", name: r.o.name, mode: proxyMode(f.kind, this.random) });
      await sleep(f.durationMs);
      this.net.send({ type: "proxy", name: r.o.name, mode: { kind: "none" } });
    } else {
      this.net.send({ type: "front", up: false });
      // While the webhooks are down, the person makes the apiserver create pods (scale up) or applies a set.
      const s = this.sets[Math.floor(this.random() * this.sets.length)];
      if (f.kind === "webhooks-down-pods") await this.person.scale(s, 4);
      else await this.person.apply(s);
      await sleep(f.durationMs);
      this.net.send({ type: "front", up: true });
    }
    w.end = new Date().toISOString();
  }

  /** healthy waits until the replica's process serves (or 60 s passed). */
  private async healthy(r: Replica): Promise<void> {
    for (let i = 0; i < 240; i++) {
      if (r.holders.length && r.running) return;
      await sleep(250);
    }
  }
}

/** runChaos runs one chaos run and returns its figures. */
export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const log = o.log ?? ((l: string) => console.log(`[chaos] ${new Date().toISOString().slice(11, 19)} ${l}`));
  mkdirSync(o.workDir, { recursive: true });
  // One stream per concern, so what one draws does not shift another's (the plan is the seed's alone).
  const stream = (n: number) => mulberry32(o.seed * 16 + n);
  const c = openCluster(o.clusterDir);
  const token = await applyDeploy(c);
  await freeLeases(c);
  const names = ["chaos-a", "chaos-b"];
  const net = await startNetwork({
    seed: o.seed,
    apiUrl: c.apiUrl,
    caFile: c.caFile,
    proxies: names.map((name, i) => ({ name, port: o.ports.proxies[i] })),
    front: { port: o.ports.front, backends: o.ports.replicas },
  });
  const replicas = names.map(
    (name, i) => new Replica({ name, port: o.ports.replicas[i], apiUrl: `http://127.0.0.1:${o.ports.proxies[i]}`, token, webhookUrl: `https://127.0.0.1:${o.ports.front}`, logFile: `${o.workDir}/${name}.log` }),
  );
  const sets = chaosSets(o.sets, `chaos-${o.seed}`, stream(1));
  const person = new Person(c.admin, sets, stream(2), stream(3));
  const stops: (() => Promise<void>)[] = [];
  const startedAt = Date.now();
  let observer: ReturnType<typeof startObserver> | undefined;
  let injector: Injector | undefined;
  try {
    for (const r of replicas) r.start();
    log(`replicas started; waiting for the webhook configurations to point at the front (127.0.0.1:${o.ports.front})`);
    await waitFor("webhooks registered at the front", 90_000, async () => {
      const v = await c.admin.get<{ webhooks?: { clientConfig?: { url?: string } }[] }>(R.validatingWebhooks, undefined, "ordinal");
      return !!v?.webhooks?.every((w) => w.clientConfig?.url?.startsWith(`https://127.0.0.1:${o.ports.front}`));
    });
    for (const s of sets) await newNamespace(c, s.namespace);
    injector = new Injector(c, replicas, net, person, sets, stream(4), log);
    const inj = injector;
    observer = startObserver({ apiUrl: c.apiUrl, token: c.adminToken, caFile: c.caFile, namespaces: sets.map((s) => s.namespace), auditLogPath: o.auditLog, leaseNamespace: LEASE_NAMESPACE, injected: () => inj.windows, onViolation: (v) => log(`VIOLATION ${v.rule} ${v.object}: ${v.detail}`) });
    for (const s of sets) await person.apply(s);
    log(`${sets.length} sets applied (seed ${o.seed})`);
    stops.push(every(1000, () => person.kubelet()));
    const stopHooks = every(2000, () => person.hooks(true));
    stops.push(stopHooks);
    stops.push(every(5000, async () => replicas.forEach((r) => r.sampleRss())));
    const stopPerson = every(3000, () => person.act());
    stops.push(stopPerson);

    // The fault phase.
    const plan = planFaults(stream(5), o.faultMs, replicas.length, LEASE_SECONDS);
    const phaseStart = Date.now();
    for (const f of plan) {
      await sleep(Math.max(0, phaseStart + f.atMs - Date.now()));
      await injector.inject(f);
    }
    await stopPerson();
    await stopHooks(); // hooks: released from now on, never armed again
    const lastFault = Date.now();
    log(`last fault over (${plan.length} faults); waiting up to ${o.convergeLimitMs / 1000} s for every set to converge`);
    stops.push(every(2000, () => person.releaseAll()));
    stops.push(every(2000, () => person.repair()));

    // The quiet phase: every set converges.
    const convergedMs = new Map<string, number>();
    const obs = observer;
    while (Date.now() - lastFault < o.convergeLimitMs && convergedMs.size < sets.length) {
      for (const s of sets) {
        const key = `${s.namespace}/${s.name}`;
        if (obs.converged(s.namespace, s.name)) {
          if (!convergedMs.has(key)) convergedMs.set(key, Date.now() - lastFault);
        } else convergedMs.delete(key);
      }
      await sleep(1000);
    }
    const report = await observer.stop();
    observer = undefined;
    const stats = await net.stats();
    const figures = chaosFigures({
      windows: injector.windows,
      report,
      sets: sets.map((s) => `${s.namespace}/${s.name}`),
      convergedMs,
      convergeLimitMs: o.convergeLimitMs,
      auditLog: o.auditLog,
      proxyCounts: stats,
      replicas: replicas.map((r) => ({ name: r.o.name, rss: r.rss, holders: r.holders })),
      person: person.counts,
      startedAt,
      durationMs: Date.now() - startedAt,
    });
    writeFileSync(`${o.workDir}/figures.json`, JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    for (const s of stops) await s();
    if (observer) await observer.stop().catch(() => undefined);
    for (const r of replicas) await r.stop();
    await net.stop();
    if (injector) writeFileSync(`${o.workDir}/faults.json`, JSON.stringify(injector.windows, null, 2));
  }
}

/** waitFor polls `ok` every 500 ms until it holds; throws after `ms`. */
async function waitFor(what: string, ms: number, ok: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await ok().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}
