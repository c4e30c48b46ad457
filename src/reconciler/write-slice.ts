/**
 * A set's share of the writes (issue 35: one set creating 150,000 pods never holds another
 * namespace's next pod back). Passes run one at a time in a process (and in a shard), so a set's
 * execution is what others wait for: its pod writes stop starting new batches once it has written
 * for WRITE_SLICE_MS, and no batch is more than MAX_WRITE_BATCH pods. The set has acted, so its
 * next pass comes at once, after the passes that were due meanwhile (Node: scheduler.ts orders
 * due passes by time; the full pass resumes after it). A set or namespace woken while another
 * writes thus waits at most one slice, one batch in flight and the reads of the pass before it.
 */

/** WRITE_SLICE_MS is how long one set's pass starts new batches of pod writes. */
const WRITE_SLICE_MS = 500;

/** MAX_WRITE_BATCH caps Parallel's slow-start batches (1, 2, 4, … 32 pods at once). */
export const MAX_WRITE_BATCH = 32;

/** writeSlice returns a `sliceSpent` for one set's execution: true once `ms` passed on `clock` (the pass's: tests that hold it still never spend it) since this call. */
export function writeSlice(clock: () => number, ms = WRITE_SLICE_MS): () => boolean {
  const until = clock() + ms;
  return () => clock() >= until;
}
