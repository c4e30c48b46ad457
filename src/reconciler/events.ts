import type { StatefulSet } from "../api/statefulset.ts";
import { COMPONENT } from "../objects/constants.ts";
import type { KubeClient } from "../kube/client.ts";
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
 * Like kube's recorder, the correlator's memory is the process's (here: one invocation, shared by
 * its passes): a new invocation starts a new Event (`<set>.<hex time>`, one create), as a
 * restarted kube-controller-manager does; finding the previous one would cost a read per key.
 * Best effort: a failed event write is logged, never fails the pass.
 */

const AGGREGATE_PREFIX = "(combined from similar events): ";
/** kube's EventAggregator: similar events are combined once this many different messages were seen… */
const AGGREGATE_AFTER = 10;
/** …within this window (ms) since the last similar one. */
const AGGREGATE_WINDOW_MS = 600_000;

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
  writtenAt: number;
  lastSeen: Date;
}

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
}

export class EventRecorder {
  private readonly groups = new Map<string, Group>();
  private readonly known = new Map<string, Known>();
  private readonly similar = new Map<string, Similar>();
  private readonly minIntervalMs: number;
  private seq = 0;
  /** Two recorders (invocations) in the same millisecond must not pick the same names. */
  private readonly salt = Math.floor(Math.random() * 0xf00000);

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    opts: EventRecorderOptions = {},
  ) {
    this.minIntervalMs = opts.minIntervalMs ?? 60_000;
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
    // The group is set for an Event never written (created with its fields), undefined for a repeat (patched).
    const due: [string, Known, Group | undefined][] = [];
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
          // Never written (its create failed): try the create again.
          if (k.count === 0) due.push([eventKey, k, g]);
        } else {
          // Named like kube's recorder: `<object>.<hex time>` (plus a salted sequence: one flush may create several).
          const name = `${nameOf(g.set)}.${now.getTime().toString(16)}${(this.salt + this.seq++).toString(16).padStart(6, "0")}`;
          const created: Known = { name, namespace: namespaceOf(g.set), count: 0, unwritten: b.n, message: b.message, writtenAt: 0, lastSeen: now };
          this.known.set(eventKey, created);
          due.push([eventKey, created, g]);
        }
      }
    }
    this.groups.clear();
    for (const [eventKey, k] of this.known) {
      if (k.unwritten > 0 && k.count > 0 && (force || now.getTime() - k.writtenAt >= this.minIntervalMs)) due.push([eventKey, k, undefined]);
    }
    for (const [, k, g] of due) {
      try {
        await this.write(k, g, now);
      } catch (e) {
        this.log.warn("event not recorded", { event: `${k.namespace}/${k.name}`, error: String(e) });
      }
    }
  }

  /**
   * aggregate notes message `m` of the set/type/reason `key` and returns whether it belongs in the
   * aggregate Event: once AGGREGATE_AFTER different messages were seen, each less than
   * AGGREGATE_WINDOW_MS after the previous similar one (kube's EventAggregate).
   */
  private aggregate(key: string, m: string, now: Date): boolean {
    let s = this.similar.get(key);
    if (!s || now.getTime() - s.lastSeen > AGGREGATE_WINDOW_MS) this.similar.set(key, (s = { messages: new Set(), lastSeen: now.getTime() }));
    s.lastSeen = now.getTime();
    // Bounded: past the threshold every message is aggregated, so the set needs no more members.
    if (s.messages.size < AGGREGATE_AFTER) s.messages.add(m);
    return s.messages.size >= AGGREGATE_AFTER;
  }

  /** close writes every counted repeat (end of an invocation). */
  close(now: Date): Promise<void> {
    return this.flush(now, true);
  }

  private async write(k: Known, g: Group | undefined, now: Date): Promise<void> {
    const ts = wholeSeconds(now);
    if (g) {
      await this.client.create(R.events, k.namespace, newEvent(g, k, ts));
      k.count = k.unwritten;
      k.unwritten = 0;
      k.writtenAt = now.getTime();
      return;
    }
    await this.client.patch(R.events, k.namespace, k.name, { count: k.count + k.unwritten, lastTimestamp: ts, message: k.message }, "merge");
    k.count += k.unwritten;
    k.unwritten = 0;
    k.writtenAt = now.getTime();
  }
}

function newEvent(g: Group, k: Known, ts: string): Record<string, unknown> {
  const set = g.set;
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: k.name, namespace: k.namespace },
    involvedObject: {
      apiVersion: set.apiVersion,
      kind: set.kind,
      name: set.metadata.name,
      namespace: set.metadata.namespace,
      uid: set.metadata.uid,
      resourceVersion: set.metadata.resourceVersion,
    },
    reason: g.reason,
    message: k.message,
    type: g.type,
    source: { component: COMPONENT },
    reportingComponent: COMPONENT,
    reportingInstance: COMPONENT,
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: k.unwritten,
  };
}
