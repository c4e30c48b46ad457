/**
 * The chaos run's independent observer: it watches pods, claims, Ordinal StatefulSets and the
 * shard Leases through the apiserver, and tails the audit log, and judges every event against
 * the StatefulSet guarantees (README.md beside this file lists the rules). It imports nothing
 * from src/ (test/architecture/chaos-observer.test.ts): it must not share the reconciler's mistakes.
 *
 * The watches are merged into one order: on this test cluster (one etcd) a resourceVersion is
 * the etcd revision of the write, one counter for every resource, so an event waits `settleMs`
 * for the other watches and is then judged in resourceVersion order, against the model as the
 * cluster was at that revision: "at any moment" means at every write.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { auditWrite } from "./leases.ts";
import { Checker } from "./checker.ts";
import { Orderer } from "./orderer.ts";
import { httpFor, watchResource, type OrderedEvent } from "./watch.ts";
import type { ObserverOptions, ObserverReport } from "./types.ts";

export type { FaultWindow, ObserverOptions, ObserverReport, Violation } from "./types.ts";

const TICK_MS = 100;

/** startObserver starts watching; `stop()` judges what is left and returns the report. */
export function startObserver(o: ObserverOptions): { stop(): Promise<ObserverReport>; converged(ns: string, name: string): boolean } {
  const settleMs = o.settleMs ?? 1000;
  const checker = new Checker({ injected: () => o.injected(), leaseNamespace: o.leaseNamespace, namespaces: o.namespaces, shards: o.shards, staleReadMs: o.staleReadMs, onViolation: o.onViolation });
  const http = httpFor(o.apiUrl, o.token, o.caFile);
  const abort = new AbortController();
  const orderer = new Orderer();
  const sink = (e: OrderedEvent) => orderer.push(e);
  const release = (until: number) => {
    for (const e of orderer.release(until)) checker.apply(e);
  };
  const errors = new Map<string, number>();
  const onError = (what: string) => (e: unknown) => {
    const n = (errors.get(what) ?? 0) + 1;
    errors.set(what, n);
    if (n === 1 || n % 30 === 0) console.error(`[observer] ${what}: ${e instanceof Error ? e.message : String(e)} (${n} times)`);
  };
  const watches = [
    watchResource(http, "set", "/apis/apps.ordinal.dev/v1/statefulsets", sink, abort.signal, onError("statefulsets")),
    watchResource(http, "pod", "/api/v1/pods", sink, abort.signal, onError("pods")),
    watchResource(http, "claim", "/api/v1/persistentvolumeclaims", sink, abort.signal, onError("claims")),
    watchResource(http, "namespace", "/api/v1/namespaces", sink, abort.signal, onError("namespaces")),
    watchResource(http, "lease", `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(o.leaseNamespace)}/leases`, sink, abort.signal, onError("leases")),
  ];
  const audit = o.auditLogPath ? auditTail(o.auditLogPath, new Set(o.namespaces)) : undefined;
  const tick = () => {
    release(Date.now() - settleMs);
    for (const w of audit?.read() ?? []) checker.audit(w);
    // A write is judged once the Lease versions around it have been judged too.
    checker.judgeAudit(Date.now() - settleMs - 2000);
  };
  const timer = setInterval(tick, TICK_MS);
  return {
    converged: (ns, name) => checker.converged(ns, name),
    async stop() {
      clearInterval(timer);
      abort.abort();
      await Promise.allSettled(watches);
      release(Infinity);
      for (const w of audit?.read() ?? []) checker.audit(w);
      checker.judgeAudit();
      return { ...checker.report(), lateEvents: orderer.late };
    },
  };
}

/** auditTail reads the audit log from its current end on: each `read()` returns the Ordinal replicas' writes appended since. */
function auditTail(path: string, namespaces: ReadonlySet<string>) {
  let offset = (() => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  })();
  let partial = "";
  return {
    read() {
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        return [];
      }
      if (size < offset) offset = 0; // rotated or truncated
      if (size === offset) return [];
      const fd = openSync(path, "r");
      const buf = Buffer.alloc(size - offset);
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      const lines = (partial + buf.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      return lines.map((l) => auditWrite(l, namespaces)).filter((w) => w !== undefined);
    },
  };
}
