// A small seeded PRNG for reproducible randomized tests (print the seed, replay the run).

/** Random returns numbers in [0, 1). */
export type Random = () => number;

/** mulberry32 is a fast 32-bit seeded generator; the same seed gives the same sequence. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** randomInt returns an integer in [0, n). */
export function randomInt(rng: Random, n: number): number {
  return Math.floor(rng() * n);
}

/** pick returns a random element of a non-empty list. */
export function pick<T>(rng: Random, items: readonly T[]): T {
  return items[randomInt(rng, items.length)]!;
}

/** uuidFrom formats a version-4 UUID from a generator (deterministic uids for seeded servers). */
export function uuidFrom(rng: Random): string {
  const hex = (n: number): string => {
    let s = "";
    for (let i = 0; i < n; i++) s += randomInt(rng, 16).toString(16);
    return s;
  };
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${(8 + randomInt(rng, 4)).toString(16)}${hex(3)}-${hex(12)}`;
}
