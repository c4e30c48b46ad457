/**
 * The reconcile thread's suspect (issue 35: a reconciler restart does not replay the namespace that
 * killed it first). In the thread, the namespace guard (src/reconciler/namespace-guard.ts) reports
 * each namespaced list it lets through (`onReading`, posted to the main thread). In the main
 * thread, ReadingTracker remembers what is being read; when the thread dies, the namespace it was
 * reading (a list in flight, else one that ended under BLAME_WINDOW_MS ago) is the suspect, which
 * the next thread strikes in the cluster's record (quarantine.ts) before its first pass: Node's
 * DEATHS_TO_QUARANTINE is 1 (namespace-guard.ts says why; the Worker's is 2).
 */
import { DEATHS_TO_QUARANTINE, judgeDeath, type Reading } from "../reconciler/namespace-guard.ts";

/** A list that ended this recently still blames its namespace (it may still be held: the pass plans from it). */
const BLAME_WINDOW_MS = 10_000;

/** ReadingTracker (main thread) follows the thread's lists and names the suspect when the thread dies. */
export class ReadingTracker {
  private readonly inFlight: string[] = [];
  private last: { namespace: string; at: number } | undefined;
  /** The namespace a thread died reading, not struck yet (never with Node's DEATHS_TO_QUARANTINE of 1). */
  private suspected: string | undefined;

  constructor(private readonly clock: () => number = Date.now) {}

  note(r: Reading): void {
    if (!r.done) this.inFlight.push(r.namespace);
    else {
      const i = this.inFlight.lastIndexOf(r.namespace);
      if (i >= 0) this.inFlight.splice(i, 1);
      this.last = { namespace: r.namespace, at: this.clock() };
    }
  }

  /**
   * died returns the namespace the next thread strikes now that this one died (judgeDeath with
   * Node's DEATHS_TO_QUARANTINE: what it was reading), or undefined; it forgets what was being read.
   */
  died(): string | undefined {
    const verdict = judgeDeath(this.suspect(), this.suspected, DEATHS_TO_QUARANTINE.node);
    this.suspected = verdict.suspect;
    return verdict.strike;
  }

  /** suspect returns the namespace the thread was reading when it died (the latest list in flight, else a recent one), and forgets everything. */
  suspect(): string | undefined {
    const recent = this.last && this.clock() - this.last.at <= BLAME_WINDOW_MS ? this.last.namespace : undefined;
    const s = this.inFlight[this.inFlight.length - 1] ?? recent;
    this.inFlight.length = 0;
    this.last = undefined;
    return s;
  }
}
