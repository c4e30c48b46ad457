import * as z from "zod";

/**
 * Helpers that attach Kubernetes structural-schema markers to zod schemas. The CRD generator
 * (crd.ts) turns these markers into `x-kubernetes-*` keys; the TS types are unaffected.
 */

/** int32: the apiserver's range for replicas, partition, seconds… */
export const int32 = () => z.number().int().min(-2147483648).max(2147483647);

/** An int-or-string (maxUnavailable: `2` or `"50%"`). */
export const intOrString = () =>
  z.union([z.number().int(), z.string()]).meta({ "x-kubernetes-int-or-string": true });

/**
 * An embedded Kubernetes object part (pod spec, PVC spec) kept as-is: the CRD preserves unknown
 * fields there, and our validating webhook checks it as the real object it will become.
 */
export const opaque = <T extends object>(description: string) =>
  z
    .custom<T>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "expected an object" })
    .meta({ "x-kubernetes-preserve-unknown-fields": true, description });

export const stringMap = () => z.record(z.string(), z.string());

/** The object metadata Ordinal reads from its own kinds (the apiserver validates the rest). */
export const objectMeta = () =>
  z.looseObject({
    name: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    generation: z.number().int().optional(),
    resourceVersion: z.string().optional(),
    labels: stringMap().optional(),
    annotations: stringMap().optional(),
    deletionTimestamp: z.string().optional(),
  })
  .describe("Standard object metadata (see `kubectl explain pod.metadata`).");
