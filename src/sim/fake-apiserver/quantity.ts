// resource.Quantity for the fake: parsed on decode and written back in canonical form (`1024Mi`
// reads back as `1Gi`, `1000M` as `1G`, `0.5Gi` as `512Mi`). The grammar, errors and canonical form
// are the product's (src/validation/quantity.ts, upstream's scanner); this adapter only throws.

import { compareQuantities as compare, parseQuantity as parse, quantityToString, type Quantity } from "../../validation/quantity.ts";

/** QuantityError says a value is not a quantity (upstream's message); the request becomes a 400. */
export class QuantityError extends Error {}

/** parseQuantity parses `1Gi`, `500m`, `1e3`; throws QuantityError with upstream's message. */
export function parseQuantity(input: unknown): Quantity {
  if (typeof input !== "string" && typeof input !== "number") throw new QuantityError(`quantities must be a string or a number, not ${JSON.stringify(input)}`);
  const r = parse(input);
  if (!r.ok) throw new QuantityError(r.error);
  return r.quantity;
}

/** canonicalQuantity returns the quantity as the apiserver writes it back; throws QuantityError. */
export function canonicalQuantity(v: unknown): string {
  return quantityToString(parseQuantity(v));
}

/** compareQuantities returns -1, 0 or 1 for a < b, a = b, a > b; throws QuantityError. */
export function compareQuantities(a: string, b: string): number {
  return compare(parseQuantity(a), parseQuantity(b));
}
