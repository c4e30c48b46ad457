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
 * - similar events (same set, type, reason, different messages) recorded in one flush — e.g. the
 *   claims and pods a Parallel set creates in one pass — are one aggregate Event with kube's
 *   "(combined from similar events): " message (kube's EventAggregator, which needs 10 similar
 *   events first; a pass is our window);
 * - repeats of an Event written less than `minIntervalMs` ago are counted, not written, until a
 *   later flush or `close()` (kube's spam filter), so a failing set writes no event per pass.
 * Like kube's recorder, the correlator's memory is the process's (here: one invocation, shared by
 * its passes): a new invocation starts a new Event (`<set>.<hex time>`, one create), as a
 * restarted kube-controller-manager does; finding the previous one would cost a read per key.
 * Best effort: a failed event write is logged, never fails the pass.
 */

const AGGREGATE_PREFIX = "(combined from similar events): ";

interface Known {
  name: string;
  namespace: string;
  count: number;
  unwritten: number;
  message: string;
  writtenAt: number;
  lastSeen: Date;
}

/** What an event is about: a set's identity (a parsed set, or what set-error.ts reads of one that does not parse). */
export type EventSubject = Pick<StatefulSet, "apiVersion" | "kind"> & { metadata: Pick<StatefulSet["metadata"], "name" | "namespace" | "uid" | "resourceVersion"> };

interface Group {
  set: EventSubject;
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

  /** record queues an event about the set; flush() writes it. */
  record(set: EventSubject, type: "Normal" | "Warning", reason: string, message: string): void {
    const key = `${set.metadata.namespace}/${set.metadata.uid ?? set.metadata.name}/${type}/${reason}`;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { set, type, reason, messages: [] }));
    g.messages.push(message.slice(0, 1024));
  }

  /** flush writes the queued events (one write per group) and repeats that are due; `force` writes every repeat. */
  async flush(now: Date, force = false): Promise<void> {
    // The group is set for an Event never written (created with its fields), undefined for a repeat (patched).
    const due: [string, Known, Group | undefined][] = [];
    for (const [key, g] of this.groups) {
      const distinct = new Set(g.messages);
      const eventKey = distinct.size === 1 ? `${key}/${g.messages[0]}` : `${key}/*`;
      const message = distinct.size === 1 ? g.messages[0] : AGGREGATE_PREFIX + g.messages[g.messages.length - 1];
      const k = this.known.get(eventKey);
      if (k) {
        k.unwritten += g.messages.length;
        k.message = message;
        k.lastSeen = now;
        // Never written (its create failed): try the create again.
        if (k.count === 0) due.push([eventKey, k, g]);
      } else {
        // Named like kube's recorder: `<object>.<hex time>` (plus a salted sequence: one flush may create several).
        const name = `${nameOf(g.set)}.${now.getTime().toString(16)}${(this.salt + this.seq++).toString(16).padStart(6, "0")}`;
        const created: Known = { name, namespace: namespaceOf(g.set), count: 0, unwritten: g.messages.length, message, writtenAt: 0, lastSeen: now };
        this.known.set(eventKey, created);
        due.push([eventKey, created, g]);
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
