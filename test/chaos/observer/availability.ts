/**
 * maxUnavailable: a set's replicas made unavailable by Ordinal itself (a deletion or eviction, an
 * in-place update's gate, a new revision's images) never outnumber rollingUpdate.maxUnavailable.
 * Each in-range ordinal remembers who made its available pod unavailable; the count is taken at
 * the moment Ordinal makes another one unavailable. A pod already unavailable costs nothing (docs/
 * fields.md), and what the injector (or the kubelet) did is accounted apart.
 */
import { inRange, isAvailable, isGated, isTerminating, maxUnavailableOf, revisionOf, type PodObject } from "./objects.ts";
import { keyOf, ordinalFrom, type Cause, type ClusterState, type SetState, type WatchEvent } from "./state.ts";
import { RULES } from "./types.ts";

/**
 * causeOf says who made an available pod unavailable in this event. A deletion of an ordinal
 * outside the range of a version read within staleReadMs is a scale-down's (upstream acts on its
 * cache too: a scale-down decided just before a scale-up), which rollingUpdate.maxUnavailable does
 * not govern; a gate or a new revision is never a scale-down's.
 */
function causeOf(st: ClusterState, s: SetState, o: number, key: string, e: WatchEvent, prev: PodObject, next: PodObject | undefined): Cause {
  if (st.injected(key, e.at)) return "injected";
  if (!next || isTerminating(next)) return st.outOfSomeRange(s, o, e.at) ? "scaled" : "ordinal";
  if (isGated(next) || revisionOf(next) !== revisionOf(prev)) return "ordinal";
  return "other";
}

/** judgeAvailability updates the pod's ordinal (call before ClusterState.applyPod) and judges the budget when Ordinal took an available pod. */
export function judgeAvailability(st: ClusterState, s: SetState, e: WatchEvent, prev: PodObject | undefined, next: PodObject | undefined): void {
  const p = next ?? prev!;
  const o = ordinalFrom(s, p);
  if (o === undefined || !inRange(s.obj, o)) return;
  const slot = st.slot(s, o);
  const minReady = s.obj.spec?.minReadySeconds ?? 0;
  if (next && isAvailable(next, minReady, e.at)) {
    slot.cause = undefined;
    return;
  }
  if (!prev || !isAvailable(prev, minReady, e.at) || (next && next.metadata.uid !== prev.metadata.uid)) return;
  const key = keyOf(p.metadata);
  slot.cause = causeOf(st, s, o, key, e, prev, next);
  if (slot.cause !== "ordinal") return;
  st.judged(RULES.maxUnavailable);
  const taken = ordinalTaken(st, s, o, e.at);
  const budget = Math.max(...st.versionsSince(s, e.at).map(maxUnavailableOf));
  if (taken.length > budget) {
    st.report(RULES.maxUnavailable, e.at, key, `${taken.length} replicas made unavailable by Ordinal at once (${taken.join(", ")}); maxUnavailable ${budget}`);
  }
}

/** ordinalTaken returns the set's in-range pods Ordinal made unavailable and that are not available again at `at` (`current`: the one this event takes, whose stored state is still the one before). */
function ordinalTaken(st: ClusterState, s: SetState, current: number, at: number): string[] {
  const ns = s.obj.metadata.namespace ?? "";
  const minReady = s.obj.spec?.minReadySeconds ?? 0;
  const out: string[] = [];
  for (const [o, slot] of s.slots) {
    if (slot.cause !== "ordinal" || !inRange(s.obj, o)) continue;
    const name = `${s.obj.metadata.name}-${o}`;
    const pod = st.pods.get(`${ns}/${name}`);
    if (o !== current && pod && isAvailable(pod, minReady, at)) slot.cause = undefined;
    else out.push(name);
  }
  return out.sort();
}
