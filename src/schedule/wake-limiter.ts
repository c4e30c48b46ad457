/**
 * WakeLimiter bounds what wakes can cost: each targeted pass takes a token from its set's bucket
 * and from a global one (token buckets: a burst, then a steady rate). A caller waking one set as
 * fast as it can gets that set's rate of passes; waking many made-up names gets the global rate
 * (each a single read: pass.ts). Buckets that have refilled are forgotten, so memory follows the
 * sets woken lately, and at most `maxKeys` are tracked (beyond, only the global bucket bounds a new name).
 */

export interface Rate {
  burst: number;
  perSecond: number;
}

/** Per set: 20 passes at once, then 10 a second (an OrderedReady step of 100 ms needs about 3). */
const SET_RATE: Rate = { burst: 20, perSecond: 10 };
/** All sets together. */
const GLOBAL_RATE: Rate = { burst: 100, perSecond: 50 };

/**
 * With the watch cache synced a targeted pass reads nothing from the apiserver (its cost is the
 * plan's CPU and the writes that are progress), so passes may follow the changes they see: an
 * in-place step makes about six passes of its set within one kubelet step.
 */
export const CACHED_SET_RATE: Rate = { burst: 100, perSecond: 100 };
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
  /** wait returns 0 and takes a token when one is there, else the ms until one is. */
  take(rate: Rate, now: number): number {
    const level = this.level(rate, now);
    if (level >= 1) {
      this.tokens = level - 1;
      this.at = now;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - level) / rate.perSecond) * 1000 - 1e-6));
  }
}

export class WakeLimiter {
  private readonly sets = new Map<string, Bucket>();
  private readonly global: Bucket;

  constructor(
    private readonly clock: () => number,
    private readonly setRate: Rate = SET_RATE,
    private readonly globalRate: Rate = GLOBAL_RATE,
    private readonly maxKeys = 10_000,
  ) {
    this.global = new Bucket(globalRate.burst, clock());
  }

  /** take returns 0 when a pass of `key` may run now (and takes its tokens), else the ms to wait. */
  take(key: string): number {
    const now = this.clock();
    let bucket = this.sets.get(key);
    if (!bucket) {
      if (this.sets.size >= this.maxKeys) this.forgetFull(now);
      if (this.sets.size >= this.maxKeys) return this.global.take(this.globalRate, now);
      bucket = new Bucket(this.setRate.burst, now);
      this.sets.set(key, bucket);
    }
    const setWait = bucket.level(this.setRate, now) >= 1 ? 0 : bucket.take(this.setRate, now);
    if (setWait > 0) return setWait;
    const globalWait = this.global.take(this.globalRate, now);
    if (globalWait > 0) return globalWait;
    return bucket.take(this.setRate, now);
  }

  /** forgetFull drops the buckets that have refilled: they are as good as new ones. */
  private forgetFull(now: number): void {
    for (const [key, b] of this.sets) if (b.level(this.setRate, now) >= this.setRate.burst) this.sets.delete(key);
  }
}
