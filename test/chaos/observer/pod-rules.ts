/**
 * The rules a pod's event is judged by, at the moment it happened (the model holds every other
 * object as it was then): identity (one pod per ordinal, none outside the range, no adoption of
 * another's pod), OrderedReady creation and scale-down, scaleStrategy.maxUnavailable, preDelete
 * hooks. A reconciler acts on what it read, which may be up to `staleReadMs` old: a state it may
 * have read within that window excuses it (the apps/v1 controller has the same race).
 */
import { controllerUid, hookHolds, inRange, isAvailable, isFailed, isOrderedReady, isTerminating, rangeOrdinals, scaled, type PodObject } from "./objects.ts";
import { keyOf, ordinalFrom, type ClusterState, type SetState, type WatchEvent } from "./state.ts";
import { RULES } from "./types.ts";
import { judgeAvailability } from "./availability.ts";

/** judgePod judges one pod event against the model as it was just before it (call before ClusterState.applyPod). */
export function judgePod(st: ClusterState, e: WatchEvent, prev: PodObject | undefined, next: PodObject | undefined): void {
  const p = next ?? prev;
  if (!p) return;
  const key = keyOf(p.metadata);
  trackHolds(st, key, e, prev, next);
  if (e.resync) return;
  const s = st.setOf(p);
  if (next && s && (!prev || prev.metadata.uid !== next.metadata.uid)) st.judged(RULES.onePerOrdinal);
  if (next && prev && prev.metadata.uid !== next.metadata.uid) {
    st.report(RULES.onePerOrdinal, e.at, key, `pod ${next.metadata.uid} created while pod ${prev.metadata.uid} of that name was still in the apiserver`);
  }
  if (next && s && (!prev || prev.metadata.uid !== next.metadata.uid)) judgeCreate(st, s, e, next);
  if (prev && next && s && prev.metadata.uid === next.metadata.uid && controllerUid(prev.metadata) !== controllerUid(next.metadata)) judgeAdoption(st, s, e, prev);
  if (prev && s && !isTerminating(prev) && (!next || isTerminating(next)) && !st.injected(key, e.at)) judgeDeleteStart(st, s, e, prev);
  if (s) judgeAvailability(st, s, e, prev, next);
}

/** describe says why a pod is not Running and Ready. */
const describe = (p: PodObject | undefined): string =>
  !p ? "missing" : isTerminating(p) ? "terminating" : `phase ${p.status?.phase ?? "none"}, Ready=${p.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "none"}`;

function judgeCreate(st: ClusterState, s: SetState, e: WatchEvent, pod: PodObject): void {
  const key = keyOf(pod.metadata);
  const o = ordinalFrom(s, pod);
  if (o === undefined) {
    st.report(RULES.range, e.at, key, `created by ${s.key} with a name that is not <set>-<ordinal>`);
    return;
  }
  st.judged(RULES.range);
  if (!st.inAnyRange(s, o, e.at)) {
    st.report(RULES.range, e.at, key, `created at ordinal ${o}, outside ${s.key}'s range in every version of the last ${st.staleReadMs} ms (replicas ${s.obj.spec?.replicas ?? 1})`);
  }
  if (isOrderedReady(s.obj)) {
    st.judged(RULES.orderedCreate);
    const ns = pod.metadata.namespace ?? "";
    const waiting = rangeOrdinals(s.obj, o).filter((i) => i < o).filter((i) => {
      const last = s.slots.get(i)?.lastReadyAt;
      return last === undefined || last < e.at - st.staleReadMs;
    });
    if (waiting.length) {
      const names = waiting.slice(0, 5).map((i) => `${s.obj.metadata.name}-${i} (${describe(st.pods.get(`${ns}/${s.obj.metadata.name}-${i}`))})`);
      st.report(RULES.orderedCreate, e.at, key, `OrderedReady: created while ${names.join(", ")} not Running and Ready (nor within ${st.staleReadMs} ms)`);
    }
  }
  const budget = s.obj.spec?.scaleStrategy?.maxUnavailable;
  const slot = s.slots.get(o);
  if (!isOrderedReady(s.obj) && budget !== undefined && !slot?.hadPod) {
    st.judged(RULES.scaleMaxUnavailable);
    const k = scaled(budget, s.obj.spec?.replicas ?? 1, Infinity);
    const minReady = s.obj.spec?.minReadySeconds ?? 0;
    const starting = st.podsOf(s).filter((p) => {
      const i = ordinalFrom(s, p);
      if (i === undefined || !inRange(s.obj, i) || isAvailable(p, minReady, e.at) || st.injected(keyOf(p.metadata), e.at)) return false;
      const last = s.slots.get(i)?.lastReadyAt;
      return last === undefined || last < e.at - st.staleReadMs;
    });
    if (starting.length >= k) {
      st.report(RULES.scaleMaxUnavailable, e.at, key, `created while ${starting.length} replicas were not yet available (${starting.map((p) => p.metadata.name).slice(0, 5).join(", ")}); scaleStrategy.maxUnavailable ${k}`);
    }
  }
}

