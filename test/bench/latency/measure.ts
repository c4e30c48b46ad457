/**
 * The benchmark's pure judgements, on what the watches saw: when a scenario is done, how long
 * each OrderedReady step took, how many pods were created in a window, and the median.
 */
import type { Pod } from "../../../src/api/k8s.ts";
import type { KubeObject } from "../../../src/kube/client.ts";
import type { WatchEvent } from "./watch.ts";

export interface SetObject extends KubeObject {
  metadata: { name: string; generation?: number };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number; updatedReplicas?: number; currentRevision?: string; updateRevision?: string };
}

const ready = (p: Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
/** ordinalOf returns the ordinal of pod `<set>-<n>`. */
const ordinalOf = (set: string, pod: string) => (pod.startsWith(`${set}-`) ? Number(pod.slice(set.length + 1)) : NaN);

/**
 * isDone is true when the set has observed generation `gen` (and nothing newer), its status says
 * `n` replicas, all ready and updated, one revision; and exactly `n` pods exist, none
 * terminating, all Ready with `image` in their first container.
 */
export function isDone(set: SetObject | undefined, pods: Pod[], gen: number, n: number, image: string): boolean {
  const s = set?.status;
  if (!set || !s || (s.observedGeneration ?? 0) < gen || (set.metadata.generation ?? 0) !== s.observedGeneration) return false;
  if (s.replicas !== n || s.readyReplicas !== n || s.updatedReplicas !== n || s.currentRevision !== s.updateRevision) return false;
  return pods.length === n && pods.every((p) => !p.metadata?.deletionTimestamp && ready(p) && p.spec?.containers?.[0]?.image === image);
}

/**
 * stepTimes returns, for pods 1..n-1 of set `set`, the ms from pod k-1's first event showing it
 * Ready to pod k's first ADDED event (the controller's reaction to an OrderedReady step); a step
 * whose two events were not both seen is left out.
 */
export function stepTimes(events: WatchEvent<Pod>[], set: string, n: number): number[] {
  const added = new Map<number, number>();
  const readyAt = new Map<number, number>();
  for (const e of events) {
    const k = ordinalOf(set, e.object.metadata?.name ?? "");
    if (e.type === "ADDED" && !added.has(k)) added.set(k, e.at);
    if (ready(e.object) && !readyAt.has(k)) readyAt.set(k, e.at);
  }
  const out: number[] = [];
  for (let k = 1; k < n; k++) if (added.has(k) && readyAt.has(k - 1)) out.push(added.get(k)! - readyAt.get(k - 1)!);
  return out;
}

/** firstAddedAfter returns the ms from `start` to the first pod ADDED at or after it, undefined for none. */
export function firstAddedAfter(events: WatchEvent<Pod>[], start: number): number | undefined {
  const e = events.find((x) => x.type === "ADDED" && x.at >= start);
  return e ? e.at - start : undefined;
}

/** createdIn returns how many pods were ADDED within [start, end]. */
export const createdIn = (events: WatchEvent<Pod>[], start: number, end: number) => events.filter((e) => e.type === "ADDED" && e.at >= start && e.at <= end).length;

/** median returns the middle value (the mean of the two middle ones for an even count), NaN for none. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
