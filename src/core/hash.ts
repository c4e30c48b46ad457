/**
 * Revision hashing after upstream's history.HashControllerRevision: a 32-bit FNV hash of the
 * revision data plus the collision count, encoded with rand.SafeEncodeString's alphabet so the
 * hash never spells words. Where it differs: the data is canonical JSON (sorted keys), so equal
 * templates hash equally whatever the key order the apiserver returned; the hash is FNV-1a
 * (upstream: FNV-1), and the count is appended only when above 0 (upstream: always). The names
 * are Ordinal's own and must never change: a new name is a new revision, and every pod rolls
 * (test/core/hash.test.ts pins them).
 */

/** canonicalJson returns JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** sortKeys returns a copy of a JSON value with object keys sorted at every level and undefined values dropped. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** fnv32a returns the 32-bit FNV-1a hash of the string's UTF-8 bytes. */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** safeEncodeString maps each character onto an alphabet without vowels (rand.SafeEncodeString). */
function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/** hashRevisionData returns the revision hash of `data` with the given collision count. */
export function hashRevisionData(data: unknown, collisionCount: number): string {
  const json = canonicalJson(data);
  return safeEncodeString(String(fnv32a(collisionCount > 0 ? json + String(collisionCount) : json)));
}
