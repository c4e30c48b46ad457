/**
 * WakeLimiter bounds what wakes can cost: each targeted pass takes a token from its set's bucket,
 * its namespace's and a global one (token buckets: a burst, then a steady rate). A caller waking
 * one set as fast as it can gets that set's rate of passes; waking many names of one namespace
 * (one tenant's writes, or reviews forged in its name) gets the namespace's rate, so other
 * namespaces keep most of the global one; made-up names everywhere get the global rate (each a
 * single read: pass.ts). Buckets that have refilled are forgotten, so memory follows the sets
 * woken lately, and at most `maxKeys` of each kind are tracked (beyond, only the global bucket
 * bounds a new name).
 */

export interface Rate {
  burst: number;
  perSecond: number;
}

/** Per set: 20 passes at once, then 10 a second (an OrderedReady step of 100 ms needs about 3). */
const SET_RATE: Rate = { burst: 20, perSecond: 10 };
/** All sets of one namespace: 2/5 of the global rate, so a namespace alone never takes all of it. */
const NAMESPACE_RATE: Rate = { burst: 40, perSecond: 20 };
/** All sets together. */
const GLOBAL_RATE: Rate = { burst: 100, perSecond: 50 };

/**
 * With the watch cache synced a targeted pass reads nothing from the apiserver (its cost is the
 * plan's CPU and the writes that are progress), so passes may follow the changes they see: an
 * in-place step makes about six passes of its set within one kubelet step.
 */
export const CACHED_SET_RATE: Rate = { burst: 100, perSecond: 100 };
export const CACHED_NAMESPACE_RATE: Rate = { burst: 400, perSecond: 200 };
export const CACHED_GLOBAL_RATE: Rate = { burst: 1000, perSecond: 500 };

class Bucket {
  constructor(
    private tokens: number,
    private at: number,
  ) {}
  /** level returns the tokens at `now` (refilled, capped at the burst). */
  level(rate: Rate, now: number): number {
    return Math.min(rate.burst, this.tokens + ((now - this.at) / 1000) * rate.perSecond);
  }
  /** wait returns 0 when a token is there at `now`, else the ms until one is. */
  wait(rate: Rate, now: number): number {
    const level = this.level(rate, now);
    return level >= 1 ? 0 : Math.max(1, Math.ceil(((1 - level) / rate.perSecond) * 1000 - 1e-6));
  }
  /** take takes a token (there must be one: see wait). */
  take(rate: Rate, now: number): void {
    this.tokens = this.level(rate, now) - 1;
    this.at = now;
  }
}

/** Buckets of one kind (sets, namespaces) by key, at most `maxKeys`. */
class Buckets {
  private readonly byKey = new Map<string, Bucket>();
  constructor(
    readonly rate: Rate,
    private readonly maxKeys: number,
  ) {}
  /** of returns the bucket of `key` (a new, full one), or undefined when maxKeys are tracked and none has refilled. */
  of(key: string, now: number): Bucket | undefined {
    let b = this.byKey.get(key);
    if (b) return b;
    // Buckets that have refilled are as good as new ones: forgotten.
    if (this.byKey.size >= this.maxKeys) for (const [k, old] of this.byKey) if (old.level(this.rate, now) >= this.rate.burst) this.byKey.delete(k);
    if (this.byKey.size >= this.maxKeys) return undefined;
    b = new Bucket(this.rate.burst, now);
    this.byKey.set(key, b);
    return b;
  }
}

export class WakeLimiter {
  private readonly sets: Buckets;
  private readonly namespaces: Buckets;
  private readonly global: Bucket;

  constructor(
    private readonly clock: () => number,
    setRate: Rate = SET_RATE,
    private readonly globalRate: Rate = GLOBAL_RATE,
    maxKeys = 10_000,
    namespaceRate: Rate = NAMESPACE_RATE,
  ) {
    this.sets = new Buckets(setRate, maxKeys);
    this.namespaces = new Buckets(namespaceRate, maxKeys);
    this.global = new Bucket(globalRate.burst, clock());
  }

  /**
   * take returns 0 when a pass of `key` (in `namespace`, when given) may run now, and takes a token
   * of each of its buckets; else the ms to wait (and takes none).
   */
  take(key: string, namespace?: string): number {
    const now = this.clock();
    const held: [Bucket, Rate][] = [];
    const set = this.sets.of(key, now);
    if (set) held.push([set, this.sets.rate]);
    const ns = namespace === undefined ? undefined : this.namespaces.of(namespace, now);
    if (ns) held.push([ns, this.namespaces.rate]);
    held.push([this.global, this.globalRate]);
    for (const [b, rate] of held) {
      const wait = b.wait(rate, now);
      if (wait > 0) return wait;
    }
    for (const [b, rate] of held) b.take(rate, now);
    return 0;
  }
}
