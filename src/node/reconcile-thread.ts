/**
 * The reconciler in a heap-bounded worker thread (issue 19: a reconciler failure can never take
 * admission down with it). `ordinal serve` answers the webhooks on the main thread and runs the
 * scheduler (src/schedule/scheduler.ts) in a worker thread whose old generation is capped at
 * RECONCILE_HEAP_MB: a pass that runs out of heap (or throws out of the loop) ends the thread only,
 * the webhooks keep answering, and the thread is started again after a backoff (1 s doubling to
 * 30 s; reset once a thread has lived a minute). Wakes cross to the thread as messages; the
 * thread's metrics come back as data, merged with the main thread's for /metrics. The new thread keeps the holder
 * identity of the old one, so it renews the Lease at once instead of waiting for it to expire
 * (the old thread is dead by then: no two writers).
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import type { IdentityRefusal } from "../objects/reconciler-identity.ts";
import { errorFields, jsonLogger } from "../log/log.ts";
import type { MetricsState } from "../metrics/metrics.ts";
import { buildReconciler } from "../reconciler-stack.ts";
import type { SchedulerOptions, SetWake } from "../schedule/scheduler.ts";
import type { OrdinalSettings } from "../runtime-config.ts";
import { setting } from "../settings.ts";
import { clientFor, clusterConfigFromEnv } from "./kubeconfig.ts";
import { nodeReconciler } from "./reconciler.ts";
import type { WakeForwarding } from "./wake-forward.ts";
import { NamespaceGuard, type Reading } from "../reconciler/namespace-guard.ts";
import { ReadingTracker } from "./reading-tracker.ts";

const ROLE = "ordinal-reconcile-thread";

/** What the main thread gives the reconcile thread. */
interface ThreadData {
  role: typeof ROLE;
  /** The environment serve read (never changed). */
  vars: Readonly<Record<string, string | undefined>>;
  /** The settings parsed from it, with what serve learned (the reconciler's username, the caBundle). */
  settings: OrdinalSettings;
  scheduler: Pick<SchedulerOptions, "holder" | "intervalMs" | "budgetMs" | "idleMs" | "election" | "objectBudget">;
  /** The namespace the thread before this one was reading when it died, and how it died: struck in the quarantine record first (src/reconciler/namespace-guard.ts). */
  suspect?: { namespace: string; why: string };
  /** How this replica takes and forwards wakes (wake-forward.ts), when it can. */
  forwarding?: WakeForwarding;
}

type ToThread = { type: "wake"; wake: SetWake; forwarded?: boolean } | { type: "stop" };

/**
 * threadWake returns what of a wake is posted to the thread: the set and the write it announces;
 * nothing else of what the webhook's Wake carries (its reason) is cloned across. (The thread's own
 * watch cache sees sets appear, with their stored selector: src/schedule/orphan-lookups.ts.)
 */
export const threadWake = (w: SetWake): SetWake => ({ namespace: w.namespace, name: w.name, ...(w.write ? { write: w.write } : {}) });
/** A pass's identity refusals (what readiness.ts reads), sent after each pass. */
interface PassSummary {
  passes: { sets: { identityRefusal?: IdentityRefusal }[] }[];
}

/** "set": a set the thread's watch saw appear, as stored (the main thread's mutating hook caches it); "reading": a namespace a list reads (src/reconciler/namespace-guard.ts). */
type FromThread = { type: "metrics"; state: MetricsState } | { type: "pass"; summary: PassSummary } | { type: "set"; set: KubeObject } | { type: "reading"; reading: Reading } | { type: "stopped" };

/** isReconcileThread is true in the reconcile thread (serve then runs reconcileThreadMain instead). */
export const isReconcileThread = (): boolean => !isMainThread && (workerData as ThreadData | undefined)?.role === ROLE;

/** reconcileThreadMain runs the scheduler in this (worker) thread until the main thread says stop. */
export async function reconcileThreadMain(): Promise<number> {
  const data = workerData as ThreadData;
  const port = parentPort!;
  const log = jsonLogger((l) => console.error(l), { thread: "reconcile" }, setting(data.vars, "LOG_LEVEL") ?? "info");
  const cluster = clusterConfigFromEnv();
  if (!cluster) throw new Error("the reconcile thread needs a cluster");
  const raw = clientFor(cluster, `ordinal/${data.scheduler.holder}`);
  const { settings } = data;
  const stack = buildReconciler(raw, { settings, log });
  // The passes' reads say which namespace they are of (the main thread blames it if this thread
  // dies); a quarantined one is refused, read from the watch cache's mirror or not. The Lease's
  // reads are neither reported nor refused (a death is never blamed on the lease namespace).
  const guard = new NamespaceGuard(stack.client, settings.leaseNamespace, log);
  await guard.start(data.suspect);
  const passReads = (client: KubeClient) => guard.guardedClient(client, (reading) => port.postMessage({ type: "reading", reading } satisfies FromThread));
  const { metrics } = stack;
  let lastPost = 0;
  const { loop: scheduler, cache } = nodeReconciler(stack, {
    vars: data.vars,
    watcher: raw,
    log,
    leaseNamespace: settings.leaseNamespace,
    scheduling: data.scheduler,
    forwarding: data.forwarding,
    shards: setting(data.vars, "RECONCILE_SHARDS"),
    passReads,
    sighted: (set) => port.postMessage({ type: "set", set } satisfies FromThread),
    onPass: (pass) => {
      const sets = pass.sets.filter((s) => s.identityRefusal).map((s) => ({ identityRefusal: s.identityRefusal }));
      port.postMessage({ type: "pass", summary: { passes: [{ sets }] } } satisfies FromThread);
      if (Date.now() - lastPost >= 1000) {
        lastPost = Date.now();
        port.postMessage({ type: "metrics", state: metrics.state() } satisfies FromThread);
      }
    },
  });
  const stopped = new Promise<void>((resolve) => {
    port.on("message", (m: ToThread) => {
      if (m.type === "wake") scheduler.wake(m.wake, m.forwarded);
      else void Promise.all([scheduler.stop(), cache?.stop()]).then(() => {
        port.postMessage({ type: "stopped" } satisfies FromThread);
        resolve();
      });
    });
  });
  scheduler.start();
  await stopped;
  process.exit(0); // ends this thread only (open keep-alive sockets would hold it)
}

