/**
 * The Worker killed in the middle of a pass (issue 36, Worker path): `wrangler dev` with 2 shards
 * on the real apiserver, its webhooks registered (the kubelet's status writes wake its shards; the
 * cron tick, `/__scheduled`, is sent once a minute as wrangler.toml's), its Durable Objects' state
 * kept in a directory. During a scale-up (2 -> 5) and then a rollout (a new image), it is killed
 * with SIGKILL after the N-th write of its passes (N from the seed: ORDINAL_CHAOS_SEED, printed),
 * left dead a moment while the kubelet goes on (its status writes' wakes are lost: the hook is
 * Ignore), and restarted on the same state with one tick. Every set converges after the restart,
 * and the chaos run's independent observer (test/chaos/observer: pods, claims, sets and Leases
 * watched in the apiserver's order, the audit log's writes judged against the shard Leases)
 * counts no violation: one pod per ordinal, OrderedReady, maxUnavailable, claims, writes without
 * the Lease. Prints kills, violations, and the time each phase took to converge after the restart
 * beside a phase with no kill. The Worker's output is kept in /tmp/ordinal-worker-restart-<seed>.log.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { mulberry32, randomInt } from "../../src/sim/fake-apiserver/random.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { startObserver, type FaultWindow } from "../chaos/observer/index.ts";
import { KEYS, startApiProxy, startWorker, unregisterWebhooks, waitHealthy, webhookFetch, WORKER_URL, type Running } from "./servers.ts";
import { admin, env, kubectl, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const SEED = Number(process.env.ORDINAL_CHAOS_SEED ?? 36);
const random = mulberry32(SEED);
const SHARDS = 2;
const PROXY_PORT = 28793;
const SETS = ["ord", "par"];
/** The injector's record: each kill, from the SIGKILL to the restarted Worker's first tick. */
const injected: FaultWindow[] = [];
const state = mkdtempSync(join(tmpdir(), "ordinal-worker-restart-"));
let proxy: Running | undefined;
let worker: Running | undefined;
/** The output of every Worker process of the run, the killed ones' too. */
const outputs: string[] = [];
const LOG = `/tmp/ordinal-worker-restart-${SEED}.log`;

beforeAll(async () => {
  await setupCluster();
  unregisterWebhooks();
});
afterAll(async () => {
  await worker?.stop();
  if (worker) outputs.push(worker.output());
  writeFileSync(LOG, outputs.join("\n----- restart -----\n"));
  await proxy?.stop();
  unregisterWebhooks();
  rmSync(state, { recursive: true, force: true });
});

/** register points the webhook configurations at the Worker (as `ordinal register` does for a person). */
function register(): void {
  execFileSync("node", ["src/cli/bin.mjs", "register", "--url", WORKER_URL, "--ca-bundle", `${KEYS}/tls.crt`], {
    env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
    encoding: "utf8",
  });
}

