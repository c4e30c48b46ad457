/**
 * A wake: what tells the reconciler that a set (or a namespace's ImageLists) may have something to
 * do. One type for every source and both runtimes: the admission webhooks make them
 * (src/admission/wakes.ts), Node's watch cache makes them (`observed`), a standby replica forwards
 * them, the Worker's webhooks hand them to their shard's Durable Object; the schedule model
 * (src/schedule/model.ts) turns them into targeted passes. Only a hint: the reconciler stays
 * level-triggered and its full pass the safety net.
 */
import type { AnnouncedWrite } from "./announced-write.ts";

export interface Wake {
  namespace: string;
  /** The set's name; "" for a wake of the namespace's ImageLists (an ImageList or a puller pod changed). */
  name: string;
  /** The write its admission announces (a pod, claim or set by name), so a pass can tell whether it read it yet. */
  write?: AnnouncedWrite;
  /** From a watch (Node's cache): the change is held already, so the woken pass sees it (no look again, no forwarding). */
  observed?: boolean;
}

/** wakeKey returns `namespace/name`, the one key wakes are coalesced, scheduled and rate-limited by. */
export const wakeKey = (w: Pick<Wake, "namespace" | "name">): string => `${w.namespace}/${w.name}`;

/** wakeOfKey returns the set (or namespace's ImageLists, name "") a key names. */
export function wakeOfKey(key: string): Pick<Wake, "namespace" | "name"> {
  const i = key.indexOf("/");
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** sameWrite is true when two announced writes are the same write (object, operation and version before it). */
export const sameWrite = (a: AnnouncedWrite, b: AnnouncedWrite): boolean => a.resource === b.resource && a.name === b.name && a.operation === b.operation && a.resourceVersion === b.resourceVersion;
