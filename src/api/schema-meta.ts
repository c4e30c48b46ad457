import * as z from "zod/mini";
import { annotated, described } from "./zod.ts";

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
export const opaque = <T extends object>(description: string) =>
  annotated(
    z.custom<T>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "expected an object" }),
    { "x-kubernetes-preserve-unknown-fields": true, description },
  );

export const stringMap = () => z.record(z.string(), z.string());

/** The object metadata Ordinal reads from its own kinds (the apiserver validates the rest). */
export const objectMeta = () =>
  described(
    z.looseObject({
      name: z.optional(z.string()),
      namespace: z.optional(z.string()),
      uid: z.optional(z.string()),
      generation: z.optional(integer()),
      resourceVersion: z.optional(z.string()),
      labels: z.optional(stringMap()),
      annotations: z.optional(stringMap()),
      deletionTimestamp: z.optional(z.string()),
    }),
    "Standard object metadata (see `kubectl explain pod.metadata`).",
  );

/** conditionSchema returns the schema of a status condition (Kubernetes' metav1.Condition fields); `of` ends its description. */
export const conditionSchema = (of: string) =>
  described(
    z.object({
      type: described(z.string(), "Condition type."),
      status: described(z.enum(["True", "False", "Unknown"]), "True, False or Unknown."),
      lastTransitionTime: described(z.optional(z.string()), "When the status last changed (RFC 3339)."),
      reason: described(z.optional(z.string()), "One CamelCase word saying why."),
      message: described(z.optional(z.string()), "What happened, for people."),
    }),
    `A condition of ${of}.`,
  );
