import type { KubeObject } from "../kube/client.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";

/**
 * Isolation between namespaces (issue 35): what one pass holds of one namespace is bounded by an
 * object budget (the runtime's: Node derives it from RECONCILE_HEAP_MB, objectBudgetFor). A
 * namespace whose managed pods, claims and revisions are more than that is reconciled in slices
 * of its sets (`ordinal.dev/statefulset in (…)`, each slice within the budget, halved while it is
 * not); a set that alone is more than the budget is set aside (condition ReconcileError=True,
 * reason OverBudget, and a Warning event: set-error.ts) and the pass goes on with the others. A
 * namespace quarantined by its runtime (namespace-guard.ts: it was being read when the
 * reconciler died) is skipped the same way, with reason NamespaceQuarantined.
 */

/** OverBudget is what a list throws (from its `keep`) once it kept more objects than the slice's budget. */
export class OverBudget extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} objects to read`);
    this.name = "OverBudget";
  }
}

/**
 * NamespaceSetAside is what a runtime's client throws for a read of a namespace it set aside
 * (quarantined, until `until`); the pass reports it on the namespace's sets and goes on.
 */
export class NamespaceSetAside extends Error {
  constructor(
    readonly namespace: string,
    readonly until: Date,
    readonly why: string,
  ) {
    super(`namespace ${namespace} is set aside until ${until.toISOString()}: ${why}`);
    this.name = "NamespaceSetAside";
  }
}

/** ReadBudget counts what the lists of one slice keep; its `keep` (a ListOptions.keep) throws OverBudget past `max`. */
export class ReadBudget {
  private count = 0;
  constructor(readonly max: number) {}
  readonly keep = (): boolean => {
    if (++this.count > this.max) throw new OverBudget(this.max);
    return true;
  };
}

/** HELD_BYTES_PER_OBJECT is the heap one pod, claim or revision a pass holds is taken to cost (a pod as the apiserver returns it, parsed). */
const HELD_BYTES_PER_OBJECT = 4096;
/** NAMESPACE_HEAP_SHARE is the part of the reconciler's heap one namespace's reads may take (the watch cache and the rest share the remainder). */
const NAMESPACE_HEAP_SHARE = 0.4;

/** objectBudgetFor returns the objects a pass may hold of one namespace in a heap of `heapMb` MiB (about 100 per MiB: 12,800 for 128). */
export const objectBudgetFor = (heapMb: number): number => Math.max(100, Math.floor((heapMb * 1024 * 1024 * NAMESPACE_HEAP_SHARE) / HELD_BYTES_PER_OBJECT));

/** A slice's selector names its sets in one `in (…)`: this many at most (the URL stays a few kB). */
const MAX_SLICE_SETS = 100;

/** sliceSelector returns the label selector of the objects of these sets. */
export const sliceSelector = (names: readonly string[]): string => `${SET_NAME_LABEL} in (${names.join(",")})`;

/** expectedObjects returns what a (raw) set's objects are expected to be: its replicas (a hint: a lie costs a halving) and a revision. */
function expectedObjects(set: KubeObject): number {
  const replicas: unknown = (set as { spec?: { replicas?: unknown } }).spec?.replicas;
  return (typeof replicas === "number" && Number.isFinite(replicas) && replicas > 0 ? Math.min(replicas, 1e9) : 1) + 1;
}

/** slicesOf cuts the sets (in order) into runs of at most MAX_SLICE_SETS whose expected objects fit half of `max` (a set alone may not). */
export function slicesOf(sets: readonly KubeObject[], max: number): KubeObject[][] {
  const slices: KubeObject[][] = [];
  let current: KubeObject[] = [];
  let expected = 0;
  for (const s of sets) {
    const e = expectedObjects(s);
    if (current.length && (current.length >= MAX_SLICE_SETS || expected + e > max / 2)) {
      slices.push(current);
      current = [];
      expected = 0;
    }
    current.push(s);
    expected += e;
  }
  if (current.length) slices.push(current);
  return slices;
}

/** overBudgetMessage says why a set is set aside and what to do. */
export const overBudgetMessage = (e: OverBudget): string =>
  `its pods, claims and revisions are more than the ${e.max} objects a pass may hold of one namespace: Ordinal leaves the set as it is until they are fewer (delete pods beyond spec.replicas, or give the reconciler more heap: RECONCILE_HEAP_MB)`;

/** What inSlices does with the sets of a namespace. */
export interface Slicing<T> {
  /** Reconciles these sets from the reads of `selector`, kept by `budget`; `first`: the namespace's first read (the pass's own selector). */
  slice: (sets: KubeObject[], selector: string, budget: ReadBudget | undefined, first: boolean) => Promise<Map<string, T>>;
  /** Reports a set whose objects alone are over the budget. */
  setAside: (set: KubeObject, e: OverBudget) => Promise<void>;
  /** True when the pass stopped (its budget of time): no slice after. */
  stopped: () => boolean;
  /** The pass's selector names only these sets' objects (a targeted pass): one set over budget there is set aside at once. */
  ownSelector: boolean;
}

/**
 * inSlices reconciles a namespace's sets within `max` objects held at once (no bound when
 * undefined): first all of them from the pass's `selector`; when that is over budget, in slices
 * (slicesOf), each halved while it is over budget, a set over budget alone set aside. Returns
 * what `slice` parsed. A read over budget fails before any of its sets is planned.
 */
export async function inSlices<T>(sets: KubeObject[], selector: string, max: number | undefined, s: Slicing<T>): Promise<Map<string, T>> {
  if (max === undefined) return s.slice(sets, selector, undefined, true);
  const parsed = new Map<string, T>();
  /** attempt reconciles `part` from `sel`; returns the OverBudget that stopped it, if one did. */
  const attempt = async (part: KubeObject[], sel: string, first: boolean): Promise<OverBudget | undefined> => {
    try {
      for (const [k, v] of await s.slice(part, sel, new ReadBudget(max), first)) parsed.set(k, v);
      return undefined;
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      return e;
    }
  };
  const run = async (part: KubeObject[]): Promise<void> => {
    if (s.stopped()) return;
    const over = await attempt(part, sliceSelector(part.map(nameOf)), false);
    if (!over) return;
    if (part.length === 1) return s.setAside(part[0], over);
    const half = Math.ceil(part.length / 2);
    await run(part.slice(0, half));
    await run(part.slice(half));
  };
  const over = await attempt(sets, selector, true);
  if (!over) return parsed;
  if (s.ownSelector && sets.length === 1) await s.setAside(sets[0], over);
  else for (const slice of slicesOf(sets, max)) await run(slice);
  return parsed;
}

const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";
