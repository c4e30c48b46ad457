/**
 * The cluster as the observer last saw it, in one order of events (resourceVersion across all
 * watches): each set with the versions it had over the last `staleReadMs`, each pod indexed by
 * the set that controls it, and per set and ordinal what the rules remember between events (when
 * the slot's pod was last Ready, who made it unavailable).
 */
import { controllerUid, inRange, ordinalOf, isRunningAndReady, isTerminating, type ClaimObject, type PodObject, type SetObject } from "./objects.ts";
import type { FaultWindow, Violation } from "./types.ts";

export type Kind = "pod" | "claim" | "set" | "lease" | "namespace";

/** One watch event as the rules judge it; `at`: when it was seen (epoch ms); `resync`: seen through a relist, not as it happened. */
export interface WatchEvent {
  kind: Kind;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: { metadata: { name: string; namespace?: string } };
  at: number;
  resync?: boolean;
}

/** Who made a slot unavailable: Ordinal (a deletion, an in-place update), the injector, or something else (the kubelet, a person). */
export type Cause = "ordinal" | "injected" | "scaled" | "other";

export interface Slot {
  /** When its pod was last seen Running and Ready and not terminating (ms; Infinity while it is). */
  lastReadyAt?: number;
  /** Set once a pod existed at the ordinal while observed. */
  hadPod: boolean;
  /** Why it is unavailable, once an available pod there became unavailable; cleared when one is available again or the ordinal leaves the range (a scale-down's, not a rollout's). */
  cause?: Cause;
}

export interface SetState {
  key: string;
  obj: SetObject;
  /** The versions seen over the last staleReadMs (oldest first) with when each was replaced (ms). */
  history: { obj: SetObject; until: number }[];
  gone: boolean;
  /** When spec.template last changed (the rollout's clock cannot have started before). */
  templateChangedAt: number;
  template: string;
  pods: Set<string>;
  slots: Map<number, Slot>;
  /** Per revision, when a pod at it last became Ready. */
  readyAtRevision: Map<string, number>;
  converged: boolean;
  convergedAt?: number;
}

export const keyOf = (m: { name: string; namespace?: string }): string => `${m.namespace ?? ""}/${m.name}`;

const toMs = (t: number | string | undefined): number => (t === undefined ? Infinity : typeof t === "number" ? t : Date.parse(t));

export class ClusterState {
  readonly sets = new Map<string, SetState>();
  readonly setsByUid = new Map<string, string>();
  readonly pods = new Map<string, PodObject>();
  readonly claims = new Map<string, ClaimObject>();
  readonly violations: Violation[] = [];
  /** Per pod (`namespace/name`): when it was last seen without its set's preDelete hold (Infinity while it is). */
  readonly unheldAt = new Map<string, number>();

  constructor(
    readonly staleReadMs: number,
    private readonly windows: () => FaultWindow[],
    private readonly onViolation?: (v: Violation) => void,
  ) {}

  /** How many times each rule was judged (a run with 0 violations shows what it held against). */
  readonly checks = new Map<string, number>();

  /** judged counts one judgment of `rule`. */
  judged(rule: string): void {
    this.checks.set(rule, (this.checks.get(rule) ?? 0) + 1);
  }

  /** report records a violation of `rule` at `at` (ms). */
  report(rule: string, at: number, object: string, detail: string): void {
    const v = { rule, at: new Date(at).toISOString(), object, detail };
    this.violations.push(v);
    this.onViolation?.(v);
  }

  /** injected is true when the injector's record names the pod (`namespace/name`) around `at` (2 s of slack each side: its record and the watch are not one clock tick). */
  injected(pod: string, at: number): boolean {
    return this.windows().some((w) => w.pods?.includes(pod) && toMs(w.start) - 2000 <= at && at <= toMs(w.end) + 2000);
  }

  /** setOf returns the live set controlling the pod, or undefined (an orphan, another controller's, or its set gone or being deleted). */
  setOf(p: PodObject): SetState | undefined {
    const uid = controllerUid(p.metadata);
    const key = uid === undefined ? undefined : this.setsByUid.get(uid);
    const s = key === undefined ? undefined : this.sets.get(key);
    return s && !s.gone && !s.obj.metadata.deletionTimestamp ? s : undefined;
  }

