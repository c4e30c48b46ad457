import type { KubeClient } from "../kube/client.ts";

/**
 * The fence between the reconciler and the cluster: every write goes through `fencedClient`, which
 * refuses it once the fence says this process no longer holds the Lease (LeaderElector.isLeader,
 * or an invocation's renew deadline), before the call and before each of the client's retries of
 * it (429, 5xx, network). Reads pass. So a pass that outlives its lease (a slow
 * apiserver, a long pause) stops at its next write instead of acting beside a new holder.
 */

/** LeaseLostError is what a fenced write throws: the lease may be someone else's now. */
class LeaseLostError extends Error {
  constructor() {
    super("the reconciler's lease was not renewed in time: stopped acting (another reconciler may hold it now)");
    this.name = "LeaseLostError";
  }
}

/** fencedClient returns `client` with every write checked against `holds` first. */
export function fencedClient(client: KubeClient, holds: () => boolean): KubeClient {
  const check = () => {
    if (!holds()) throw new LeaseLostError();
  };
  return {
    serverVersion: () => client.serverVersion(),
    get: (r, ns, name) => client.get(r, ns, name),
    list: (r, ns, opts) => client.list(r, ns, opts),
    // Checked before the call and, through `guard`, before every retry of it inside the client.
    create: async (r, ns, obj, opts) => (check(), client.create(r, ns, obj, { ...opts, guard: check })),
    createSubresource: async (r, ns, name, sub, obj, opts) => (check(), client.createSubresource(r, ns, name, sub, obj, { ...opts, guard: check })),
    update: async (r, ns, obj, sub, opts) => (check(), client.update(r, ns, obj, sub, { ...opts, guard: check })),
    patch: async (r, ns, name, patch, type, sub, opts) => (check(), client.patch(r, ns, name, patch, type, sub, { ...opts, guard: check })),
    delete: async (r, ns, name, opts) => (check(), client.delete(r, ns, name, { ...opts, guard: check })),
    get requestCount() {
      return client.requestCount;
    },
  };
}
