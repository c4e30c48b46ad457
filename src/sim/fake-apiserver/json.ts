// Small helpers for plain JSON values (objects decoded from request bodies and stored objects).

/** A JSON object as the apiserver stores it. */
export type Obj = Record<string, unknown>;

/** isObject reports whether v is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** clone returns a deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** deepEqual compares two JSON values structurally; key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/** getIn reads obj[path[0]][path[1]]...; undefined when any step is missing. */
export function getIn(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** setIn writes a value at path, creating intermediate objects. */
export function setIn(obj: Obj, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const next = cur[path[i]!];
    if (!isObject(next)) cur[path[i]!] = {};
    cur = cur[path[i]!] as Obj;
  }
  cur[path[path.length - 1]!] = value;
}

/** objectAt returns obj[key] when it is an object, creating an empty one when absent. */
export function objectAt(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObject(v)) return v;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

/** arrayAt returns obj[key] when it is an array of objects, or an empty list. */
export function objectsIn(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** str returns v when it is a string, else ''. */
export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
