import { fnv32a } from "../core/hash.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * What a pass visits, in which order: the sets cut into runs of one namespace (a shard's read one
 * namespace at a time), in cursor order (`namespace/name`, resuming after a cursor, wrapping
 * around), and what a pass asks of a set it has not parsed yet (claim templates, pre-warm).
 */

/**
 * Page size of the pass's lists: large pages keep a converged pass over 1,000 sets × 10 pods at
 * 5 list requests (a page of 5,000 pods is a few MiB of JSON, within a Worker's 128 MB).
 */
export const LIST_PAGE_SIZE = 5000;

/** shardOf returns the shard of a namespace among `count` (FNV-1a of the name). */
export const shardOf = (namespace: string, count: number): number => fnv32a(namespace) % count;

export const setId = (o: KubeObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** The sets of one namespace a pass visits in a row (in cursor order). */
export interface NamespaceGroup {
  namespace: string;
  sets: KubeObject[];
}

/** optsInToPrewarm is true when the (unparsed) set has `imagePrewarm` in its rolling update strategy, or something there that is not an object. */
export function optsInToPrewarm(set: KubeObject): boolean {
  const strategy = (set.spec as { updateStrategy?: { rollingUpdate?: { imagePrewarm?: unknown } } } | undefined)?.updateStrategy;
  if (typeof strategy !== "object" || strategy === null) return strategy !== undefined && strategy !== null;
  const rolling: unknown = strategy.rollingUpdate;
  if (typeof rolling !== "object" || rolling === null) return rolling !== undefined && rolling !== null;
  return (rolling as { imagePrewarm?: unknown }).imagePrewarm !== undefined;
}

/** hasClaimTemplates is true when the (unparsed) set has volumeClaimTemplates, or something there that is not a list. */
export function hasClaimTemplates(set: KubeObject): boolean {
  const templates = (set.spec as { volumeClaimTemplates?: unknown } | undefined)?.volumeClaimTemplates;
  return templates !== undefined && templates !== null && !(Array.isArray(templates) && templates.length === 0);
}

/** fromList yields the groups of a list. */
export async function* fromList(groups: NamespaceGroup[]): AsyncGenerator<NamespaceGroup> {
  yield* groups;
}

/** keyOrder compares namespaces as the apiserver orders its keys and the cursor orders sets (`namespace/`). */
const keyOrder = (a: string, b: string): number => (`${a}/` < `${b}/` ? -1 : `${a}/` > `${b}/` ? 1 : 0);

/**
 * shardGroups yields a shard's sets one namespace at a time: it lists the cluster's namespaces
 * (small objects; other shards' dropped page by page), then each of its own namespaces' sets, in
 * cursor order (from the namespace of `startAfter`, whose sets after it come first; wrapping
 * around). A shard never reads another shard's sets: the cluster's sets are read once over all shards.
 */
export async function* shardGroups(client: KubeClient, shard: { index: number; count: number }, startAfter: string | undefined): AsyncGenerator<NamespaceGroup> {
  const names = (await client.list<KubeObject>(R.namespaces, undefined, { limit: LIST_PAGE_SIZE, keep: (n) => shardOf(n.metadata?.name ?? "", shard.count) === shard.index }))
    .map((n) => n.metadata?.name ?? "")
    .sort(keyOrder);
  const from = startAfter ? startAfter.slice(0, startAfter.indexOf("/")) : undefined;
  const first = from === undefined ? 0 : Math.max(0, names.findIndex((n) => keyOrder(n, from) >= 0));
  for (const namespace of [...names.slice(first), ...names.slice(0, first)]) {
    const sets = await client.list<KubeObject>(R.statefulSets, namespace, { limit: LIST_PAGE_SIZE });
    if (sets.length) yield { namespace, sets: inCursorOrder(sets, namespace === from ? startAfter : undefined) };
  }
}

/** namespaceGroups returns the sets cut into runs of one namespace, in their order. */
export function namespaceGroups(sets: readonly KubeObject[]): NamespaceGroup[] {
  const groups: NamespaceGroup[] = [];
  for (const s of sets) {
    const namespace = s.metadata?.namespace ?? "";
    const last = groups[groups.length - 1];
    if (last?.namespace === namespace) last.sets.push(s);
    else groups.push({ namespace, sets: [s] });
  }
  return groups;
}

/** inCursorOrder returns the sets sorted by `namespace/name`, starting after `startAfter` and wrapping around. */
export function inCursorOrder(sets: KubeObject[], startAfter: string | undefined): KubeObject[] {
  // Ids are unique (namespace/name): no two compare equal.
  const sorted = [...sets].sort((a, b) => (setId(a) < setId(b) ? -1 : 1));
  if (!startAfter) return sorted;
  const i = sorted.findIndex((s) => setId(s) > startAfter);
  return i === -1 ? sorted : [...sorted.slice(i), ...sorted.slice(0, i)];
}
