/**
 * A reconciler's holder identity: the holderIdentity it writes on the Leases it holds, and its
 * User-Agent (`ordinal/<identity>`, so the apiserver's audit log says which holder wrote what).
 * `<name>-<8 hex digits>`: the name says what runs (a pod, a Worker's shard), the random part tells
 * apart two that share a name (two deployments of one Worker, a restarted pod). One implementation
 * for every runtime; where they differ (is the identity kept across restarts?) is `kept`.
 */

/** Where a holder keeps its identity across restarts: a store only one instance of the holder reaches at a time. */
export interface KeptIdentity {
  load(): Promise<unknown>;
  save(identity: string): Promise<void>;
}

/** newHolderIdentity returns `<name>-<8 random hex digits>`, a new one at each call. */
export const newHolderIdentity = (name: string): string => `${name}-${crypto.randomUUID().slice(0, 8)}`;

/** isIdentityOf is true when `identity` is one newHolderIdentity(name) returns. */
export const isIdentityOf = (identity: unknown, name: string): identity is string =>
  typeof identity === "string" && identity.length === name.length + 9 && identity.startsWith(`${name}-`) && /^[0-9a-f]{8}$/.test(identity.slice(-8));

/**
 * holderIdentity returns the identity of the holder named `name`. `kept` is the runtime's choice:
 * - none (`ordinal serve`, `ordinal reconcile`): a new identity at each start, so a restarted
 *   process never takes its predecessor's Leases for its own (the predecessor may only be stopped,
 *   not dead, and write again when resumed);
 * - a store (the Worker: its Durable Object's storage, which one instance of the object reaches at
 *   a time): the identity kept there, made and saved the first time (or when what is kept is not
 *   one of `name`'s). A new instance of the object (after an eviction, a deploy, a crash) is the same
 *   holder and renews its Lease at once instead of waiting a lease duration; two objects (two
 *   shards, two deployments of one Worker on one cluster) never share one.
 * Throws what the store throws.
 */
export async function holderIdentity(name: string, kept?: KeptIdentity): Promise<string> {
  if (!kept) return newHolderIdentity(name);
  const stored = await kept.load();
  if (isIdentityOf(stored, name)) return stored;
  const made = newHolderIdentity(name);
  await kept.save(made);
  return made;
}
