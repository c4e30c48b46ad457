import type { KubeClient } from "../kube/client.ts";
import { listSelected, type OrphanLookup } from "../reconciler/orphan-lookup.ts";
import type { WakeLimiter } from "./wake-limiter.ts";

/** How long (ms) a lookup waits for its set's first pass; an older one is dropped unused. */
export const LOOKUP_TTL_MS = 2_000;
/** Lookups held at once at most (a burst of new sets beyond it: their passes look themselves). */
const MAX_LOOKUPS = 64;

/**
 * A new set's orphan lookup, started early. A set that owns no revision yet lists its namespace's
 * pods and revisions by its own selector before its first plan (pass.ts, withSelected: orphans it
 * may adopt, e.g. an apps/v1 set's left by `kubectl delete --cascade=orphan`): a round trip before
 * its first write. When the validating webhook allows a set's CREATE (its wake carries the
 * selector: src/admission/wakes.ts), or else when the watch sees a set appear, the scheduler starts
 * that lookup at once (OrphanLookups.start) and hands it to the set's first targeted pass (take),
 * which uses it when the selector is still the set's: the lists then run while the apiserver
 * stores the set and the pass is coalesced and scheduled, not after it began. The same two lists
 * as the pass would send, sent 10–20 ms sooner (a snapshot that much older: an orphan made in
 * between is missed, as one made between the pass's own lists and its creates is), at most one
 * lookup per set at a time, and within the scheduler's rate limits (a made-up CREATE wake costs its
 * two lists, as a made-up set's pass costs its read); a lookup no pass takes within LOOKUP_TTL_MS is dropped.
 */
export class OrphanLookups {
  private readonly held = new Map<string, OrphanLookup & { at: number }>();

  constructor(
    private readonly client: KubeClient,
    private readonly clock: () => number,
    /** Each lookup takes a token of its set's and the global bucket (key `orphans <namespace>/<name>`). */
    private readonly limiter: WakeLimiter,
  ) {}

  /** start sends the lookup of set `namespace/name` by `selector`, unless one is held for it, MAX_LOOKUPS are, or the limiter says wait. */
  start(namespace: string, name: string, selector: string): void {
    const now = this.clock();
    for (const [key, l] of this.held) if (now - l.at >= LOOKUP_TTL_MS) this.held.delete(key);
    const key = `${namespace}/${name}`;
    if (this.held.has(key) || this.held.size >= MAX_LOOKUPS || this.limiter.take(`orphans ${key}`) > 0) return;
    const found = listSelected(this.client, namespace, selector);
    found.catch(() => {}); // awaited by the pass that takes it, or dropped
    this.held.set(key, { selector, found, at: now });
  }

  /** take returns the lookup held for set `namespace/name` (and forgets it), undefined when none is or it is older than LOOKUP_TTL_MS. */
  take(namespace: string, name: string): OrphanLookup | undefined {
    const key = `${namespace}/${name}`;
    const l = this.held.get(key);
    this.held.delete(key);
    return l && this.clock() - l.at < LOOKUP_TTL_MS ? { selector: l.selector, found: l.found } : undefined;
  }
}
