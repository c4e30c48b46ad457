import * as z from "zod/mini";
import { annotated } from "./zod.ts";

/**
 * Helpers that attach Kubernetes structural-schema markers to zod schemas. The CRD generator
 * (crd.ts) turns these markers into `x-kubernetes-*` keys; the TS types are unaffected.
 */

/** An integer (classic zod's `z.number().int()`). */
export const integer = () => z.number().check(z.int());

/** int32: the apiserver's range for replicas, partition, seconds… */
export const int32 = () => z.number().check(z.int(), z.minimum(-2147483648), z.maximum(2147483647));

/** An int-or-string (maxUnavailable: `2` or `"50%"`). */
export const intOrString = () => annotated(z.union([integer(), z.string()]), { "x-kubernetes-int-or-string": true });

/**
 * An embedded Kubernetes object part (pod spec, PVC spec) kept as-is: the CRD preserves unknown
 * fields there, and our validating webhook checks it as the real object it will become.
 */
export const opaque = <T extends object>() =>
  annotated(
    z.custom<T>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "expected an object" }),
    { "x-kubernetes-preserve-unknown-fields": true },
  );

export const stringMap = () => z.record(z.string(), z.string());

/** The object metadata Ordinal reads from its own kinds (the apiserver validates the rest). */
export const objectMeta = () =>
  z.looseObject({
      name: z.optional(z.string()),
      namespace: z.optional(z.string()),
      uid: z.optional(z.string()),
      generation: z.optional(integer()),
      resourceVersion: z.optional(z.string()),
      labels: z.optional(stringMap()),
      annotations: z.optional(stringMap()),
      deletionTimestamp: z.optional(z.string()),
    });

/** conditionSchema returns the schema of a status condition (Kubernetes' metav1.Condition fields). */
export const conditionSchema = () =>
  z.object({
      type: z.string(),
      status: z.enum(["True", "False", "Unknown"]),
      lastTransitionTime: z.optional(z.string()),
      reason: z.optional(z.string()),
      message: z.optional(z.string()),
    });