  /** podsOf returns the pods the set controls now. */
  podsOf(s: SetState): PodObject[] {
    return [...s.pods].map((k) => this.pods.get(k)).filter((p): p is PodObject => p !== undefined);
  }

  /** versionsSince returns the set's versions current at some moment of [at - staleReadMs, at]: what a reconciler acting at `at` may have read. */
  versionsSince(s: SetState, at: number): SetObject[] {
    return [...s.history.filter((h) => h.until >= at - this.staleReadMs).map((h) => h.obj), s.obj];
  }

  /** inAnyRange is true when the ordinal is in range for some version of the set a reconciler may have read at `at`. */
  inAnyRange(s: SetState, o: number, at: number): boolean {
    return this.versionsSince(s, at).some((v) => inRange(v, o));
  }

  /** outOfSomeRange is true when the ordinal is outside the range of some version of the set a reconciler may have read at `at` (a deletion there may be a scale-down's). */
  outOfSomeRange(s: SetState, o: number, at: number): boolean {
    return this.versionsSince(s, at).some((v) => !inRange(v, o));
  }

  slot(s: SetState, o: number): Slot {
    let slot = s.slots.get(o);
    if (!slot) s.slots.set(o, (slot = { hadPod: false }));
    return slot;
  }

  /** applySet stores a set's new version (or its deletion). */
  applySet(e: WatchEvent, obj: SetObject): SetState {
    const key = keyOf(obj.metadata);
    let s = this.sets.get(key);
    const template = JSON.stringify(obj.spec?.template ?? null);
    if (!s || (obj.metadata.uid && s.obj.metadata.uid !== obj.metadata.uid)) {
      // A set first seen in the initial list: its rollout may have started long ago.
      s = { key, obj, history: [], gone: false, templateChangedAt: e.resync ? 0 : e.at, template, pods: new Set(), slots: new Map(), readyAtRevision: new Map(), converged: false };
      this.sets.set(key, s);
    } else {
      s.history.push({ obj: s.obj, until: e.at });
      s.history = s.history.filter((h) => h.until >= e.at - this.staleReadMs);
      if (template !== s.template) {
        // Changed in a watch gap: when is unknown, so the rollout's clock is taken to have started long ago.
        s.template = template;
        s.templateChangedAt = e.resync ? 0 : e.at;
      }
      s.obj = obj;
      // Scaled away: a pod made there again is a scale-up's, and its absence no rollout's doing.
      for (const [o, slot] of s.slots) if (slot.cause && !inRange(obj, o)) slot.cause = undefined;
    }
    s.gone = e.type === "DELETED";
    if (obj.metadata.uid) this.setsByUid.set(obj.metadata.uid, key);
    return s;
  }

  /** applyPod stores a pod's new state and keeps the set index and the slot's last-Ready time. */
  applyPod(e: WatchEvent, prev: PodObject | undefined, next: PodObject | undefined): void {
    const key = keyOf(e.object.metadata);
    if (prev) {
      const s = this.setOf(prev) ?? this.anySetOf(prev);
      s?.pods.delete(key);
    }
    if (next) this.pods.set(key, next);
    else this.pods.delete(key);
    const p = next ?? prev;
    const s = p && this.anySetOf(p);
    if (!s || !p) return;
    if (next) s.pods.add(key);
    const o = ordinalFrom(s, p);
    if (o === undefined) return;
    const slot = this.slot(s, o);
    slot.hadPod = true;
    const ready = (q: PodObject | undefined) => q !== undefined && isRunningAndReady(q) && !isTerminating(q);
    if (ready(next)) slot.lastReadyAt = Infinity;
    else if (ready(prev) || slot.lastReadyAt === Infinity) slot.lastReadyAt = e.at;
  }

  /** anySetOf returns the set controlling the pod, even one being deleted. */
  private anySetOf(p: PodObject): SetState | undefined {
    const uid = controllerUid(p.metadata);
    const key = uid === undefined ? undefined : this.setsByUid.get(uid);
    return key === undefined ? undefined : this.sets.get(key);
  }
}

/** ordinalFrom returns the pod's ordinal within its set (from its name), or undefined. */
export const ordinalFrom = (s: SetState, p: PodObject): number | undefined => ordinalOf(p.metadata.name, s.obj.metadata.name);
