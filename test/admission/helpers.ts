// Builders shared by the admission tests (Node and workerd): AdmissionReviews, a sample set and
// its pods, an app with a fresh signing key. Web APIs only, so test/workers can import it.
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { AdmissionRequestSchema, type AdmissionRequest } from "../../src/admission/types.ts";
import type { Logger } from "../../src/log/log.ts";
import { newSet } from "../support/fixtures.ts";

export const RECONCILER = "ordinal-reconciler";

/** sampleSet is `default/web`: serviceName web, claim template `data`, 3 replicas. */
export function sampleSet(overrides: { serviceName?: string; claims?: string[]; replicas?: number; start?: number; reserveOrdinals?: (number | string)[] } = {}): StatefulSet {
  return newSet({
    replicas: overrides.replicas ?? 3,
    metadata: { uid: "uid-web" },
    claims: overrides.claims ?? ["data"],
    spec: {
      serviceName: overrides.serviceName ?? "web",
      ...(overrides.start !== undefined ? { ordinals: { start: overrides.start } } : {}),
      ...(overrides.reserveOrdinals ? { reserveOrdinals: overrides.reserveOrdinals } : {}),
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [{ name: "nginx", image: "nginx:1.25", ports: [{ containerPort: 80, name: "web" }] }],
          volumes: [{ name: "data", emptyDir: {} }, { name: "config", configMap: { name: "web-config" } }],
        },
      },
    },
  });
}

/** handMadePod is what a person or restore tool creates: the template, our label, no identity. */
export function handMadePod(name = "web-1"): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels: { app: "web", [SET_NAME_LABEL]: "web" } },
    spec: structuredClone(sampleSet().spec.template.spec),
  };
}

let uidCounter = 0;

/** request builds a parsed AdmissionRequest (defaults: Pod CREATE in default by "admin"). */
type RequestFields = { [K in "uid" | "kind" | "resource" | "subResource" | "name" | "namespace" | "operation" | "userInfo" | "dryRun"]?: AdmissionRequest[K] } & {
  object?: unknown;
  oldObject?: unknown;
};

export function request(fields: RequestFields): AdmissionRequest {
  const kind = fields.kind ?? { group: "", version: "v1", kind: "Pod" };
  const resource = fields.resource ?? { group: kind.group, version: kind.version, resource: `${kind.kind.toLowerCase()}s` };
  return AdmissionRequestSchema.parse({
    uid: `uid-${++uidCounter}`,
    operation: "CREATE",
    namespace: "default",
    userInfo: { username: "admin", groups: ["system:masters"] },
    ...fields,
    kind,
    resource,
  });
}

/** review wraps a request in the AdmissionReview envelope the apiserver posts. */
export const review = (req: AdmissionRequest | Record<string, unknown>) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: req });

export const osts = { group: "apps.ordinal.dev", version: "v1", kind: "StatefulSet" };
export const appsSts = { group: "apps", version: "v1", kind: "StatefulSet" };
export const imageListKind = { group: "apps.ordinal.dev", version: "v1", kind: "ImageList" };

export interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

/** memoryLogger records log calls for assertions. */
export function memoryLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    debug: (msg, fields) => void lines.push({ level: "debug", msg, fields }),
    info: (msg, fields) => void lines.push({ level: "info", msg, fields }),
    warn: (msg, fields) => void lines.push({ level: "warn", msg, fields }),
    error: (msg, fields) => void lines.push({ level: "error", msg, fields }),
  };
}
