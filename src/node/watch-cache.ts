import type { KubeClient, KubeObject, WatchClient } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import type { SetWake } from "../schedule/scheduler.ts";
import { startWatchCache, type WatchCache } from "../schedule/watch-cache.ts";
import { setting } from "../settings.ts";

/**
 * watchCacheFrom returns the watch cache the settings ask for (WATCH_CACHE_MB; 0: none), started.
 * `wake` is first called after the first list is held (never during this call), so it may name a
 * scheduler made after this returns. `sighted` is handed each set the watch sees appear, as stored
 * (the mutating hook's set cache: src/admission/lookup.ts `remember`).
 */
export function watchCacheFrom(
  vars: Record<string, string | undefined>,
  watcher: WatchClient,
  client: KubeClient,
  log: Logger,
  wake: (w: SetWake) => void,
  sighted?: (set: KubeObject) => void,
): WatchCache | undefined {
  const mb = setting(vars, "WATCH_CACHE_MB");
  return mb > 0 ? startWatchCache(watcher, client, { log, maxBytes: mb * 1024 * 1024, wake, ...(sighted ? { sighted } : {}) }) : undefined;
}
