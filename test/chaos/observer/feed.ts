/**
 * Synthetic event sequences for the observer's tests: objects built as the apiserver would hold
 * them, fed to a Checker on a fake clock, one write at a time.
 */
import { Checker } from "./checker.ts";
import type { ClaimObject, LeaseObject, PodObject, SetObject } from "./objects.ts";
import type { Kind, WatchEvent } from "./state.ts";

/** Any object the observer watches. */
type Watched = SetObject | PodObject | ClaimObject | LeaseObject;
import type { FaultWindow } from "./types.ts";

export const NS = "team-a";
export const T0 = Date.parse("2026-12-05T00:00:00Z");

type SetSpec = NonNullable<SetObject["spec"]>;

/** newSet returns set `name` (uid `uid-<name>`) with the spec given over replicas 3, OrderedReady. */
export function newSet(name: string, spec: Partial<SetSpec> = {}, more: Partial<SetObject> = {}): SetObject {
  return { metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1, ...more.metadata }, spec: { replicas: 3, template: { spec: { containers: [{ name: "app", image: "app:1" }] } }, ...spec }, status: more.status };
}

export interface PodState {
  phase?: string;
  ready?: boolean;
  rev?: string;
  deleting?: boolean;
  gate?: boolean;
  labels?: Record<string, string>;
  finalizers?: string[];
  uid?: string;
  owner?: string | null;
  readySince?: number;
}

/** newPod returns `<set>-<o>` controlled by the set, Running and Ready at revision r1 unless told otherwise. */
export function newPod(set: SetObject, o: number, s: PodState = {}): PodObject {
  const name = `${set.metadata.name}-${o}`;
  const owner = s.owner === null ? undefined : (s.owner ?? set.metadata.uid);
  const ready = s.ready ?? true;
  const conditions = [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: new Date(s.readySince ?? T0 - 3_600_000).toISOString() }];
  if (s.gate !== undefined) conditions.push({ type: "InPlaceUpdateReady", status: s.gate ? "True" : "False", lastTransitionTime: new Date(T0).toISOString() });
  return {
    metadata: {
      name,
      namespace: NS,
      uid: s.uid ?? `uid-${name}`,
      labels: { "controller-revision-hash": s.rev ?? "r1", ...s.labels },
      finalizers: s.finalizers,
      deletionTimestamp: s.deleting ? new Date(T0).toISOString() : undefined,
      ownerReferences: owner ? [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: set.metadata.name, uid: owner, controller: true }] : undefined,
    },
    status: { phase: s.phase ?? "Running", conditions },
  };
}

export function newClaim(name: string, more: Partial<ClaimObject["metadata"]> = {}): ClaimObject {
  return { metadata: { name, namespace: NS, uid: `uid-${name}`, ...more } };
}

export function newLease(name: string, holder: string, renew: number, namespace = "ordinal-system"): LeaseObject {
  return { metadata: { name, namespace }, spec: { holderIdentity: holder, renewTime: new Date(renew).toISOString().replace("Z", "000Z"), leaseDurationSeconds: 30 } };
}

/** Feed drives a Checker: each call is one write, `tick` moves the clock. */
export class Feed {
  now = T0;
  readonly windows: FaultWindow[] = [];
  readonly checker: Checker;

  constructor(o: { staleReadMs?: number; shards?: number } = {}) {
    this.checker = new Checker({ injected: () => this.windows, leaseNamespace: "ordinal-system", namespaces: [NS], staleReadMs: o.staleReadMs ?? 5000, shards: o.shards });
  }

  tick(ms: number): this {
    this.now += ms;
    return this;
  }

  private send(kind: Kind, type: WatchEvent["type"], object: Watched, resync = false): this {
    this.checker.apply({ kind, type, object: structuredClone(object), at: this.now, resync });
    this.now += 10;
    return this;
  }

  add(kind: Kind, o: Watched): this {
    return this.send(kind, "ADDED", o);
  }

  mod(kind: Kind, o: Watched): this {
    return this.send(kind, "MODIFIED", o);
  }

  del(kind: Kind, o: Watched): this {
    return this.send(kind, "DELETED", o);
  }

  /** resync hands an event as a relist would (stored, not judged as a transition). */
  resync(kind: Kind, type: WatchEvent["type"], o: Watched): this {
    return this.send(kind, type, o, true);
  }

  /** rules returns the rules of the violations found so far. */
  rules(): string[] {
    return this.checker.report().violations.map((v) => v.rule);
  }
}

/** ready returns a set with its pods 0..n-1 created and Ready (one event each). */
export function started(f: Feed, set: SetObject, n = set.spec?.replicas ?? 1, s: PodState = {}): Feed {
  f.add("set", set);
  for (let o = 0; o < n; o++) f.add("pod", newPod(set, o, s));
  return f;
}
