// LIST: label and field selectors, limit/continue paging with the apiserver's continue token
// format, consistent pages (a continued list reads the revision of its first page), and the
// list envelope (built-in items carry no kind/apiVersion; custom resource items do).

import { badRequest, expired } from "./errors.ts";
import { str, type Obj } from "./json.ts";
import { apiVersionOf, type ResourceDef } from "./kinds/types.ts";
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, type FieldRequirement } from "./selectors.ts";
import type { Store } from "./store.ts";

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function base64url(s: string): string {
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unbase64url(s: string): string {
  const b = s.replace(/-/g, "+").replace(/_/g, "/");
  return atob(b + "=".repeat((4 - (b.length % 4)) % 4));
}

function encodeContinue(rv: number, start: string): string {
  return base64url(JSON.stringify({ v: "meta.k8s.io/v1", rv, start }));
}

function decodeContinue(token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(unbase64url(token));
  } catch (e) {
    throw badRequest(`invalid continue token: continue key is not valid: ${(e as Error).message}`);
  }
  const t = parsed as Partial<ContinueToken>;
  if (t.v !== "meta.k8s.io/v1") throw badRequest("invalid continue token: continue key is not valid: server does not recognize this encoded key");
  if (typeof t.rv !== "number" || typeof t.start !== "string" || t.rv <= 0) {
    throw badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  return t as ContinueToken;
}

/** keyOf is the etcd key below the resource prefix: `ns/name` for all-namespace lists, else `name`. */
function keyOf(obj: Obj, allNamespaces: boolean): string {
  const m = obj.metadata as Obj;
  return allNamespaces && m.namespace ? `${str(m.namespace)}/${str(m.name)}` : str(m.name);
}

function fieldGetter(def: ResourceDef, field: string): ((o: Obj) => string) | undefined {
  if (field === "metadata.name") return (o) => str((o.metadata as Obj).name);
  if (field === "metadata.namespace" && (def.namespaced || !def.custom)) return (o) => str((o.metadata as Obj).namespace);
  return def.fieldSelectors?.[field];
}

export function checkFields(def: ResourceDef, reqs: FieldRequirement[]): Record<string, (o: Obj) => string> {
  const getters: Record<string, (o: Obj) => string> = {};
  for (const r of reqs) {
    const g = fieldGetter(def, r.field);
    if (!g) {
      if (def.fieldSelectorError === "label") throw badRequest(`field label not supported: ${r.field}`);
      throw badRequest(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    getters[r.field] = g;
  }
  return getters;
}

const EXPIRED_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** listObjects answers a LIST request; namespace undefined lists across namespaces. */
export function listObjects(store: Store, def: ResourceDef, namespace: string | undefined, query: URLSearchParams): Obj {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  const getters = checkFields(def, fields);
  const limitParam = Number(query.get("limit") ?? "0");
  const limit = Number.isFinite(limitParam) && limitParam > 0 ? Math.floor(limitParam) : 0;
  const continueParam = query.get("continue") ?? "";
  const scope = def.namespaced ? namespace : "";
  const allNamespaces = def.namespaced && namespace === undefined;
  let rv = store.resourceVersion();
  let all: Obj[];
  let start = "";
  if (continueParam) {
    const token = decodeContinue(continueParam);
    start = token.start;
    const snap = token.rv === rv ? store.list(def, scope) : store.snapshot(def, scope, token.rv);
    if (!snap) throw expired(EXPIRED_MESSAGE);
    all = snap;
    rv = token.rv;
  } else {
    all = store.list(def, scope);
  }
  const items: Obj[] = [];
  let i = 0;
  if (start) while (i < all.length && keyOf(all[i]!, allNamespaces) < start) i++;
  let lastKey = "";
  for (; i < all.length; i++) {
    if (limit > 0 && items.length >= limit) break;
    const o = all[i]!;
    lastKey = keyOf(o, allNamespaces);
    if (matchesLabels(labels, (o.metadata as Obj).labels) && matchesFields(fields, o, getters)) items.push(o);
  }
  const metadata: Obj = { resourceVersion: String(rv) };
  if (limit > 0 && i < all.length) {
    metadata.continue = encodeContinue(rv, `${lastKey}\u0000`);
    if (labels.length === 0 && fields.length === 0) metadata.remainingItemCount = all.length - i;
    if (!store.snapshot(def, scope, rv)) store.saveSnapshot(def, scope, rv, all);
  } else if (def.custom) {
    metadata.continue = "";
  }
  return {
    kind: def.listKind,
    apiVersion: apiVersionOf(def),
    metadata,
    items: def.custom ? items : items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest),
  };
}
