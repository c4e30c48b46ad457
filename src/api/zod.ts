import * as z from "zod/mini";
import { en } from "zod/locales";

/**
 * The zod Ordinal's schemas are written in: zod/mini, whose functional API leaves out what the
 * Worker does not use (classic zod's method chains and its toJSONSchema code, which classic
 * imports unconditionally). Unlike classic zod, zod/mini registers no locale: English is set here
 * so parse errors (an AdmissionReview the HTTP edge refuses, a set that does not parse) keep
 * classic's messages ("Invalid input: expected string, received number").
 */
z.config(en());

/**
 * annotated returns a copy of `schema` with `meta` in zod's global registry, as classic zod's
 * `.meta(meta)` does: a clone whose parent is `schema`, so toJSONSchema writes the keys into the
 * generated CRD (descriptions, `x-kubernetes-*` markers). Parsing is unchanged (no check added).
 */
export function annotated<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}
