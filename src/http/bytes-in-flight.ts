/**
 * MAX_BYTES_IN_FLIGHT bounds the request bodies the webhooks hold at once (one isolate, one
 * process), counted as their bytes arrive and until the answer is sent: a set creating a batch of
 * 64 pods of 1.1 MB each makes the apiserver send 64 reviews of that size in parallel, each parsed,
 * copied and diffed (several times its size in heap).
 */
const MAX_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

/**
 * BODY_GRACE_MS and MIN_BODY_BYTES_PER_S: the pace a body must keep. A request that has received
 * `b` bytes is cut (its connection closed) once `BODY_GRACE_MS + b / MIN_BODY_BYTES_PER_S` has
 * passed since it started, not counting time it waited for room here. The apiserver sends a
 * review at once; a sender that trickles or stalls is cut within 1 s plus the time its bytes
 * would take at 2 MiB/s (2.5 s for a 3 MiB body), and holds no more than the bytes it sent.
 */
const BODY_GRACE_MS = 1000;
const MIN_BODY_BYTES_PER_S = 2 * 1024 * 1024;

/**
 * A request body as it arrives: `read` returns the next chunk, undefined at its end. `cancel`
 * stops reading it: `close` (a sender cut for its pace) closes the connection too, else the rest
 * is discarded and the answer (413) can still be sent.
 */
export interface BodySource {
  read(): Promise<Uint8Array | undefined>;
  cancel(close: boolean): void;
}

/** The clock the budget judges pace by (tests pass a fake one). */
export interface BudgetClock {
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel. */
  after(ms: number, fn: () => void): () => void;
}

