// The three patch types of a PATCH request: JSON merge patch (RFC 7386), JSON patch (RFC 6902,
// applied with fast-json-patch, with evanphx/json-patch v4's leniency that `replace` of a missing
// object key adds it) and strategic merge patch for built-in kinds (lists merged by key).

import jsonpatch, { type Operation } from "fast-json-patch";
import { badRequest, patchRejected, plainServerError, unsupportedMediaType } from "./errors.ts";
import { clone, isObject, type Obj } from "./json.ts";

const MERGE_PATCH = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

/** mergePatch applies an RFC 7386 merge patch, returning a new value. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function parseJson(body: string): unknown {
  return JSON.parse(body) as unknown;
}

function parentOf(pointer: string): [string, string] {
  const i = pointer.lastIndexOf("/");
  return [pointer.slice(0, i), pointer.slice(i + 1).replace(/~1/g, "/").replace(/~0/g, "~")];
}

/** applyJsonPatch applies RFC 6902 operations; a failing operation is a 422, as in 1.20. */
export function applyJsonPatch(doc: Obj, body: string): unknown {
  let ops: unknown;
  try {
    ops = parseJson(body);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  if (!Array.isArray(ops)) throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  let cur: unknown = clone(doc);
  for (const raw of ops) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") throw patchRejected();
    let op = raw as unknown as Operation;
    if (raw.op === "replace" && raw.path !== "") {
      const [parent, key] = parentOf(raw.path);
      let container: unknown;
      try {
        container = jsonpatch.getValueByPointer(cur, parent);
      } catch {
        container = undefined;
      }
      if (isObject(container) && !(key in container)) op = { op: "add", path: raw.path, value: raw.value };
    }
    try {
      cur = jsonpatch.applyOperation(cur, op, true, true).newDocument;
    } catch {
      throw patchRejected();
    }
  }
  return cur;
}

/** applyMergePatch parses and applies a merge patch; a body that is not JSON is a bare 500. */
function applyMergePatch(doc: Obj, body: string): unknown {
  let patch: unknown;
  try {
    patch = parseJson(body);
  } catch {
    throw plainServerError("Invalid JSON Patch");
  }
  if (!isObject(patch)) throw plainServerError("Invalid JSON Patch");
  return mergePatch(doc, patch);
}

// ---- strategic merge patch ------------------------------------------------------------------------

/** mergeKeyFor returns how a list field of a built-in kind merges: by a key, as a set, or replaced. */
function mergeKeyFor(field: string, parent: Obj): string | "set" | undefined {
  switch (field) {
    case "containers":
    case "initContainers":
    case "ephemeralContainers":
    case "env":
    case "volumes":
    case "imagePullSecrets":
    case "secrets":
    case "webhooks":
      return "name";
    case "volumeMounts":
      return "mountPath";
    case "volumeDevices":
      return "devicePath";
    case "ports":
      return "image" in parent || "name" in parent ? "containerPort" : "port";
    case "conditions":
    case "addresses":
      return "type";
    case "ownerReferences":
      return "uid";
    case "hostAliases":
      return "ip";
    case "topologySpreadConstraints":
      return "topologyKey";
    case "finalizers":
      return "set";
    default:
      return undefined;
  }
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(isObject(x) && x.$patch !== undefined && Object.keys(x).length === 1)).map(stripDirectives);
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith("$")) out[k] = stripDirectives(x);
  return out;
}

const keyOf = (item: unknown, key: string | undefined): unknown => (key === undefined ? item : isObject(item) ? item[key] : undefined);

/**
 * mergeSortedSlice is strategicpatch's ordering of a merged list: server-only items (left, in
 * server order) are inserted into the patch's items (right, in patch order); a server item goes
 * first only when both are known to the server and it came first there.
 */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], key: string | undefined): unknown[] {
  const index = (x: unknown): number => serverOrder.findIndex((s) => keyOf(s, key) === keyOf(x, key));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = index(left[i]);
      const ri = index(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** mergeList merges a list by key (undefined key: a list of scalars merged as a set). */
function mergeList(orig: unknown, patch: unknown[], key: string | undefined, order: unknown[] | undefined): unknown[] {
  if (patch.some((p) => isObject(p) && p.$patch === "replace")) return stripDirectives(patch) as unknown[];
  const original: unknown[] = Array.isArray(orig) ? orig.slice() : [];
  const deletions = new Set(patch.filter((p) => isObject(p) && p.$patch === "delete").map((p) => keyOf(p, key)));
  const server = original.filter((o) => !deletions.has(keyOf(o, key)));
  const items = patch.filter((p) => !(isObject(p) && p.$patch === "delete"));
  const merged = server.slice();
  for (const p of items) {
    const idx = merged.findIndex((o) => keyOf(o, key) === keyOf(p, key));
    if (idx >= 0) merged[idx] = key === undefined ? p : strategicMerge(merged[idx], p);
    else merged.push(stripDirectives(p));
  }
  const patchKeys = (order ?? items).map((p) => keyOf(p, key));
  const inPatch = merged.filter((m) => patchKeys.includes(keyOf(m, key))).sort((a, b) => patchKeys.indexOf(keyOf(a, key)) - patchKeys.indexOf(keyOf(b, key)));
  const serverOnly = merged.filter((m) => !patchKeys.includes(keyOf(m, key)));
  return mergeSortedSlice(serverOnly, inPatch, server, key);
}

/** strategicMerge applies a strategic merge patch object to a built-in object. */
export function strategicMerge(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === "replace") return stripDirectives(patch);
  if (patch.$patch === "delete") return undefined;
  const out: Obj = isObject(original) ? { ...original } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$deleteFromPrimitiveList/")) {
      const field = k.slice("$deleteFromPrimitiveList/".length);
      const drop = new Set(Array.isArray(v) ? v : []);
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((x) => !drop.has(x));
      continue;
    }
    if (k.startsWith("$")) continue;
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v)) {
      const mk = mergeKeyFor(k, out);
      const order = patch[`$setElementOrder/${k}`];
      if (mk) {
        out[k] = mergeList(out[k], v, mk === "set" ? undefined : mk, Array.isArray(order) ? order : undefined);
      } else {
        out[k] = stripDirectives(v);
      }
    } else if (isObject(v)) {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = v;
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

/** applyPatch dispatches on the Content-Type of a PATCH request. */
export function applyPatch(doc: Obj, body: string, contentType: string, strategicAllowed: boolean): unknown {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === JSON_PATCH) return applyJsonPatch(doc, body);
  if (type === MERGE_PATCH) return applyMergePatch(doc, body);
  if (type === STRATEGIC_MERGE_PATCH && strategicAllowed) {
    let patch: unknown;
    try {
      patch = parseJson(body);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    if (!isObject(patch)) throw badRequest("json: cannot unmarshal array into Go value of type map[string]interface {}");
    return strategicMerge(doc, patch);
  }
  throw unsupportedMediaType();
}
