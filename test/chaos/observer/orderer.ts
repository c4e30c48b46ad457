/**
 * One order for the four watches' events: each waits `settleMs` after it was seen (for the other
 * watches to deliver what came before it) and is then released in resourceVersion order. On one
 * etcd a resourceVersion is the revision of the write, one counter for every resource.
 */
import type { OrderedEvent } from "./watch.ts";

export class Orderer {
  private buffer: OrderedEvent[] = [];
  private releasedRv = 0;
  /** Live events released after one with a higher resourceVersion (their watch lagged more than settleMs). */
  late = 0;

  push(e: OrderedEvent): void {
    this.buffer.push(e);
  }

  /** release returns the events seen at or before `until` (ms), in resourceVersion order. */
  release(until: number): OrderedEvent[] {
    this.buffer.sort((a, b) => a.rv - b.rv);
    let i = 0;
    while (i < this.buffer.length && this.buffer[i].at <= until) i++;
    const out = this.buffer.slice(0, i);
    this.buffer = this.buffer.slice(i);
    for (const e of out) {
      if (e.rv < this.releasedRv && !e.resync) this.late++;
      this.releasedRv = Math.max(this.releasedRv, e.rv);
    }
    return out;
  }
}