/** poke sends the cron tick (`/__scheduled`): every shard's object runs its full pass (a closed kept-alive socket is retried once). */
async function poke(): Promise<void> {
  const tick = () => webhookFetch(`${WORKER_URL}/__scheduled?cron=*+*+*+*+*`);
  const res = await tick().catch((e: unknown) => ((e as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET" ? tick() : Promise.reject(e)));
  expect(res.status, worker?.output().slice(-3000)).toBe(200);
}

/** start runs the Worker on the kept state and sends the first tick; a restart keeps the Leases the killed one held. */
async function start(restart: boolean): Promise<void> {
  worker = startWorker(`http://127.0.0.1:${PROXY_PORT}`, { vars: { RECONCILE_SHARDS: String(SHARDS), RECONCILE_INTERVAL_MS: "60000" }, persistTo: state, keepLeases: restart });
  await waitHealthy(WORKER_URL, worker, 120_000);
  await poke();
}

/**
 * killAfterWrites kills wrangler dev and its workerd (SIGKILL to the process group: no pass
 * finishes, nothing is stored after) as soon as its output shows its `n`-th apiserver write from
 * now (one `action` line each, logged when the write was answered), or after `maxMs`; the kubelet
 * plays meanwhile. Returns the writes seen before the kill.
 */
async function killAfterWrites(n: number, maxMs: number, kubelets: KubeletPlayer[]): Promise<number> {
  const { proc } = worker!;
  const exited = new Promise((r) => proc.once("exit", r));
  let writes = 0;
  const kill = () => {
    try {
      process.kill(-proc.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
  };
  const count = (d: Buffer) => {
    writes += String(d).split('"msg":"action"').length - 1;
    if (writes >= n) kill();
  };
  proc.stdout!.on("data", count);
  proc.stderr!.on("data", count);
  const timer = setTimeout(kill, maxMs);
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    await step(kubelets);
    await sleep(50);
  }
  clearTimeout(timer);
  outputs.push(worker!.output());
  return writes;
}

/** convergedSet is true when the set's status and pods say `replicas` pods Ready at its last revision, with `image`. */
async function convergedSet(ns: string, name: string, replicas: number, image: string): Promise<boolean> {
  const set = await admin.get<StatefulSet>(R.statefulSets, ns, name);
  const s = set?.status;
  if (!set || !s || s.observedGeneration !== set.metadata.generation || s.readyReplicas !== replicas || s.updatedReplicas !== replicas || s.currentRevision !== s.updateRevision) return false;
  const pods = (await listPods(ns)).filter((p: Pod) => p.metadata?.name?.startsWith(`${name}-`));
  return pods.length === replicas && pods.every((p) => p.spec?.containers[0].image === image);
}

/** until polls `done` (playing the kubelet between looks, a cron tick every 60 s as wrangler.toml's) and fails with `what` after `ms`. */
async function until(what: string, ms: number, kubelets: KubeletPlayer[], done: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  let tick = start;
  while (!(await done())) {
    if (Date.now() - start > ms) throw new Error(`${what} not within ${ms} ms\n${worker?.output().slice(-4000)}`);
    await step(kubelets);
    if (Date.now() - tick > 60_000) {
      tick = Date.now();
      await poke();
    }
    await sleep(200);
  }
  return Date.now() - start;
}

/** step plays the kubelet of every namespace once (a status write refused while the Worker is down is tried at the next step). */
async function step(kubelets: KubeletPlayer[]): Promise<void> {
  for (const k of kubelets) await k.step().catch(() => undefined);
}

describe("the Worker killed mid-pass under wrangler dev", () => {
  it(`converges after each restart with no StatefulSet guarantee broken (seed ${SEED})`, async () => {
    console.log(`[worker-restart] seed ${SEED} (ORDINAL_CHAOS_SEED replays it)`);
    proxy = startApiProxy(PROXY_PORT);
    const namespaces: string[] = [];
    while (new Set(namespaces.map((n) => shardOf(n, SHARDS))).size < SHARDS && namespaces.length < 12) namespaces.push(await newNamespace("wkill"));
    const observer = startObserver({
      apiUrl: env.KUBE_API_URL,
      token: env.KUBE_TOKEN,
      caFile: env.KUBE_CA_FILE,
      namespaces,
      auditLogPath: process.env.ORDINAL_AUDIT_LOG,
      leaseNamespace: "ordinal-system",
      shards: SHARDS,
      injected: () => injected,
      onViolation: (v) => console.log(`[worker-restart] violation ${JSON.stringify(v)}`),
    });
    for (const ns of namespaces) {
      await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, name: "ord", replicas: 2, claims: ["data"] }));
      await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, name: "par", replicas: 2, policy: "Parallel", claims: [] }));
    }
    const kubelets = namespaces.map((ns) => kubeletFor(ns));
    const all = (replicas: number, image: string) => async () => (await Promise.all(namespaces.flatMap((ns) => SETS.map((s) => convergedSet(ns, s, replicas, image))))).every(Boolean);
    await start(false);
    register();
    const image0 = "img:1"; // setManifest's
    await until("every set converged at 2 replicas", 120_000, kubelets, all(2, image0));

    const phases = [
      { what: "scale-up 2 -> 3, no kill", kills: 0, patch: [{ op: "replace", path: "/spec/replicas", value: 3 }], replicas: 3, image: image0 },
      { what: "scale-up 3 -> 5", kills: 1, patch: [{ op: "replace", path: "/spec/replicas", value: 5 }], replicas: 5, image: image0 },
      { what: "rollout to img:2", kills: 2, patch: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: "img:2" }], replicas: 5, image: "img:2" },
    ];
    const figures: string[] = [];
    let kills = 0;
    for (const phase of phases) {
      for (const ns of namespaces) for (const s of SETS) kubectl(["-n", ns, "patch", "statefulsets.apps.ordinal.dev", s, "--type=json", "-p", JSON.stringify(phase.patch)]);
      const notes: string[] = [];
      for (let k = 0; k < phase.kills; k++) {
        // Killed after its N-th write from now (after the change; after the restart's tick), or after 30 s of fewer.
        const target = 1 + randomInt(random, 8);
        const deadMs = randomInt(random, 3000);
        const fault: FaultWindow = { kind: "kill-worker", start: Date.now(), replica: "ordinal-worker" };
        const writes = await killAfterWrites(target, 30_000, kubelets);
        fault.start = Date.now();
        injected.push(fault);
        kills++;
        const killedAt = Date.now();
        while (Date.now() - killedAt < deadMs) {
          await step(kubelets);
          await sleep(200);
        }
        notes.push(`killed after ${writes} writes (N=${target}), dead ${deadMs} ms`);
        await start(true);
        fault.end = Date.now();
      }
      const ms = await until(`${phase.what}: every set converged`, 180_000, kubelets, all(phase.replicas, phase.image));
      figures.push(`${phase.what}: ${[...notes, `converged ${ms} ms after the ${phase.kills ? "last restart's tick" : "change"}`].join("; ")}`);
    }
    // The forwarder outlived every kill (a Worker killed mid-request ends that request only).
    expect(proxy.proc.exitCode, proxy.output()).toBeNull();
    const { violations, events, auditWrites } = await observer.stop();
    console.log(`[worker-restart] seed ${SEED}: ${kills} kills, ${events} events and ${auditWrites ?? 0} audited writes judged, ${violations.length} violations\n  ${figures.join("\n  ")}`);
    expect(violations).toEqual([]);
    expect(events).toBeGreaterThan(0);
  }, 600_000);
});
