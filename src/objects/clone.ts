/**
 * cloneJSON returns a deep copy of JSON data: new objects and arrays, the same strings. Strings
 * are immutable, so sharing them is safe, and the copy of a template full of long strings costs
 * its objects only (structuredClone copies every character, and the copies must be hashed again
 * wherever they are looked up). Iterative, so any nesting depth is fine. A value that is not JSON
 * data (a Date, a Map, a class instance) is copied with structuredClone; a subtree shared by two
 * parents is copied twice (JSON has no sharing).
 */
export function cloneJSON<T>(value: T): T {
  const pending: [unknown, unknown][] = [];
  const copyOf = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      const a: unknown[] = new Array(v.length);
      pending.push([v, a]);
      return a;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return structuredClone(v);
    const o: Record<string, unknown> = {};
    pending.push([v, o]);
    return o;
  };
  const root = copyOf(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to] = next;
    if (Array.isArray(from)) {
      const a = to as unknown[];
      for (let i = 0; i < from.length; i++) a[i] = copyOf(from[i]);
      continue;
    }
    const o = to as Record<string, unknown>;
    for (const k of Object.keys(from as object)) {
      const v = copyOf((from as Record<string, unknown>)[k]);
      // JSON.parse makes "__proto__" an own key; assigning it would set the prototype instead.
      if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      else o[k] = v;
    }
  }
  return root as T;
}