function judgeAdoption(st: ClusterState, s: SetState, e: WatchEvent, prev: PodObject): void {
  const key = keyOf(prev.metadata);
  st.judged(RULES.adoption);
  const before = controllerUid(prev.metadata);
  if (before !== undefined) {
    st.report(RULES.adoption, e.at, key, `${s.key} took over a pod controlled by ${before}`);
    return;
  }
  const o = ordinalFrom(s, prev);
  if (o === undefined || !st.inAnyRange(s, o, e.at)) st.report(RULES.adoption, e.at, key, `${s.key} adopted an orphan outside its range`);
}

/** judgeDeleteStart judges the moment a pod's deletion started (not the injector's): preDelete hooks and OrderedReady's scale-down order. */
function judgeDeleteStart(st: ClusterState, s: SetState, e: WatchEvent, prev: PodObject): void {
  const key = keyOf(prev.metadata);
  const holds = hookHolds(s.obj, prev);
  const unheld = st.unheldAt.get(key);
  if (s.obj.spec?.lifecycle?.preDelete) st.judged(RULES.preDelete);
  if (holds.length && !isFailed(prev) && (unheld === undefined || unheld < e.at - st.staleReadMs)) {
    st.report(RULES.preDelete, e.at, key, `deleted while the preDelete hook holds it (${holds.join(", ")})`);
  }
  const o = ordinalFrom(s, prev);
  if (o === undefined || !isOrderedReady(s.obj) || st.inAnyRange(s, o, e.at)) return;
  st.judged(RULES.orderedScaleDown);
  const condemned = st.podsOf(s).filter((p) => {
    const i = ordinalFrom(s, p);
    return p.metadata.name !== prev.metadata.name && i !== undefined && !inRange(s.obj, i);
  });
  const higher = condemned.filter((p) => ordinalFrom(s, p)! > o && !isTerminating(p));
  if (higher.length) st.report(RULES.orderedScaleDown, e.at, key, `OrderedReady scale-down deleted ordinal ${o} while higher ${higher.map((p) => p.metadata.name).join(", ")} still ran`);
  const terminating = condemned.filter((p) => isTerminating(p) && !st.injected(keyOf(p.metadata), e.at));
  if (terminating.length) st.report(RULES.orderedScaleDown, e.at, key, `OrderedReady scale-down deleted ordinal ${o} while ${terminating.map((p) => p.metadata.name).join(", ")} was still terminating`);
}

/** trackHolds remembers when each pod was last seen without its set's preDelete hold (Infinity while it is). */
function trackHolds(st: ClusterState, key: string, e: WatchEvent, prev: PodObject | undefined, next: PodObject | undefined): void {
  if (!next) return;
  const s = st.setOf(next);
  const free = !s || hookHolds(s.obj, next).length === 0;
  if (free) st.unheldAt.set(key, Infinity);
  else if (!prev || prev.metadata.uid !== next.metadata.uid) st.unheldAt.delete(key);
  else if (st.unheldAt.get(key) === Infinity) st.unheldAt.set(key, e.at);
}
