import type { KubeClient } from "../kube/client.ts";
import { listSelected, type OrphanLookup } from "../reconciler/orphan-lookup.ts";
import type { WakeLimiter } from "./wake-limiter.ts";

/** How long (ms) a lookup waits for its set's first pass; an older one is dropped unused. */
export const LOOKUP_TTL_MS = 2_000;
/** Lookups held at once at most: in flight, or done and not yet taken by every set waiting for it. */
export const MAX_HELD = 4;
/** Sets waiting for a held lookup at most (a burst of new sets beyond it: their passes look themselves). */
const MAX_WAITING = 256;

/** One lookup (namespace and selector) and how many sets still wait to take it. */
interface Held {
  selector: string;
  found: OrphanLookup["found"];
  at: number;
  waiting: number;
}

/**
 * A new set's orphan lookup, started early. A set that owns no revision yet lists its namespace's
 * pods and revisions by its own selector before its first plan (src/reconciler/pass.ts,
 * withSelected: orphans it may adopt, e.g. an apps/v1 set's left by `kubectl delete
 * --cascade=orphan`): a round trip before its first write. When the watch sees a set appear (watch-cache.ts: the set as the apiserver
 * stores it), the scheduler starts that lookup at once (OrphanLookups.start) and hands it to the
 * set's first targeted pass (take), which uses it when the selector is still the set's: the lists
 * then run while the pass is coalesced and started, not after it began. The selector is always the
 * stored set's, never one a request carried (an admission review is untrusted input: a forged one
 * could name any namespace and a selector that matches every pod in it).
 *
 * What lookups may cost is bounded whatever creates sets: sets of one namespace with the same
 * selector share one lookup (a burst of new sets over the same pods lists them once); at most
 * MAX_HELD lookups are held at once (in flight, or done and waiting for their passes), each within
 * the scheduler's rate limit of its namespace (key `orphans <namespace>`); beyond, a set's pass
 * looks itself, and passes run one at a time. A lookup no pass takes within LOOKUP_TTL_MS is dropped.
 */
export class OrphanLookups {
  /** By `namespace selector`. */
  private readonly held = new Map<string, Held>();
  /** Set `namespace/name` → the key of the lookup it waits for. */
  private readonly sets = new Map<string, string>();

  constructor(
    private readonly client: KubeClient,
    private readonly clock: () => number,
    /** Each lookup sent takes a token of its namespace's and the global bucket (key `orphans <namespace>`). */
    private readonly limiter: WakeLimiter,
  ) {}

  /**
   * start has set `namespace/name` (as stored: `selector` is its spec.selector) wait for the lookup
   * of its namespace by `selector`: one held already, else a new one, unless MAX_HELD are held or
   * the limiter says wait (then its pass looks itself).
   */
  start(namespace: string, name: string, selector: string): void {
    this.expire();
    const setKey = `${namespace}/${name}`;
    if (this.sets.has(setKey) || this.sets.size >= MAX_WAITING) return;
    const key = `${namespace} ${selector}`;
    let l = this.held.get(key);
    if (!l) {
      if (this.held.size >= MAX_HELD || this.limiter.take(`orphans ${namespace}`, namespace) > 0) return;
      const found = listSelected(this.client, namespace, selector);
      found.catch(() => {}); // awaited by the passes that take it, or dropped
      l = { selector, found, at: this.clock(), waiting: 0 };
      this.held.set(key, l);
    }
    l.waiting++;
    this.sets.set(setKey, key);
  }

  /**
   * take returns the lookup set `namespace/name` waits for (and forgets that it waits), undefined
   * when it waits for none or it is older than LOOKUP_TTL_MS. While other sets still wait for the
   * same lookup, the result is a copy: a pass may change the objects it reads.
   */
  take(namespace: string, name: string): OrphanLookup | undefined {
    this.expire();
    const setKey = `${namespace}/${name}`;
    const key = this.sets.get(setKey);
    this.sets.delete(setKey);
    const l = key === undefined ? undefined : this.held.get(key);
    if (!l) return undefined;
    if (--l.waiting <= 0) this.held.delete(key!);
    return { selector: l.selector, found: l.waiting > 0 ? l.found.then((r) => structuredClone(r)) : l.found };
  }

  /** expire drops the lookups older than LOOKUP_TTL_MS, and the sets waiting for them. */
  private expire(): void {
    const now = this.clock();
    for (const [key, l] of this.held) if (now - l.at >= LOOKUP_TTL_MS) this.held.delete(key);
    for (const [setKey, key] of this.sets) if (!this.held.has(key)) this.sets.delete(setKey);
  }
}
