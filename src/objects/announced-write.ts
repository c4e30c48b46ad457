/**
 * An announced write: what an admission told the reconciler is about to be stored (a wake comes
 * from admission, before the write it announces is stored or refused). A pass that reads the
 * object can tell whether what it read already includes the write, so the scheduler looks again
 * soon only while it does not, instead of at blind delays. Only a hint: a write that never lands
 * (refused later, a conflict, a no-op update that keeps the resourceVersion) costs a few bounded
 * looks, never correctness.
 */

/** The kinds a set's pass reads whose writes are announced. */
export type AnnouncedResource = "pods" | "persistentvolumeclaims" | "statefulsets";

export interface AnnouncedWrite {
  resource: AnnouncedResource;
  name: string;
  operation: "CREATE" | "UPDATE" | "DELETE";
  /** The object's resourceVersion before the write (UPDATE, DELETE). */
  resourceVersion?: string;
}

/**
 * writeLanded returns whether `observed` (the object as a pass read it by the write's name;
 * undefined when absent) already includes the write: a create once the object exists; an update or
 * a delete once the object is gone or its resourceVersion moved on from the one before the write
 * (a graceful delete sets deletionTimestamp, a new resourceVersion). An update or delete that
 * announced no resourceVersion counts as landed (nothing to compare).
 */
export function writeLanded(write: AnnouncedWrite, observed: { metadata?: { resourceVersion?: string } } | undefined): boolean {
  if (write.operation === "CREATE") return observed !== undefined;
  if (!observed || write.resourceVersion === undefined) return true;
  return observed.metadata?.resourceVersion !== write.resourceVersion;
}
