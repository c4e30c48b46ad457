import type { KubeClient, KubeObject, ListOptions } from "./client.ts";
import type { Informer } from "./informer.ts";
import type { ResourceRef } from "./resources.ts";

/**
 * cachingClient returns a KubeClient that answers reads from informers (informer.ts) where one
 * mirrors the resource, is synced, and holds every object the read could return; everything else
 * (writes, other resources, selectors it cannot answer, an object it does not hold) goes to
 * `inner`. What `inner` answers a write is handed to the informer, so a read after a write of
 * ours sees it. Reads it answers cost no request. With `reads: "apiserver"` (the full pass, the
 * safety net that does not trust the mirror) every read goes to `inner`, and what it returns is
 * handed to the informers too (held where it is later than what they hold).
 */
export function cachingClient(inner: KubeClient, informers: readonly Informer[], reads: "mirror" | "apiserver" = "mirror"): KubeClient {
  const of = (r: ResourceRef): Informer | undefined => informers.find((i) => i.synced && i.resource.group === r.group && i.resource.resource === r.resource);
  const seen = <T>(r: ResourceRef, obj: T): T => {
    if (obj && typeof obj === "object") of(r)?.observe(obj as KubeObject);
    return obj;
  };
  const fromMirror = reads === "mirror";
  return {
    get requestCount() {
      return inner.requestCount;
    },
    serverVersion: () => inner.serverVersion(),
    async get<T extends object>(r: ResourceRef, ns: string | undefined, name: string) {
      const held = fromMirror ? of(r)?.get(ns, name) : undefined;
      return held ? (held as T) : seen(r, await inner.get<T>(r, ns, name));
    },
    async list<T extends object>(r: ResourceRef, ns: string | undefined, o?: ListOptions) {
      const informer = of(r);
      const match = informer && matcher(informer.o.labelSelector, o);
      if (!informer || !match || !fromMirror) {
        if (!informer) return inner.list<T>(r, ns, o);
        // Each item goes to the mirror (which keeps its own projection) as it streams in, then to the caller's projection.
        const project = o?.project;
        return inner.list<T>(r, ns, { ...o, project: (item) => (informer.observe(item), project ? project(item) : item) });
      }
      const held = informer.list(ns, (obj) => match(obj) && (!o?.keep || o.keep(obj)));
      return (o?.project ? held.map(o.project) : held) as T[];
    },
    create: async (r, ns, obj, w) => (w?.dryRun ? inner.create(r, ns, obj, w) : seen(r, await inner.create(r, ns, obj, w))),
    createSubresource: (r, ns, name, sub, obj, w) => inner.createSubresource(r, ns, name, sub, obj, w),
    update: async (r, ns, obj, sub, w) => (w?.dryRun ? inner.update(r, ns, obj, sub, w) : seen(r, await inner.update(r, ns, obj, sub, w))),
    patch: async (r, ns, name, p, type, sub, w) => (w?.dryRun ? inner.patch(r, ns, name, p, type, sub, w) : seen(r, await inner.patch(r, ns, name, p, type, sub, w))),
    async delete(r, ns, name, o) {
      const deleted = await inner.delete(r, ns, name, o);
      if (deleted) of(r)?.observeDelete(ns, name);
      return deleted;
    },
  };
}

/** One term of a label selector this client answers: `key`, `!key`, `key=value` (`==`), `key!=value`. */
interface Term {
  key: string;
  op: "exists" | "absent" | "=" | "!=";
  value?: string;
}

/** parseTerms returns the terms of a simple label selector, or undefined when it has any other form (set-based, parentheses). */
function parseTerms(selector: string | undefined): Term[] | undefined {
  const terms: Term[] = [];
  for (const raw of (selector ?? "").split(",")) {
    const t = raw.trim();
    if (!t) continue;
    const m = /^([^\s=!(),]+)\s*(==|=|!=)\s*([^\s=!(),]*)$/.exec(t);
    if (m) terms.push({ key: m[1], op: m[2] === "!=" ? "!=" : "=", value: m[3] });
    else if (/^![^\s=!(),]+$/.test(t)) terms.push({ key: t.slice(1), op: "absent" });
    else if (/^[^\s=!(),]+$/.test(t)) terms.push({ key: t, op: "exists" });
    else return undefined;
  }
  return terms;
}

const satisfies = (t: Term, labels: Record<string, string> | undefined): boolean => {
  const v = labels?.[t.key];
  switch (t.op) {
    case "exists":
      return v !== undefined;
    case "absent":
      return v === undefined;
    case "=":
      return v === t.value;
    case "!=":
      return v !== t.value;
  }
};

/**
 * matcher returns the filter a list's selectors make of the informer's objects, or undefined when
 * the informer may not hold every object they pick (the list then goes to the apiserver): every
 * term of the informer's own selector must be implied by the list's (the same term, or `key=value`
 * for `key`), and the field selector may only name `metadata.name` / `metadata.namespace`.
 */
export function matcher(informerSelector: string | undefined, o: ListOptions | undefined): ((obj: KubeObject) => boolean) | undefined {
  const own = parseTerms(informerSelector);
  const terms = parseTerms(o?.labelSelector);
  if (!own || !terms) return undefined;
  const implied = (t: Term) => terms.some((u) => u.key === t.key && (u.op === t.op ? u.value === t.value : t.op === "exists" && u.op === "="));
  if (!own.every(implied)) return undefined;
  const fields: [string, string][] = [];
  for (const raw of (o?.fieldSelector ?? "").split(",")) {
    if (!raw.trim()) continue;
    const m = /^\s*metadata\.(name|namespace)\s*(==|=)\s*(\S*)\s*$/.exec(raw);
    if (!m) return undefined;
    fields.push([m[1], m[3]]);
  }
  return (obj) => terms.every((t) => satisfies(t, obj.metadata?.labels)) && fields.every(([f, v]) => (f === "name" ? obj.metadata?.name : obj.metadata?.namespace) === v);
}
