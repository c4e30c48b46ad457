/**
 * Claims: a set's claim (`<template>-<set>-<ordinal>`) is deleted only as its
 * persistentVolumeClaimRetentionPolicy says (apps/v1): `whenDeleted: Delete` once the set is gone
 * or being deleted, `whenScaled: Delete` once its ordinal is scaled away (the pod becomes the
 * claim's owner, and the garbage collector deletes the claim after the pod). Default: Retain both.
 */
import { inRange, ordinalOf, type ClaimObject, type SetObject } from "./objects.ts";
import { keyOf, type ClusterState, type SetState, type WatchEvent } from "./state.ts";
import { RULES } from "./types.ts";

/** claimOwner returns the set (and ordinal) whose claim template the claim's name comes from, or undefined. */
function claimOwner(st: ClusterState, c: ClaimObject): { s: SetState; o: number } | undefined {
  for (const s of st.sets.values()) {
    if (s.obj.metadata.namespace !== c.metadata.namespace) continue;
    for (const t of s.obj.spec?.volumeClaimTemplates ?? []) {
      const prefix = `${t.metadata?.name ?? ""}-`;
      if (!c.metadata.name.startsWith(prefix)) continue;
      const o = ordinalOf(c.metadata.name.slice(prefix.length), s.obj.metadata.name);
      if (o !== undefined) return { s, o };
    }
  }
  return undefined;
}

const policy = (v: SetObject) => v.spec?.persistentVolumeClaimRetentionPolicy ?? {};

/** judgeClaim judges a claim event (call before the model stores it): an owner a pod (scaled away) or the start of its deletion. */
export function judgeClaim(st: ClusterState, e: WatchEvent, prev: ClaimObject | undefined, next: ClaimObject | undefined): void {
  if (e.resync || !prev) return;
  const key = keyOf(prev.metadata);
  if (st.injected(key, e.at)) return;
  const owner = claimOwner(st, prev);
  if (!owner) return;
  const { s, o } = owner;
  const versions = st.versionsSince(s, e.at);
  const scaledAway = versions.some((v) => policy(v).whenScaled === "Delete" && !inRange(v, o));
  const podOwned = (c: ClaimObject) => c.metadata.ownerReferences?.some((r) => r.kind === "Pod") ?? false;
  if ((next && podOwned(next) && !podOwned(prev)) || (!prev.metadata.deletionTimestamp && (!next || next.metadata.deletionTimestamp))) st.judged(RULES.claimDeleted);
  if (next && podOwned(next) && !podOwned(prev) && !scaledAway) {
    st.report(RULES.claimDeleted, e.at, key, `a pod was made its owner (the garbage collector will delete it) though ${s.key}'s whenScaled is ${policy(s.obj).whenScaled ?? "Retain"} or ordinal ${o} is in range`);
  }
  const started = !prev.metadata.deletionTimestamp && (!next || Boolean(next.metadata.deletionTimestamp));
  if (!started) return;
  const setGoing = s.gone || Boolean(s.obj.metadata.deletionTimestamp);
  if (setGoing && versions.some((v) => policy(v).whenDeleted === "Delete")) return;
  if (scaledAway || podOwned(prev)) return;
  st.report(RULES.claimDeleted, e.at, key, `deleted; ${s.key} ${setGoing ? "is being deleted" : "is live"}, retention whenDeleted=${policy(s.obj).whenDeleted ?? "Retain"} whenScaled=${policy(s.obj).whenScaled ?? "Retain"}, ordinal ${o} ${inRange(s.obj, o) ? "in range" : "scaled away"}`);
}
