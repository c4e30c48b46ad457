// Builders for the validation tests: a valid raw StatefulSet (plain JSON, as an AdmissionReview
// carries it) to break one field at a time, and short printers of results.
import { type FieldError, formatFieldError } from "../../src/validation/index.ts";
import { setManifest } from "../support/fixtures.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Raw = any;

/** validSet is `default/web`: 3 replicas, headless service web, one claim template `data`. */
export function validSet(): Raw {
  const set = setManifest({ claims: ["data"] });
  set.spec.template = {
    metadata: { labels: { app: "web" } },
    spec: { containers: [{ name: "nginx", image: "nginx:1.25", ports: [{ containerPort: 80, name: "web" }], volumeMounts: [{ name: "data", mountPath: "/data" }] }] },
  };
  return set;
}

/** validPod is a minimal valid pod. */
export function validPod(): Raw {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0", namespace: "default", labels: { app: "web" } },
    spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
  };
}

/** validClaim is a minimal valid PVC. */
export function validClaim(): Raw {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data-web-0", namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  };
}

/** with returns a copy of `base` changed by `edit`. */
export function with_<T>(base: () => T, edit: (o: Raw) => void): T {
  const o = base();
  edit(o);
  return o;
}

export const messages = (errors: readonly FieldError[]): string[] => errors.map(formatFieldError);
export const pairs = (errors: readonly FieldError[]): Array<[string, string]> => errors.map((e) => [e.field, e.type]);
