import type { StatefulSet } from "../api/statefulset.ts";
import { COMPONENT } from "../objects/constants.ts";
import { isAlreadyExists, isNotFound, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { wholeSeconds } from "../core/inplace-state.ts";
import { namespaceOf, nameOf } from "../objects/names.ts";

/**
 * Events about sets, aggregated the way kube's EventCorrelator does it, with what a controller
 * without memory can keep:
 * - identical events (same set, type, reason and message) are one Event whose `count` and
 *   `lastTimestamp` are patched (kube's eventLogger dedupe);
 * - similar events (same set, type, reason, different messages) are written one by one until
 *   10 different messages were seen within 10 minutes; from the 10th on they go to one aggregate
 *   Event with kube's "(combined from similar events): " message naming the latest (kube's
 *   EventAggregator: maxEvents 10, maxIntervalInSeconds 600);
 * - repeats of an Event written less than `minIntervalMs` ago are counted, not written, until a
 *   later flush or `close()` (kube's spam filter), so a failing set writes no event per pass.
 * Like kube's recorder, the correlator's memory is its owner's: one invocation (runReconcile), the
 * life of `ordinal serve`'s scheduler, a shard runner's instance (the Worker's Durable Object while
 * it stays in memory). A new owner starts a new Event (`<set>.<hex time>`, one create), as a
 * restarted kube-controller-manager does; finding the previous one would cost a read per key.
 * The memory is bounded as kube's caches are (an LRU of 4096 Events and 4096 similar groups), and
 * an Event gone meanwhile (the apiserver's event TTL) is created again under its name with the
 * count so far, as kube's recorder does when its patch finds none.
 * Best effort: a failed event write is logged, never fails the pass; a failed repeat is tried again
 * after minIntervalMs, 12 times at most (kube's maxTriesPerEvent), never at every flush.
 */

const AGGREGATE_PREFIX = "(combined from similar events): ";
/** kube's EventAggregator: similar events are combined once this many different messages were seen… */
const AGGREGATE_AFTER = 10;
/** …within this window (ms) since the last similar one. */
const AGGREGATE_WINDOW_MS = 600_000;

/**
 * kube's maxTriesPerEvent: a repeat whose write failed this many times in a row is given up (its
 * counts forgotten), e.g. one of a namespace that was deleted: no Event can be created there again.
 */
const MAX_TRIES = 12;

/** kube's maxLruCacheEntries: the Events (and similar groups) remembered, least recently used forgotten first. */
const MAX_REMEMBERED = 4096;

/** Different messages seen of one set, type and reason (kube's aggregateRecord.localKeys). */
interface Similar {
  messages: Set<string>;
  lastSeen: number;
}

interface Known {
  name: string;
  namespace: string;
  count: number;
  unwritten: number;
  message: string;
  /** When it was last written, or its last write tried (a failed repeat waits minIntervalMs too, as kube's recorder sleeps between tries). */
  writtenAt: number;
  /** Writes of its repeats failed in a row (MAX_TRIES: given up). */
  failures: number;
  lastSeen: Date;
  /** The Event's firstTimestamp (set when it is created): kept when it must be created again. */
  firstTimestamp: string;
  /** What it is about (only the reference's fields: a set may be large), its type and reason: to create it again. */
  about: Reference;
  type: Group["type"];
  reason: string;
}

/** The fields of an Event's involvedObject. */
type Reference = Record<"apiVersion" | "kind" | "name" | "namespace" | "uid" | "resourceVersion", string | undefined>;

/** The object an event is about: a set, or an ImageList (same metadata shape). */
export type InvolvedObject = Pick<StatefulSet, "apiVersion" | "kind" | "metadata">;

interface Group {
  set: InvolvedObject;
  type: "Normal" | "Warning";
  reason: string;
  messages: string[];
}

export interface EventRecorderOptions {
  /** Repeats of one Event are written at most this often (ms, default 60 000); close() writes the rest. */
  minIntervalMs?: number;
  /** Events (and similar groups) remembered, the least recently used forgotten first (default 4096, kube's). */
  maxRemembered?: number;
}

export class EventRecorder {
  private readonly groups = new Map<string, Group>();
  private readonly known = new Map<string, Known>();
  private readonly similar = new Map<string, Similar>();
  /** Keys of written Events with repeats not yet written (flush looks at these only, not at every Event known). */
  private readonly pending = new Set<string>();
  private readonly minIntervalMs: number;
  private readonly maxRemembered: number;
  private seq = 0;
  /** Two recorders (invocations) in the same millisecond must not pick the same names. */
  private readonly salt = Math.floor(Math.random() * 0xf00000);

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    opts: EventRecorderOptions = {},
  ) {
    this.minIntervalMs = opts.minIntervalMs ?? 60_000;
    this.maxRemembered = opts.maxRemembered ?? MAX_REMEMBERED;
  }

  /** record queues an event about the set (or ImageList); flush() writes it. */
  record(set: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string): void {
    const key = `${set.metadata.namespace}/${set.metadata.uid ?? set.metadata.name}/${type}/${reason}`;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { set, type, reason, messages: [] }));
    g.messages.push(message.slice(0, 1024));
  }

  /** flush writes the queued events (one write per Event) and repeats that are due; `force` writes every repeat. */
  async flush(now: Date, force = false): Promise<void> {
    // `create`: an Event never written (created with its fields); else a repeat (patched).
    const due: { key: string; k: Known; create: boolean }[] = [];
    for (const [key, g] of this.groups) {
      // Each message (in recording order) goes to its own Event, or to the aggregate once enough similar ones were seen.
      const batches = new Map<string, { message: string; n: number }>();
      for (const m of g.messages) {
        const eventKey = this.aggregate(key, m, now) ? `${key}/*` : `${key}/${m}`;
        const message = eventKey.endsWith("/*") ? AGGREGATE_PREFIX + m : m;
        const b = batches.get(eventKey);
        if (b) {
          b.n++;
          b.message = message;
        } else batches.set(eventKey, { message, n: 1 });
      }
      for (const [eventKey, b] of batches) {
        const k = this.known.get(eventKey);
        if (k) {
          k.unwritten += b.n;
          k.message = b.message;
          k.lastSeen = now;
          touch(this.known, eventKey, k);
          // Never written (its create failed): try the create again.
          if (k.count === 0) due.push({ key: eventKey, k, create: true });
          else this.pending.add(eventKey);
        } else {
          // Named like kube's recorder: `<object>.<hex time>` (plus a salted sequence: one flush may create several).
          const name = `${nameOf(g.set)}.${now.getTime().toString(16)}${(this.salt + this.seq++).toString(16).padStart(6, "0")}`;
          const created: Known = { name, namespace: namespaceOf(g.set), count: 0, unwritten: b.n, message: b.message, writtenAt: 0, failures: 0, lastSeen: now, firstTimestamp: "", about: reference(g.set), type: g.type, reason: g.reason };
          this.known.set(eventKey, created);
          due.push({ key: eventKey, k: created, create: true });
          // A Warning (a rollback, a deadline exceeded, a refused create, an identity refusal) is
          // also a log line, once per Event: its repeats only count on the Event.
          if (g.type === "Warning") this.log.warn("warning event", { set: `${namespaceOf(g.set)}/${nameOf(g.set)}`, kind: g.set.kind, reason: g.reason, message: b.message });
        }
      }
    }
    this.groups.clear();
    for (const eventKey of this.pending) {
      const k = this.known.get(eventKey);
      if (!k || k.unwritten === 0) this.pending.delete(eventKey);
      else if (force || now.getTime() - k.writtenAt >= this.minIntervalMs) {
        this.pending.delete(eventKey);
        due.push({ key: eventKey, k, create: false });
      }
    }
    for (const { key, k, create } of due) {
      try {
        await this.write(k, create, now);
      } catch (e) {
        this.log.warn("event not recorded", { event: `${k.namespace}/${k.name}`, error: String(e) });
        // A repeat not written is tried again once minIntervalMs passed (a create is, by its next
        // occurrence), MAX_TRIES times at most: every set's flush must not pay for one that cannot be.
        if (!create) this.retryLater(key, k, now);
      }
    }
    // Bounded as kube's LRU caches: the least recently used are forgotten (a repeat of one of them starts a new Event).
    forgetOldest(this.known, this.maxRemembered, (key) => this.pending.delete(key));
    forgetOldest(this.similar, this.maxRemembered);
  }

  /** retryLater queues the repeats of Event `key`, whose write failed, for a flush minIntervalMs from `now`, or forgets them after MAX_TRIES failures. */
  private retryLater(key: string, k: Known, now: Date): void {
    k.writtenAt = now.getTime();
    if (++k.failures < MAX_TRIES) this.pending.add(key);
    else this.known.delete(key);
  }

  /**
   * aggregate notes message `m` of the set/type/reason `key` and returns whether it belongs in the
   * aggregate Event: once AGGREGATE_AFTER different messages were seen, each less than
   * AGGREGATE_WINDOW_MS after the previous similar one (kube's EventAggregate).
   */
  private aggregate(key: string, m: string, now: Date): boolean {
    let s = this.similar.get(key);
    if (!s || now.getTime() - s.lastSeen > AGGREGATE_WINDOW_MS) s = { messages: new Set(), lastSeen: now.getTime() };
    s.lastSeen = now.getTime();
    touch(this.similar, key, s);
    // Bounded: past the threshold every message is aggregated, so the set needs no more members.
    if (s.messages.size < AGGREGATE_AFTER) s.messages.add(m);
    return s.messages.size >= AGGREGATE_AFTER;
  }

  /** close writes every counted repeat (end of an invocation). */
  close(now: Date): Promise<void> {
    return this.flush(now, true);
  }

  /**
   * write creates the Event (`create`: never written; one that exists already, a create whose answer
   * was lost, is patched) or patches its count, lastTimestamp and message (a repeat); a repeat whose
   * Event is gone (its TTL passed) creates it again with the count so far.
   * A failed write throws and leaves the counts as they were, for the next flush.
   */
  private async write(k: Known, create: boolean, now: Date): Promise<void> {
    const ts = wholeSeconds(now);
    const patchCount = () => this.client.patch(R.events, k.namespace, k.name, { count: k.count + k.unwritten, lastTimestamp: ts, message: k.message }, "merge");
    if (create) {
      try {
        await this.client.create(R.events, k.namespace, newEvent(k, ts, ts, k.unwritten));
      } catch (e) {
        // A create whose answer was lost stored the Event with the counts it carried (all still unwritten here): add the rest.
        if (!isAlreadyExists(e)) throw e;
        await patchCount();
      }
      k.firstTimestamp = ts;
    } else {
      try {
        await patchCount();
      } catch (e) {
        if (!isNotFound(e)) throw e;
        await this.client.create(R.events, k.namespace, newEvent(k, k.firstTimestamp, ts, k.count + k.unwritten));
      }
    }
    k.count += k.unwritten;
    k.unwritten = 0;
    k.writtenAt = now.getTime();
    k.failures = 0;
  }
}

/** touch makes `key` the most recently used entry of `m` (a Map iterates in insertion order). */
function touch<V>(m: Map<string, V>, key: string, v: V): void {
  m.delete(key);
  m.set(key, v);
}

/** forgetOldest deletes the least recently used entries of `m` beyond `max`, calling `forgotten` with each key. */
function forgetOldest<V>(m: Map<string, V>, max: number, forgotten?: (key: string) => void): void {
  for (const key of m.keys()) {
    if (m.size <= max) return;
    m.delete(key);
    forgotten?.(key);
  }
}

/** reference returns the involvedObject of an Event about `o`. */
function reference(o: InvolvedObject): Reference {
  const { name, namespace, uid, resourceVersion } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, name, namespace, uid, resourceVersion };
}

/** newEvent returns Event `k` with these timestamps and count. */
function newEvent(k: Known, first: string, last: string, count: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: k.name, namespace: k.namespace },
    involvedObject: k.about,
    reason: k.reason,
    message: k.message,
    type: k.type,
    source: { component: COMPONENT },
    reportingComponent: COMPONENT,
    reportingInstance: COMPONENT,
    firstTimestamp: first,
    lastTimestamp: last,
    count,
  };
}