/** deathOf says how the thread died, for the quarantine record. */
function deathOf(failure: unknown, code: number, heapMb: number): string {
  const oom = (failure as { code?: unknown } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
  return oom ? `the reconcile thread ran out of heap (RECONCILE_HEAP_MB=${heapMb}) while reading it` : `the reconcile thread ended (exit code ${code}) while reading it`;
}

/** The reconcile thread's young generation (V8's default would be up to 48 MiB beside RECONCILE_HEAP_MB): src/deploy/manifests.ts SERVER_MEMORY counts it. */
const YOUNG_GENERATION_MB = 16;

/** The first restart comes after this; each quick failure doubles it, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** A thread that lived this long resets the backoff. */
const HEALTHY_AFTER_MS = 60_000;

/**
 * ReconcileThread (main thread) keeps one reconcile thread running: started by `start`, restarted
 * when it dies, stopped (after its pass in flight, releasing the Lease) by `stop`.
 */
export class ReconcileThread {
  private worker: Worker | undefined;
  private stopping = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  /** The thread's latest metrics (a copy of its registry), undefined before its first pass; /metrics merges them with the main thread's (prometheusOf). */
  metrics: MetricsState | undefined;
  /** Thread restarts so far (for tests and the log). */
  restarts = 0;
  /** What the thread reads (the suspect when it dies), and the namespace the next thread strikes. */
  private readonly reading = new ReadingTracker();
  private suspect: ThreadData["suspect"];

  constructor(
    private readonly log: Logger,
    private readonly heapMb: number,
    private readonly data: Omit<ThreadData, "role">,
    /** After each of the thread's passes (readiness: its identity refusals), and each set its watch saw appear (the mutating hook's cache). */
    private readonly listeners: { onPass?: (summary: PassSummary) => void; onSet?: (set: KubeObject) => void } = {},
    /** The script the thread runs: the one this process runs (the bundle, or bin.mjs), with the same arguments. */
    private readonly entry: { script: string; argv: string[] } = { script: process.argv[1], argv: process.argv.slice(2) },
  ) {}

  start(): void {
    const started = Date.now();
    const worker = new Worker(this.entry.script, {
      argv: this.entry.argv,
      workerData: { role: ROLE, ...this.data, ...(this.suspect ? { suspect: this.suspect } : {}) } satisfies ThreadData,
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.worker = worker;
    this.suspect = undefined;
    let failure: unknown;
    worker.on("message", (m: FromThread) => {
      if (m.type === "metrics") this.metrics = m.state;
      else if (m.type === "pass") this.listeners.onPass?.(m.summary);
      else if (m.type === "set") this.listeners.onSet?.(m.set);
      else if (m.type === "reading") this.reading.note(m.reading);
    });
    worker.on("error", (e) => {
      failure = e;
      this.log.error("reconcile thread failed", { heapMb: this.heapMb, ...errorFields(e) });
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.stopping) return;
      const namespace = this.reading.died();
      if (namespace) this.suspect = { namespace, why: deathOf(failure, code, this.heapMb) };
      if (Date.now() - started >= HEALTHY_AFTER_MS) this.backoffMs = FIRST_BACKOFF_MS;
      this.log.warn("reconcile thread ended; restarting it", { code, inMs: this.backoffMs, restarts: this.restarts + 1 });
      this.restartTimer = setTimeout(() => {
        this.restarts++;
        this.start();
      }, this.backoffMs);
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    });
  }

  /** wake hands a wake to the thread (dropped while it restarts: the thread's first pass is a full one); `forwarded`: from the other replica. */
  wake(w: SetWake, forwarded = false): void {
    this.worker?.postMessage({ type: "wake", wake: threadWake(w), forwarded } satisfies ToThread);
  }

  /** stop asks the thread to finish its pass and release the Lease; terminates it after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ type: "stop" } satisfies ToThread);
    const timer = setTimeout(() => void worker.terminate(), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
