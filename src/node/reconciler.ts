/**
 * `ordinal serve`'s reconciler over the stack every runtime builds (src/reconciler-stack.ts): the
 * watch cache (WATCH_CACHE_MB) and one scheduler per shard (src/schedule/shard-schedulers.ts),
 * the same whether it runs on the serving thread (the simulation, RECONCILE_HEAP_MB=0) or on the
 * heap-bounded reconcile thread (reconcile-thread.ts).
 */
import type { KubeObject, WatchClient } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import type { ReconcilerStack } from "../reconciler-stack.ts";
import type { PassResult } from "../reconciler/pass.ts";
import type { SchedulerOptions } from "../schedule/scheduler.ts";
import { ShardSchedulers } from "../schedule/shard-schedulers.ts";
import type { WatchCache } from "../schedule/watch-cache.ts";
import { wakeForwarder, type WakeForwarding } from "./wake-forward.ts";
import { watchCacheFrom } from "./watch-cache.ts";

export interface NodeReconcilerOptions {
  vars: Record<string, string | undefined>;
  /** The client that watches (the stack's counts lists only): the watch cache's. */
  watcher: WatchClient;
  log: Logger;
  leaseNamespace: string;
  scheduling: Pick<SchedulerOptions, "holder" | "intervalMs" | "budgetMs" | "idleMs" | "election" | "objectBudget">;
  /** Wraps what passes read through, above the watch cache (the reconcile thread's namespace guard: SchedulerOptions.passReads). */
  passReads?: SchedulerOptions["passReads"];
  /** How this replica takes and forwards wakes (wake-forward.ts), when it can. */
  forwarding?: WakeForwarding;
  /** RECONCILE_SHARDS. */
  shards: number;
  /** Each set the watch sees appear, as stored (the mutating hook's set cache). */
  sighted?: (set: KubeObject) => void;
  /** After each pass, once the stack counted it (readiness: its identity refusals). */
  onPass?: (pass: PassResult) => void;
}

/** nodeReconciler returns the schedulers (not started) and the watch cache (started, when WATCH_CACHE_MB asks for one). */
export function nodeReconciler(stack: ReconcilerStack, o: NodeReconcilerOptions): { loop: ShardSchedulers; cache: WatchCache | undefined } {
  const cache = watchCacheFrom(o.vars, o.watcher, stack.client, o.log, (w) => loop.wake(w), o.sighted);
  const loop = new ShardSchedulers(
    stack.client,
    {
      ...o.scheduling,
      ...(cache ? { cache } : {}),
      ...(o.passReads ? { passReads: o.passReads } : {}),
      log: o.log,
      leaseNamespace: o.leaseNamespace,
      ...(o.forwarding ? { endpoint: o.forwarding.endpoint, forward: wakeForwarder(o.forwarding) } : {}),
      beforePass: stack.beforeFullPass,
      onPass: (pass, seconds) => {
        stack.record([pass], seconds);
        o.onPass?.(pass);
      },
    },
    o.shards,
  );
  return { loop, cache };
}