const systemClock: BudgetClock = {
  now: () => Date.now(),
  after: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** What `receive` returns: the body's text and the release of its bytes, or why it was refused. */
export type Received =
  | { ok: true; text: string; release(): void }
  | { ok: false; status: 408 | 413; reason: "too slow" | "too large" | "closed"; received: number; ms: number };

interface Reader {
  start: number;
  received: number;
  /** Time spent waiting for room (not the sender's fault). */
  waitedMs: number;
  /** Set while waiting for room. */
  waitingSince?: number;
  complete: boolean;
  cut(): void;
  /** Cancels the pace check armed for this request, if any. */
  stopWatch?: () => void;
}

export interface BodyBudgetOptions {
  maxBytes?: number;
  /** A body over this many bytes is refused (413) as soon as it passes it. */
  maxBody: number;
  graceMs?: number;
  minBytesPerS?: number;
  clock?: BudgetClock;
}

/**
 * BodyBudget reads request bodies while the bytes they hold add up to at most `maxBytes`: each
 * request counts the bytes it has received (not what it declares), from its first chunk until
 * `release` after the answer. A chunk that does not fit waits for room, except the oldest
 * request's, which always proceeds (so the held bytes never deadlock; at most `maxBytes` plus
 * one body). A request that falls behind the pace (BODY_GRACE_MS, MIN_BODY_BYTES_PER_S) while
 * not waiting here is cut. So a slow or stalled sender holds only the bytes it sent, for a
 * bounded time, and a genuine review never waits behind it. Each request's pace is checked by a
 * timer of its own (armed in its own request: a Worker runs a request's timers in its context).
 */
export class BodyBudget {
  private used = 0;
  /** Requests holding bytes, oldest first (a Set keeps insertion order). */
  private readonly active = new Set<Reader>();
  private readonly waiting: { r: Reader; n: number; resume: () => void }[] = [];
  private readonly maxBytes: number;
  private readonly graceMs: number;
  private readonly msPerByte: number;
  private readonly clock: BudgetClock;

  constructor(private readonly o: BodyBudgetOptions) {
    this.maxBytes = o.maxBytes ?? MAX_BYTES_IN_FLIGHT;
    this.graceMs = o.graceMs ?? BODY_GRACE_MS;
    this.msPerByte = 1000 / (o.minBytesPerS ?? MIN_BODY_BYTES_PER_S);
    this.clock = o.clock ?? systemClock;
  }

  /** Bytes held now (received and not yet released). */
  get held(): number {
    return this.used;
  }

  /** receive reads `body` to its end under the budget; on refusal the body is cancelled and nothing stays held. */
  async receive(body: BodySource): Promise<Received> {
    // Cutting settles the read in progress; one handler per read, none left behind on a long body.
    let interrupt: ((v: "cut") => void) | undefined;
    let wasCut = false;
    const cut = () => ((wasCut = true), interrupt?.("cut"));
    const r: Reader = { start: this.clock.now(), received: 0, waitedMs: 0, complete: false, cut };
    this.active.add(r);
    const refuse = (status: 408 | 413, reason: "too slow" | "too large" | "closed"): Received => {
      body.cancel(reason === "too slow");
      this.drop(r);
      return { ok: false, status, reason, received: r.received, ms: this.clock.now() - r.start };
    };
    const parts: Uint8Array[] = [];
    this.watch(r);
    for (;;) {
      let chunk: Uint8Array | undefined | "cut";
      try {
        chunk = wasCut ? "cut" : await new Promise<Uint8Array | undefined | "cut">((resolve, reject) => ((interrupt = resolve), body.read().then(resolve, reject)));
      } catch {
        return refuse(408, wasCut ? "too slow" : "closed");
      }
      if (chunk === "cut") return refuse(408, "too slow");
      if (chunk === undefined) break;
      if (r.received + chunk.byteLength > this.o.maxBody) return refuse(413, "too large");
      await this.take(r, chunk.byteLength);
      r.received += chunk.byteLength;
      parts.push(chunk);
    }
    r.complete = true;
    r.stopWatch?.();
    const text = new TextDecoder().decode(parts.length === 1 ? parts[0] : concat(parts, r.received));
    return { ok: true, text, release: () => this.drop(r) };
  }

  /** take counts `n` more bytes for `r`, first waiting for room unless they fit or `r` is the oldest. */
  private take(r: Reader, n: number): Promise<void> | undefined {
    if (this.fits(r, n)) {
      this.used += n;
      return undefined;
    }
    return new Promise<void>((resume) => {
      r.waitingSince = this.clock.now();
      this.waiting.push({ r, n, resume: () => (resume(), this.watch(r)) });
    });
  }

  private fits(r: Reader, n: number): boolean {
    return this.used + n <= this.maxBytes || this.active.values().next().value === r;
  }

  /** dueAt is when `r` falls behind the pace with what it has received. */
  private dueAt(r: Reader): number {
    return r.start + r.waitedMs + this.graceMs + r.received * this.msPerByte;
  }

  /** drop forgets `r` and its bytes (idempotent), and lets waiters that now fit go on. */
  private drop(r: Reader): void {
    r.stopWatch?.();
    if (!this.active.delete(r)) return;
    this.used -= r.received;
    const i = this.waiting.findIndex((w) => w.r === r);
    if (i >= 0) this.waiting.splice(i, 1);
    this.resumeWaiters();
  }

  /** resumeWaiters lets each waiting chunk that fits now go on, in arrival order. */
  private resumeWaiters(): void {
    const now = this.clock.now();
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i];
      if (!this.fits(w.r, w.n)) {
        i++;
        continue;
      }
      this.used += w.n;
      this.waiting.splice(i, 1);
      w.r.waitedMs += now - (w.r.waitingSince ?? now);
      w.r.waitingSince = undefined;
      w.resume();
    }
  }

  /**
   * watch arms `r`'s pace check (unless armed): when due, a request still reading and not waiting
   * here is cut if behind, else checked again at its new due time; a waiting one is re-armed when resumed.
   */
  private watch(r: Reader): void {
    if (r.stopWatch) return;
    r.stopWatch = this.clock.after(Math.max(0, this.dueAt(r) - this.clock.now()), () => {
      r.stopWatch = undefined;
      if (!this.active.has(r) || r.complete || r.waitingSince !== undefined) return;
      if (this.clock.now() < this.dueAt(r)) return this.watch(r);
      r.cut();
      this.drop(r);
    });
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** webBody returns a BodySource over a web ReadableStream (the Worker's, and hono's app.request); none: an empty body. */
export function webBody(stream: ReadableStream<Uint8Array> | null): BodySource {
  if (!stream) return { read: () => Promise.resolve(undefined), cancel: () => undefined };
  const reader = stream.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}
