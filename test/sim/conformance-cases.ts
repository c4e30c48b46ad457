/**
 * Request/response cases the fake apiserver must answer exactly as a real kube-apiserver 1.20
 * does. test/sim/conformance.test.ts replays them against the fake; an e2e test replays the very
 * same list against the real apiserver (`replayCase` with a fetch that trusts the cluster CA and
 * sends the admin token), which proves the two agree.
 *
 * Each case is self-contained: it creates what it needs in the namespace it is given, with
 * names unique to the case, and needs no scheduler or kubelet (pods are bound by a Binding to a
 * Node the case creates). Pods need the namespace's `default` ServiceAccount to have its token
 * already (the e2e cluster's token controller does that within a second of namespace creation).
 * Cluster-scoped objects (nodes, webhook configurations, namespaces) are named after the
 * namespace so that repeated runs do not collide; cases delete them at the end.
 *
 * In bodies and paths, `{{name}}` is replaced by a value saved from an earlier response of the
 * same case (`save: { rv: "metadata.resourceVersion" }`).
 */

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Expectation on a response; field paths are dotted (`metadata.name`, `details.causes.0.field`). */
interface Expect {
  code: number;
  /** Status.reason of an error response */
  reason?: string;
  /** exact Status.message */
  message?: string;
  /** Status.message must start with this (messages that end in a Go diff) */
  messagePrefix?: string;
  /** values at field paths; ABSENT means the field must not be there, PRESENT that it must */
  fields?: Record<string, unknown>;
  /** field paths whose (string) value must match a regular expression */
  patterns?: Record<string, string>;
}

const ABSENT = "<absent>";
const PRESENT = "<present>";

interface Step {
  /** what the step shows */
  what: string;
  method: Method;
  path: string;
  /** JSON body; strings may contain {{var}} */
  body?: unknown;
  /** body sent verbatim (malformed JSON) */
  rawBody?: string;
  /** default application/json (for PATCH: application/merge-patch+json) */
  contentType?: string;
  expect: Expect;
  /** values to keep for later steps: variable name -> field path of the response */
  save?: Record<string, string>;
  /** the outcome depends on an asynchronous controller (garbage collector, namespace controller): retry until it matches */
  eventually?: boolean;
}

export interface ConformanceCase {
  name: string;
  steps(ns: string): Step[];
}

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const SMP = "application/strategic-merge-patch+json";
const core = (ns: string, resource: string, name?: string) => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ""}`;
const ordinal = (ns: string, name?: string, sub?: string) =>
  `/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets${name ? `/${name}` : ""}${sub ? `/${sub}` : ""}`;
const pod = (name: string, image = "registry.example/app:1", labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, labels },
  spec: { containers: [{ name: "c", image }] },
});
const ordinalSet = (name: string, replicas?: number) => ({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "StatefulSet",
  metadata: { name },
  spec: {
    ...(replicas === undefined ? {} : { replicas }),
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "registry.example/app:1" }] } },
  },
});
const NAME_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const POD_UPDATE_MESSAGE =
  'Pod "cf-pu" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)';

export const CONFORMANCE_CASES: ConformanceCase[] = [
  {
    name: "create, get, already exists",
    steps: (ns): Step[] => [
      {
        what: "create a ConfigMap",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cf-crud", labels: { a: "b" } }, data: { k: "v" } },
        expect: {
          code: 201,
          fields: { kind: "ConfigMap", apiVersion: "v1", "metadata.name": "cf-crud", "metadata.namespace": ns, "metadata.generation": ABSENT, "data.k": "v" },
          patterns: { "metadata.resourceVersion": "^[0-9]+$", "metadata.uid": "^[0-9a-f-]{36}$", "metadata.creationTimestamp": "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$" },
        },
        save: { rv: "metadata.resourceVersion" },
      },
      { what: "read it back", method: "GET", path: core(ns, "configmaps", "cf-crud"), expect: { code: 200, fields: { "metadata.resourceVersion": "{{rv}}", "metadata.labels.a": "b" } } },
      {
        what: "create it again",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-crud" } },
        expect: {
          code: 409,
          reason: "AlreadyExists",
          message: 'configmaps "cf-crud" already exists',
          fields: { kind: "Status", apiVersion: "v1", status: "Failure", "details.name": "cf-crud", "details.kind": "configmaps", "details.group": ABSENT, code: 409 },
        },
      },
      {
        what: "get one that does not exist",
        method: "GET",
        path: core(ns, "configmaps", "cf-nope"),
        expect: { code: 404, reason: "NotFound", message: 'configmaps "cf-nope" not found', fields: { "details.name": "cf-nope", "details.kind": "configmaps" } },
      },
      {
        what: "get a missing custom resource",
        method: "GET",
        path: ordinal(ns, "cf-nope"),
        expect: {
          code: 404,
          reason: "NotFound",
          message: 'statefulsets.apps.ordinal.dev "cf-nope" not found',
          fields: { "details.group": "apps.ordinal.dev", "details.kind": "statefulsets" },
        },
      },
      {
        what: "get a missing apps/v1 statefulset",
        method: "GET",
        path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-nope`,
        expect: { code: 404, reason: "NotFound", message: 'statefulsets.apps "cf-nope" not found', fields: { "details.group": "apps" } },
      },
      { what: "delete it", method: "DELETE", path: core(ns, "configmaps", "cf-crud"), expect: { code: 200, fields: { kind: "Status", status: "Success", "details.name": "cf-crud", "details.kind": "configmaps" } } },
    ],
  },
  {
    name: "create validation",
    steps: (ns): Step[] => [
      {
        what: "pod without containers",
        method: "POST",
        path: core(ns, "pods"),
        body: { metadata: { name: "cf-v1" }, spec: {} },
        expect: {
          code: 422,
          reason: "Invalid",
          message: 'Pod "cf-v1" is invalid: spec.containers: Required value',
          fields: { "details.kind": "Pod", "details.causes": [{ reason: "FieldValueRequired", message: "Required value", field: "spec.containers" }] },
        },
      },
      {
        what: "pod container without image",
        method: "POST",
        path: core(ns, "pods"),
        body: { metadata: { name: "cf-v2" }, spec: { containers: [{ name: "c" }] } },
        expect: { code: 422, reason: "Invalid", message: 'Pod "cf-v2" is invalid: spec.containers[0].image: Required value' },
      },
      {
        what: "name that is not a DNS subdomain",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "Cf_Bad" } },
        expect: { code: 422, reason: "Invalid", message: `ConfigMap "Cf_Bad" is invalid: metadata.name: Invalid value: "Cf_Bad": ${NAME_MESSAGE}` },
      },
      {
        what: "neither name nor generateName",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: {} },
        expect: { code: 422, reason: "Invalid", message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required', fields: { "details.name": ABSENT } },
      },
      {
        what: "namespace in the body differs from the URL",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-v3", namespace: `${ns}-other` } },
        expect: { code: 400, reason: "BadRequest", message: "the namespace of the provided object does not match the namespace sent on the request", fields: { details: ABSENT } },
      },
      {
        what: "namespace that does not exist",
        method: "POST",
        path: core(`${ns}-missing`, "configmaps"),
        body: { metadata: { name: "cf-v4" } },
        expect: { code: 404, reason: "NotFound", message: `namespaces "${ns}-missing" not found`, fields: { "details.kind": "namespaces" } },
      },
      {
        what: "resourceVersion set on create",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-v5", resourceVersion: "5" } },
        expect: { code: 500, message: "resourceVersion should not be set on objects to be created", fields: { reason: ABSENT } },
      },
      {
        what: "PVC without access modes and storage",
        method: "POST",
        path: core(ns, "persistentvolumeclaims"),
        body: { metadata: { name: "cf-v6" }, spec: {} },
        expect: {
          code: 422,
          message: 'PersistentVolumeClaim "cf-v6" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
        },
      },
      {
        what: "body that is not JSON",
        method: "POST",
        path: core(ns, "configmaps"),
        rawBody: "not json",
        expect: { code: 400, reason: "BadRequest", messagePrefix: "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: " },
      },
      {
        what: "custom resource without kind",
        method: "POST",
        path: ordinal(ns),
        body: { metadata: { name: "cf-v7" }, spec: {} },
        expect: { code: 400, reason: "BadRequest", messagePrefix: `StatefulSet in version "v1" cannot be handled as a StatefulSet: unmarshalerDecoder: Object 'Kind' is missing in '` },
      },
      {
        what: "custom resource of the wrong kind",
        method: "POST",
        path: ordinal(ns),
        body: { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "cf-v8" }, spec: {} },
        expect: {
          code: 422,
          message: 'ImageList.apps.ordinal.dev "cf-v8" is invalid: kind: Invalid value: "ImageList": must be StatefulSet',
          fields: { "details.kind": "ImageList", "details.group": "apps.ordinal.dev" },
        },
      },
      {
        what: "custom resource breaking its schema (minimum)",
        method: "POST",
        path: ordinal(ns),
        body: { ...ordinalSet("cf-v9"), spec: { ...ordinalSet("cf-v9").spec, podManagementPolicy: "Sideways" } },
        expect: {
          code: 422,
          message: 'StatefulSet.apps.ordinal.dev "cf-v9" is invalid: spec.podManagementPolicy: Unsupported value: "Sideways": supported values: "OrderedReady", "Parallel"',
        },
      },
    ],
  },
  {
    name: "generateName and custom resource defaults",
    steps: (ns): Step[] => [
      {
        what: "generateName gets five random characters",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { generateName: "cf-gen-" } },
        expect: { code: 201, fields: { "metadata.generateName": "cf-gen-" }, patterns: { "metadata.name": "^cf-gen-[bcdfghjklmnpqrstvwxz2456789]{5}$" } },
        save: { name: "metadata.name" },
      },
      { what: "delete it", method: "DELETE", path: core(ns, "configmaps", "{{name}}"), expect: { code: 200 } },
      {
        what: "custom resource: schema defaults, pruning, no status on create, generation 1",
        method: "POST",
        path: ordinal(ns),
        body: { ...ordinalSet("cf-def"), spec: { ...ordinalSet("cf-def").spec, unknownField: 1 }, status: { replicas: 3 } },
        expect: {
          code: 201,
          fields: {
            "metadata.generation": 1,
            "spec.replicas": 1,
            "spec.podManagementPolicy": "OrderedReady",
            "spec.updateStrategy": { type: "RollingUpdate", rollingUpdate: { partition: 0, paused: false, podUpdatePolicy: "ReCreate" } },
            "spec.revisionHistoryLimit": 10,
            "spec.unknownField": ABSENT,
            status: ABSENT,
          },
        },
      },
      { what: "delete it", method: "DELETE", path: ordinal(ns, "cf-def"), expect: { code: 200, fields: { kind: "Status", "details.group": "apps.ordinal.dev", "details.kind": "statefulsets" } } },
    ],
  },
  {
    name: "optimistic concurrency",
    steps: (ns): Step[] => [
      { what: "create", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-occ" }, data: { v: "1" } }, expect: { code: 201 }, save: { rv: "metadata.resourceVersion" } },
      {
        what: "update with the current resourceVersion",
        method: "PUT",
        path: core(ns, "configmaps", "cf-occ"),
        body: { metadata: { name: "cf-occ", resourceVersion: "{{rv}}" }, data: { v: "2" } },
        expect: { code: 200, fields: { "data.v": "2" } },
        save: { rv2: "metadata.resourceVersion" },
      },
      {
        what: "update with a stale resourceVersion",
        method: "PUT",
        path: core(ns, "configmaps", "cf-occ"),
        body: { metadata: { name: "cf-occ", resourceVersion: "{{rv}}" }, data: { v: "3" } },
        expect: {
          code: 409,
          reason: "Conflict",
          message: 'Operation cannot be fulfilled on configmaps "cf-occ": the object has been modified; please apply your changes to the latest version and try again',
          fields: { "details.name": "cf-occ", "details.kind": "configmaps" },
        },
      },
      {
        what: "update of a built-in kind without resourceVersion is unconditional",
        method: "PUT",
        path: core(ns, "configmaps", "cf-occ"),
        body: { metadata: { name: "cf-occ" }, data: { v: "4" } },
        expect: { code: 200, fields: { "data.v": "4" } },
      },
      {
        what: "an update that changes nothing keeps the resourceVersion",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-occ"),
        contentType: MERGE,
        body: { data: { v: "4" } },
        expect: { code: 200 },
        save: { rv3: "metadata.resourceVersion" },
      },
      { what: "still the same", method: "GET", path: core(ns, "configmaps", "cf-occ"), expect: { code: 200, fields: { "metadata.resourceVersion": "{{rv3}}" } } },
      {
        what: "merge patch carrying a stale resourceVersion",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-occ"),
        contentType: MERGE,
        body: { metadata: { resourceVersion: "{{rv}}" }, data: { v: "5" } },
        expect: { code: 409, reason: "Conflict" },
      },
      {
        what: "name in the body differs from the URL",
        method: "PUT",
        path: core(ns, "configmaps", "cf-occ"),
        body: { metadata: { name: "cf-other" } },
        expect: { code: 400, reason: "BadRequest", message: "the name of the object (cf-other) does not match the name on the URL (cf-occ)" },
      },
      {
        what: "update of a missing object",
        method: "PUT",
        path: core(ns, "configmaps", "cf-occ-missing"),
        body: { metadata: { name: "cf-occ-missing" } },
        expect: { code: 404, reason: "NotFound", message: 'configmaps "cf-occ-missing" not found' },
      },
      { what: "create a custom resource", method: "POST", path: ordinal(ns), body: ordinalSet("cf-occ", 2), expect: { code: 201 } },
      {
        what: "custom resources refuse an update without resourceVersion",
        method: "PUT",
        path: ordinal(ns, "cf-occ"),
        body: ordinalSet("cf-occ", 3),
        expect: {
          code: 422,
          reason: "Invalid",
          message: 'statefulsets.apps.ordinal.dev "cf-occ" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
          fields: {
            "details.group": "apps.ordinal.dev",
            "details.kind": "statefulsets",
            "details.causes": [{ reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" }],
          },
        },
      },
      {
        what: "leases are created by PUT",
        method: "PUT",
        path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/cf-occ`,
        body: { metadata: { name: "cf-occ" }, spec: { holderIdentity: "a" } },
        expect: { code: 201, fields: { "spec.holderIdentity": "a" } },
      },
      {
        what: "but not updated by a PUT without resourceVersion",
        method: "PUT",
        path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/cf-occ`,
        body: { metadata: { name: "cf-occ" }, spec: { holderIdentity: "b" } },
        expect: { code: 422, message: 'leases.coordination.k8s.io "cf-occ" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update' },
      },
      { what: "clean up", method: "DELETE", path: ordinal(ns, "cf-occ"), expect: { code: 200 } },
    ],
  },
  {
    name: "patch types",
    steps: (ns): Step[] => [
      { what: "create", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-patch", labels: { a: "1" } }, data: { x: "1" } }, expect: { code: 201 } },
      {
        what: "JSON patch whose test fails",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: JSON_PATCH,
        body: [{ op: "test", path: "/metadata/labels/a", value: "2" }],
        expect: { code: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request", fields: { details: {} } },
      },
      {
        what: "JSON patch removing a missing key",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: JSON_PATCH,
        body: [{ op: "remove", path: "/data/nope" }],
        expect: { code: 422, reason: "Invalid" },
      },
      {
        what: "JSON patch replace of a missing key adds it (evanphx/json-patch v4)",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: JSON_PATCH,
        body: [
          { op: "test", path: "/data/x", value: "1" },
          { op: "replace", path: "/data/y", value: "2" },
        ],
        expect: { code: 200, fields: { "data.y": "2" } },
      },
      {
        what: "JSON patch that is not a list",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: JSON_PATCH,
        body: { op: "add" },
        expect: { code: 400, reason: "BadRequest" },
      },
      {
        what: "merge patch deleting a key with null",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: MERGE,
        body: { data: { y: null }, metadata: { labels: { b: "2" } } },
        expect: { code: 200, fields: { "data.y": ABSENT, "metadata.labels": { a: "1", b: "2" } } },
      },
      {
        what: "merge patch that is not JSON",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: MERGE,
        rawBody: "{nope",
        expect: { code: 500, message: "Invalid JSON Patch", fields: { reason: ABSENT } },
      },
      {
        what: "patch with an unsupported content type",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch"),
        contentType: "application/yaml",
        body: { data: {} },
        expect: { code: 415, reason: "UnsupportedMediaType", message: "415: Unsupported Media Type" },
      },
      {
        what: "patch of a missing object",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-patch-missing"),
        contentType: MERGE,
        body: { data: {} },
        expect: { code: 404, reason: "NotFound", message: 'configmaps "cf-patch-missing" not found' },
      },
      { what: "custom resource", method: "POST", path: ordinal(ns), body: ordinalSet("cf-patch", 1), expect: { code: 201 } },
      {
        what: "strategic merge patch is not served for custom resources",
        method: "PATCH",
        path: ordinal(ns, "cf-patch"),
        contentType: SMP,
        body: { spec: { replicas: 2 } },
        expect: { code: 415, reason: "UnsupportedMediaType" },
      },
      {
        what: "merge patch of a custom resource's spec bumps generation",
        method: "PATCH",
        path: ordinal(ns, "cf-patch"),
        contentType: MERGE,
        body: { spec: { replicas: 2 } },
        expect: { code: 200, fields: { "metadata.generation": 2, "spec.replicas": 2 } },
      },
      {
        what: "a label change does not",
        method: "PATCH",
        path: ordinal(ns, "cf-patch"),
        contentType: MERGE,
        body: { metadata: { labels: { x: "y" } } },
        expect: { code: 200, fields: { "metadata.generation": 2 } },
      },
      { what: "clean up", method: "DELETE", path: ordinal(ns, "cf-patch"), expect: { code: 200 } },
      { what: "clean up", method: "DELETE", path: core(ns, "configmaps", "cf-patch"), expect: { code: 200 } },
    ],
  },
  {
    name: "pod updates",
    steps: (ns): Step[] => [
      { what: "create a pod", method: "POST", path: core(ns, "pods"), body: pod("cf-pu"), expect: { code: 201, fields: { "status.phase": "Pending", "spec.containers.0.imagePullPolicy": "IfNotPresent" } } },
      {
        what: "change the image",
        method: "PATCH",
        path: core(ns, "pods", "cf-pu"),
        contentType: JSON_PATCH,
        body: [{ op: "replace", path: "/spec/containers/0/image", value: "registry.example/app:2" }],
        expect: { code: 200, fields: { "spec.containers.0.image": "registry.example/app:2" } },
      },
      {
        what: "add an env var: forbidden",
        method: "PATCH",
        path: core(ns, "pods", "cf-pu"),
        contentType: JSON_PATCH,
        body: [{ op: "add", path: "/spec/containers/0/env", value: [{ name: "A", value: "b" }] }],
        expect: {
          code: 422,
          reason: "Invalid",
          messagePrefix: POD_UPDATE_MESSAGE,
          fields: { "details.name": "cf-pu", "details.kind": "Pod", "details.causes.0.reason": "FieldValueForbidden", "details.causes.0.field": "spec" },
        },
      },
      {
        what: "labels may change freely (strategic merge patch)",
        method: "PATCH",
        path: core(ns, "pods", "cf-pu"),
        contentType: SMP,
        body: { metadata: { labels: { l: "1" } }, spec: { containers: [{ name: "c", image: "registry.example/app:3" }] } },
        expect: { code: 200, fields: { "metadata.labels.l": "1", "spec.containers.0.image": "registry.example/app:3", "spec.containers.0.name": "c" } },
      },
      {
        what: "the status endpoint ignores spec but keeps label changes; times are truncated to seconds in UTC",
        method: "PATCH",
        path: `${core(ns, "pods", "cf-pu")}/status`,
        contentType: MERGE,
        body: {
          metadata: { labels: { s: "1" } },
          spec: { containers: [{ name: "c", image: "registry.example/app:9" }] },
          status: {
            phase: "Running",
            conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T02:00:00.9+02:00" }],
            containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "x", imageID: "", state: { running: { startedAt: "2026-01-01T00:00:01.999Z" } } }],
          },
        },
        expect: {
          code: 200,
          fields: {
            "metadata.labels.s": "1",
            "spec.containers.0.image": "registry.example/app:3",
            "status.phase": "Running",
            "status.conditions.0.lastTransitionTime": "2026-01-01T00:00:00Z",
            "status.conditions.0.lastProbeTime": null,
            "status.containerStatuses.0.state.running.startedAt": "2026-01-01T00:00:01Z",
            "status.containerStatuses.0.lastState": {},
          },
        },
      },
      {
        what: "a time that does not parse, in a PUT",
        method: "PUT",
        path: `${core(ns, "pods", "cf-pu")}/status`,
        body: { ...pod("cf-pu"), status: { startTime: "yesterday" } },
        expect: { code: 400, reason: "BadRequest", messagePrefix: 'Pod in version "v1" cannot be handled as a Pod: ' },
      },
      {
        what: "and in a patch",
        method: "PATCH",
        path: `${core(ns, "pods", "cf-pu")}/status`,
        contentType: MERGE,
        body: { status: { startTime: "yesterday" } },
        expect: { code: 422, reason: "Invalid", messagePrefix: ' "" is invalid: patch: Invalid value: "{', fields: { "details.causes.0.field": "patch" } },
      },
      { what: "the main endpoint ignores status", method: "PATCH", path: core(ns, "pods", "cf-pu"), contentType: MERGE, body: { status: { phase: "Failed" } }, expect: { code: 200, fields: { "status.phase": "Running" } } },
      { what: "delete (unscheduled: at once)", method: "DELETE", path: core(ns, "pods", "cf-pu"), expect: { code: 200, fields: { kind: "Pod", "metadata.deletionGracePeriodSeconds": 0 }, patterns: { "metadata.deletionTimestamp": "Z$" } } },
      { what: "gone", method: "GET", path: core(ns, "pods", "cf-pu"), expect: { code: 404, message: 'pods "cf-pu" not found' } },
    ],
  },
  {
    name: "binding and graceful deletion",
    steps: (ns): Step[] => [
      { what: "a node", method: "POST", path: "/api/v1/nodes", body: { metadata: { name: `${ns}-node` } }, expect: { code: 201, fields: { "spec.taints.0.key": "node.kubernetes.io/not-ready" } } },
      { what: "a pod", method: "POST", path: core(ns, "pods"), body: pod("cf-bind"), expect: { code: 201, fields: { "spec.terminationGracePeriodSeconds": 30 } } },
      {
        what: "binding whose name differs from the pod's",
        method: "POST",
        path: `${core(ns, "pods", "cf-bind")}/binding`,
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "cf-other" }, target: { apiVersion: "v1", kind: "Node", name: `${ns}-node` } },
        expect: { code: 400, reason: "BadRequest", message: "name in URL does not match name in Binding object" },
      },
      {
        what: "bind the pod to the node",
        method: "POST",
        path: `${core(ns, "pods", "cf-bind")}/binding`,
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "cf-bind" }, target: { apiVersion: "v1", kind: "Node", name: `${ns}-node` } },
        expect: { code: 201, fields: { kind: "Status", status: "Success", code: 201 } },
      },
      {
        what: "bind it again",
        method: "POST",
        path: `${core(ns, "pods", "cf-bind")}/binding`,
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "cf-bind" }, target: { apiVersion: "v1", kind: "Node", name: `${ns}-node` } },
        expect: {
          code: 409,
          reason: "Conflict",
          message: `Operation cannot be fulfilled on pods/binding "cf-bind": pod cf-bind is already assigned to node "${ns}-node"`,
          fields: { "details.kind": "pods/binding" },
        },
      },
      {
        what: "scheduled",
        method: "GET",
        path: core(ns, "pods", "cf-bind"),
        expect: { code: 200, fields: { "spec.nodeName": `${ns}-node`, "status.conditions.0.type": "PodScheduled", "status.conditions.0.status": "True" } },
      },
      {
        what: "delete: graceful, the pod stays with a deletionTimestamp",
        method: "DELETE",
        path: core(ns, "pods", "cf-bind"),
        expect: { code: 200, fields: { kind: "Pod", "metadata.deletionGracePeriodSeconds": 30 }, patterns: { "metadata.deletionTimestamp": "Z$" } },
      },
      { what: "still there", method: "GET", path: core(ns, "pods", "cf-bind"), expect: { code: 200, fields: { "metadata.deletionGracePeriodSeconds": 30 } } },
      {
        what: "a shorter grace period shortens it",
        method: "DELETE",
        path: core(ns, "pods", "cf-bind"),
        body: { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 10 },
        expect: { code: 200, fields: { "metadata.deletionGracePeriodSeconds": 10 } },
      },
      {
        what: "a longer one changes nothing",
        method: "DELETE",
        path: core(ns, "pods", "cf-bind"),
        body: { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 60 },
        expect: { code: 200, fields: { "metadata.deletionGracePeriodSeconds": 10 } },
      },
      {
        what: "binding a terminating pod",
        method: "POST",
        path: `${core(ns, "pods", "cf-bind")}/binding`,
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "cf-bind" }, target: { apiVersion: "v1", kind: "Node", name: `${ns}-node` } },
        expect: { code: 409, reason: "Conflict", message: 'Operation cannot be fulfilled on pods/binding "cf-bind": pod cf-bind is being deleted, cannot be assigned to a host' },
      },
      {
        what: "the kubelet's final delete",
        method: "DELETE",
        path: `${core(ns, "pods", "cf-bind")}?gracePeriodSeconds=0`,
        expect: { code: 200, fields: { kind: "Pod", "metadata.deletionGracePeriodSeconds": 0 } },
      },
      { what: "gone", method: "GET", path: core(ns, "pods", "cf-bind"), expect: { code: 404 } },
      { what: "delete the node", method: "DELETE", path: `/api/v1/nodes/${ns}-node`, expect: { code: 200, fields: { kind: "Status", status: "Success" } } },
    ],
  },
  {
    name: "eviction (policy/v1beta1 on 1.20) and SubjectAccessReview validation",
    steps: (ns): Step[] => [
      { what: "a pod (Pending: no kubelet)", method: "POST", path: core(ns, "pods"), body: pod("cf-ev", undefined, { app: "cf-ev" }), expect: { code: 201 } },
      {
        what: "an eviction whose name differs from the URL's",
        method: "POST",
        path: `${core(ns, "pods", "cf-ev")}/eviction`,
        body: { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "cf-other" } },
        expect: { code: 400, reason: "BadRequest", message: "name in URL does not match name in Eviction object" },
      },
      {
        what: "a policy/v1 Eviction: 1.20 knows none",
        method: "POST",
        path: `${core(ns, "pods", "cf-ev")}/eviction`,
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "cf-ev" } },
        expect: {
          code: 400,
          reason: "BadRequest",
          message: 'Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "policy/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
        },
      },
      {
        what: "an eviction of a pod that does not exist",
        method: "POST",
        path: `${core(ns, "pods", "cf-none")}/eviction`,
        body: { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "cf-none" } },
        expect: { code: 404, reason: "NotFound", message: 'pods "cf-none" not found' },
      },
      {
        what: "a budget that selects it",
        method: "POST",
        path: `/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`,
        body: { apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", metadata: { name: "cf-ev" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "cf-ev" } } } },
        expect: { code: 201, fields: { "metadata.generation": 1 } },
      },
      {
        what: "another uid as the precondition: a conflict",
        method: "POST",
        path: `${core(ns, "pods", "cf-ev")}/eviction`,
        body: { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "cf-ev" }, deleteOptions: { preconditions: { uid: "not-its-uid" } } },
        expect: { code: 409, reason: "Conflict" },
      },
      {
        what: "evicted: a Pending pod goes without a budget check",
        method: "POST",
        path: `${core(ns, "pods", "cf-ev")}/eviction`,
        body: { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "cf-ev" } },
        expect: { code: 201, fields: { kind: "Status", status: "Success", code: 201 } },
      },
      { what: "gone", method: "GET", path: core(ns, "pods", "cf-ev"), expect: { code: 404 } },
      {
        what: "a SubjectAccessReview without attributes or user",
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: {} },
        expect: {
          code: 422,
          reason: "Invalid",
          message: '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
        },
      },
      {
        what: "a SubjectAccessReview is answered, not stored",
        method: "POST",
        path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { user: "nobody", resourceAttributes: { namespace: ns, verb: "delete", resource: "pods", name: "cf-ev" } } },
        expect: { code: 201, fields: { kind: "SubjectAccessReview", "spec.user": "nobody", "status.allowed": PRESENT, "metadata.name": ABSENT } },
      },
    ],
  },
  {
    name: "delete preconditions and finalizers",
    steps: (ns): Step[] => [
      {
        what: "create with a finalizer",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-fin", finalizers: ["example.com/hold"] } },
        expect: { code: 201 },
        save: { uid: "metadata.uid", rv: "metadata.resourceVersion" },
      },
      {
        what: "uid precondition that does not match",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-fin"),
        body: { preconditions: { uid: "00000000-0000-0000-0000-000000000000" } },
        expect: {
          code: 409,
          reason: "Conflict",
          message:
            'Operation cannot be fulfilled on ConfigMap "cf-fin": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record ({{uid}}). The object might have been deleted and then recreated',
          fields: { "details.kind": "ConfigMap", "details.name": "cf-fin" },
        },
      },
      {
        what: "resourceVersion precondition that does not match",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-fin"),
        body: { preconditions: { resourceVersion: "1" } },
        expect: {
          code: 409,
          message: 'Operation cannot be fulfilled on ConfigMap "cf-fin": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ({{rv}}). The object might have been modified',
        },
      },
      {
        what: "unknown propagation policy",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-fin"),
        body: { propagationPolicy: "Sideways" },
        expect: {
          code: 422,
          message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
          fields: { "details.group": "meta.k8s.io", "details.kind": "DeleteOptions" },
        },
      },
      {
        what: "delete: a finalizer keeps it, with deletionTimestamp",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-fin"),
        body: { preconditions: { uid: "{{uid}}" } },
        expect: { code: 200, fields: { kind: "ConfigMap", "metadata.deletionGracePeriodSeconds": 0, "metadata.finalizers": ["example.com/hold"] }, patterns: { "metadata.deletionTimestamp": "Z$" } },
      },
      {
        what: "no new finalizers while deleting",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-fin"),
        contentType: MERGE,
        body: { metadata: { finalizers: ["example.com/hold", "example.com/more"] } },
        expect: {
          code: 422,
          reason: "Invalid",
          message: 'ConfigMap "cf-fin" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
        },
      },
      { what: "deleting again changes nothing", method: "DELETE", path: core(ns, "configmaps", "cf-fin"), expect: { code: 200, fields: { "metadata.finalizers": ["example.com/hold"] } } },
      { what: "remove the finalizer", method: "PATCH", path: core(ns, "configmaps", "cf-fin"), contentType: MERGE, body: { metadata: { finalizers: null } }, expect: { code: 200, fields: { kind: "ConfigMap" } } },
      { what: "gone", method: "GET", path: core(ns, "configmaps", "cf-fin"), expect: { code: 404 } },
    ],
  },
  {
    name: "status and scale subresources of custom resources",
    steps: (ns): Step[] => [
      { what: "create", method: "POST", path: ordinal(ns), body: ordinalSet("cf-sub", 2), expect: { code: 201 }, save: { rv: "metadata.resourceVersion" } },
      {
        what: "status update ignores spec and metadata",
        method: "PUT",
        path: ordinal(ns, "cf-sub", "status"),
        body: {
          ...ordinalSet("cf-sub", 9),
          metadata: { name: "cf-sub", resourceVersion: "{{rv}}", labels: { x: "y" } },
          status: { replicas: 2, labelSelector: "app=cf-sub", conditions: [{ type: "X", status: "True", lastTransitionTime: "2026-01-01T00:00:00.123Z" }] },
        },
        expect: {
          code: 200,
          fields: {
            "spec.replicas": 2,
            "metadata.labels": ABSENT,
            "metadata.generation": 1,
            "status.replicas": 2,
            "status.conditions.0.lastTransitionTime": "2026-01-01T00:00:00.123Z",
          },
        },
        save: { rv2: "metadata.resourceVersion" },
      },
      {
        what: "main endpoint ignores status",
        method: "PUT",
        path: ordinal(ns, "cf-sub"),
        body: { ...ordinalSet("cf-sub", 2), metadata: { name: "cf-sub", resourceVersion: "{{rv2}}" }, status: { replicas: 7 } },
        expect: { code: 200, fields: { "status.replicas": 2, "metadata.generation": 1 } },
      },
      {
        what: "scale",
        method: "GET",
        path: ordinal(ns, "cf-sub", "scale"),
        expect: { code: 200, fields: { kind: "Scale", apiVersion: "autoscaling/v1", "metadata.name": "cf-sub", "spec.replicas": 2, "status.replicas": 2, "status.selector": "app=cf-sub" } },
      },
      {
        what: "scale with a stale resourceVersion",
        method: "PUT",
        path: ordinal(ns, "cf-sub", "scale"),
        body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-sub", resourceVersion: "{{rv}}" }, spec: { replicas: 4 } },
        expect: {
          code: 409,
          message: 'Operation cannot be fulfilled on statefulsets.apps.ordinal.dev "cf-sub": the object has been modified; please apply your changes to the latest version and try again',
        },
      },
      {
        what: "scale to 4",
        method: "PUT",
        path: ordinal(ns, "cf-sub", "scale"),
        body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-sub" }, spec: { replicas: 4 } },
        expect: { code: 200, fields: { "spec.replicas": 4 } },
      },
      { what: "spec.replicas changed, generation bumped", method: "GET", path: ordinal(ns, "cf-sub"), expect: { code: 200, fields: { "spec.replicas": 4, "metadata.generation": 2 } } },
      {
        what: "scale above the CRD's maximum (MAX_REPLICAS) is refused: no webhook sees the scale subresource",
        method: "PATCH",
        path: ordinal(ns, "cf-sub", "scale"),
        contentType: MERGE,
        body: { spec: { replicas: 2147483647 } },
        expect: { code: 422, reason: "Invalid", message: 'StatefulSet.apps.ordinal.dev "cf-sub" is invalid: spec.replicas: Invalid value: 2147483647: spec.replicas in body should be less than or equal to 150000' },
      },
      {
        what: "scale to one above the maximum with PUT is refused too",
        method: "PUT",
        path: ordinal(ns, "cf-sub", "scale"),
        body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-sub" }, spec: { replicas: 150001 } },
        expect: { code: 422, reason: "Invalid", message: 'StatefulSet.apps.ordinal.dev "cf-sub" is invalid: spec.replicas: Invalid value: 150001: spec.replicas in body should be less than or equal to 150000' },
      },
      { what: "the refused scales left spec.replicas as it was", method: "GET", path: ordinal(ns, "cf-sub"), expect: { code: 200, fields: { "spec.replicas": 4, "metadata.generation": 2 } } },
      { what: "scale to 0: Scale.spec.replicas is omitted", method: "PATCH", path: ordinal(ns, "cf-sub", "scale"), contentType: MERGE, body: { spec: { replicas: 0 } }, expect: { code: 200, fields: { spec: {} } } },
      { what: "missing object's scale", method: "GET", path: ordinal(ns, "cf-nope", "scale"), expect: { code: 404, message: 'statefulsets.apps.ordinal.dev "cf-nope" not found' } },
      { what: "clean up", method: "DELETE", path: ordinal(ns, "cf-sub"), expect: { code: 200 } },
    ],
  },
  {
    name: "apps/v1 statefulsets",
    steps: (ns): Step[] => {
      const set = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "cf-sts" },
        spec: {
          serviceName: "cf-sts",
          selector: { matchLabels: { app: "cf-sts" } },
          template: { metadata: { labels: { app: "cf-sts" } }, spec: { containers: [{ name: "c", image: "registry.example/app" }] } },
          volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1024Mi" } } } }],
        },
      };
      return [
        {
          what: "create: defaults, generation 1, empty status",
          method: "POST",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets`,
          body: set,
          expect: {
            code: 201,
            fields: {
              "metadata.generation": 1,
              "spec.replicas": 1,
              "spec.podManagementPolicy": "OrderedReady",
              "spec.updateStrategy": { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
              "spec.revisionHistoryLimit": 10,
              "spec.template.metadata.creationTimestamp": null,
              "spec.template.spec.containers.0.imagePullPolicy": "Always",
              "spec.volumeClaimTemplates.0.spec.resources.requests.storage": "1Gi",
              "spec.volumeClaimTemplates.0.status.phase": "Pending",
              status: { replicas: 0 },
            },
          },
        },
        {
          what: "serviceName may not change",
          method: "PATCH",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts`,
          contentType: MERGE,
          body: { spec: { serviceName: "other" } },
          expect: {
            code: 422,
            message: "StatefulSet.apps \"cf-sts\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden",
          },
        },
        {
          what: "replicas may, and bump generation",
          method: "PATCH",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts`,
          contentType: MERGE,
          body: { spec: { replicas: 2 } },
          expect: { code: 200, fields: { "metadata.generation": 2 } },
        },
        {
          what: "selector must match the template labels",
          method: "POST",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets`,
          body: { ...set, metadata: { name: "cf-sts2" }, spec: { ...set.spec, selector: { matchLabels: { app: "other" } } } },
          expect: {
            code: 422,
            message: 'StatefulSet.apps "cf-sts2" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"cf-sts"}: `selector` does not match template `labels`',
          },
        },
        {
          what: "apps/v1 scale to -1",
          method: "PUT",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts/scale`,
          body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-sts", namespace: ns }, spec: { replicas: -1 } },
          expect: { code: 422, message: 'Scale.autoscaling "cf-sts" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' },
        },
        {
          what: "an apps/v1 Scale must carry its namespace",
          method: "PUT",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts/scale`,
          body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-sts" }, spec: { replicas: 2 } },
          expect: { code: 422, message: 'Scale.autoscaling "cf-sts" is invalid: metadata.namespace: Required value' },
        },
        { what: "apps/v1 scale", method: "GET", path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts/scale`, expect: { code: 200, fields: { "spec.replicas": 2, "status.replicas": 0, "status.selector": "app=cf-sts" } } },
        { what: "delete", method: "DELETE", path: `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts`, expect: { code: 200, fields: { kind: "Status", "details.group": "apps", "details.kind": "statefulsets" } } },
      ];
    },
  },
  {
    name: "persistent volume claims",
    steps: (ns): Step[] => [
      {
        what: "create: pvc-protection finalizer, canonical quantity, Pending",
        method: "POST",
        path: core(ns, "persistentvolumeclaims"),
        body: { metadata: { name: "cf-pvc" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1024Mi" } } } },
        expect: {
          code: 201,
          fields: { "metadata.finalizers": ["kubernetes.io/pvc-protection"], "spec.resources.requests.storage": "1Gi", "spec.volumeMode": "Filesystem", "status.phase": "Pending" },
        },
      },
      {
        what: "spec is immutable",
        method: "PATCH",
        path: core(ns, "persistentvolumeclaims", "cf-pvc"),
        contentType: MERGE,
        body: { spec: { accessModes: ["ReadWriteMany"] } },
        expect: {
          code: 422,
          messagePrefix: 'PersistentVolumeClaim "cf-pvc" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n',
        },
      },
      {
        what: "even the storage request of an unbound claim",
        method: "PATCH",
        path: core(ns, "persistentvolumeclaims", "cf-pvc"),
        contentType: MERGE,
        body: { spec: { resources: { requests: { storage: "2Gi" } } } },
        expect: { code: 422, messagePrefix: 'PersistentVolumeClaim "cf-pvc" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n' },
      },
      { what: "a node", method: "POST", path: "/api/v1/nodes", body: { metadata: { name: `${ns}-pvc-node` } }, expect: { code: 201 } },
      {
        what: "a pod that uses the claim (pvc-protection keeps claims in use)",
        method: "POST",
        path: core(ns, "pods"),
        body: { ...pod("cf-pvc-user"), spec: { nodeName: `${ns}-pvc-node`, containers: [{ name: "c", image: "registry.example/app:1" }], volumes: [{ name: "d", persistentVolumeClaim: { claimName: "cf-pvc" } }] } },
        expect: { code: 201 },
      },
      {
        what: "delete: the finalizer keeps it (returned as the object)",
        method: "DELETE",
        path: core(ns, "persistentvolumeclaims", "cf-pvc"),
        expect: { code: 200, fields: { kind: "PersistentVolumeClaim", "metadata.deletionGracePeriodSeconds": 0, "metadata.finalizers": ["kubernetes.io/pvc-protection"] } },
      },
      { what: "still there", method: "GET", path: core(ns, "persistentvolumeclaims", "cf-pvc"), expect: { code: 200, patterns: { "metadata.deletionTimestamp": "Z$" } } },
      { what: "release it", method: "PATCH", path: core(ns, "persistentvolumeclaims", "cf-pvc"), contentType: JSON_PATCH, body: [{ op: "remove", path: "/metadata/finalizers" }], expect: { code: 200 } },
      { what: "gone", method: "GET", path: core(ns, "persistentvolumeclaims", "cf-pvc"), expect: { code: 404 } },
      { what: "remove the pod", method: "DELETE", path: `${core(ns, "pods", "cf-pvc-user")}?gracePeriodSeconds=0`, expect: { code: 200 } },
      { what: "remove the node", method: "DELETE", path: `/api/v1/nodes/${ns}-pvc-node`, expect: { code: 200 } },
    ],
  },
  {
    name: "lists: selectors and paging",
    steps: (ns): Step[] => [
      ...["1", "2", "3"].map((i) => ({
        what: `create cf-list-${i}`,
        method: "POST" as const,
        path: core(ns, "configmaps"),
        body: { metadata: { name: `cf-list-${i}`, labels: { "cf-list": i, tier: i === "2" ? "b" : "a" } } },
        expect: { code: 201 },
      })),
      {
        what: "a page of two",
        method: "GET",
        path: `${core(ns, "configmaps")}?labelSelector=cf-list&limit=2`,
        expect: {
          code: 200,
          fields: { kind: "ConfigMapList", apiVersion: "v1", "items.0.metadata.name": "cf-list-1", "items.1.metadata.name": "cf-list-2", "items.0.kind": ABSENT, "metadata.remainingItemCount": ABSENT },
          patterns: { "metadata.continue": "^[A-Za-z0-9_-]+$", "metadata.resourceVersion": "^[0-9]+$" },
        },
        save: { cont: "metadata.continue" },
      },
      {
        what: "the rest",
        method: "GET",
        path: `${core(ns, "configmaps")}?labelSelector=cf-list&limit=2&continue={{cont}}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-list-3", items: [PRESENT], "metadata.continue": ABSENT } },
      },
      {
        what: "set-based selector",
        method: "GET",
        path: `${core(ns, "configmaps")}?labelSelector=${encodeURIComponent("cf-list in (1,3),tier!=b")}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-list-1", "items.1.metadata.name": "cf-list-3", "items.2": ABSENT } },
      },
      {
        what: "notin and does-not-exist",
        method: "GET",
        path: `${core(ns, "configmaps")}?labelSelector=${encodeURIComponent("cf-list,tier notin (a),!nope")}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-list-2", "items.1": ABSENT } },
      },
      {
        what: "field selector on the name",
        method: "GET",
        path: `${core(ns, "configmaps")}?fieldSelector=${encodeURIComponent("metadata.name=cf-list-3")}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-list-3", "items.1": ABSENT } },
      },
      {
        what: "unsupported field selector",
        method: "GET",
        path: `${core(ns, "configmaps")}?fieldSelector=${encodeURIComponent("spec.x=1")}`,
        expect: { code: 400, reason: "BadRequest", message: '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"' },
      },
      {
        what: "unsupported field selector on a custom resource",
        method: "GET",
        path: `${ordinal(ns)}?fieldSelector=${encodeURIComponent("spec.x=1")}`,
        expect: { code: 400, reason: "BadRequest", message: "field label not supported: spec.x" },
      },
      {
        what: "label selector that does not parse",
        method: "GET",
        path: `${core(ns, "configmaps")}?labelSelector=${encodeURIComponent("a in (")}`,
        expect: { code: 400, reason: "BadRequest", message: "unable to parse requirement: found '', expected: ',', ')' or identifier" },
      },
      {
        what: "continue token that does not decode",
        method: "GET",
        path: `${core(ns, "configmaps")}?continue=garbage`,
        expect: { code: 400, reason: "BadRequest", messagePrefix: "invalid continue token: " },
      },
      {
        what: "custom resource lists carry kind on items and an empty continue",
        method: "POST",
        path: ordinal(ns),
        body: ordinalSet("cf-list", 0),
        expect: { code: 201 },
      },
      {
        what: "list them",
        method: "GET",
        path: `${ordinal(ns)}?fieldSelector=${encodeURIComponent("metadata.name=cf-list")}`,
        expect: { code: 200, fields: { kind: "StatefulSetList", "metadata.continue": "", "items.0.kind": "StatefulSet", "items.0.apiVersion": "apps.ordinal.dev/v1" } },
      },
      { what: "clean up", method: "DELETE", path: ordinal(ns, "cf-list"), expect: { code: 200 } },
      ...["1", "2", "3"].map((i) => ({ what: `delete cf-list-${i}`, method: "DELETE" as const, path: core(ns, "configmaps", `cf-list-${i}`), expect: { code: 200 } })),
    ],
  },
  {
    name: "dry run",
    steps: (ns): Step[] => [
      {
        what: "create with dryRun=All",
        method: "POST",
        path: `${core(ns, "configmaps")}?dryRun=All`,
        body: { metadata: { name: "cf-dry" } },
        expect: { code: 201, fields: { "metadata.resourceVersion": ABSENT, "metadata.name": "cf-dry" }, patterns: { "metadata.uid": "." } },
      },
      { what: "nothing stored", method: "GET", path: core(ns, "configmaps", "cf-dry"), expect: { code: 404 } },
      {
        what: "dryRun still validates",
        method: "POST",
        path: `${core(ns, "pods")}?dryRun=All`,
        body: { metadata: { name: "cf-dry" }, spec: {} },
        expect: { code: 422, message: 'Pod "cf-dry" is invalid: spec.containers: Required value' },
      },
      {
        what: "unknown dryRun value",
        method: "POST",
        path: `${core(ns, "configmaps")}?dryRun=Some`,
        body: { metadata: { name: "cf-dry" } },
        expect: { code: 422, message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"' },
      },
      { what: "create for real", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-dry" }, data: { a: "1" } }, expect: { code: 201 }, save: { rv: "metadata.resourceVersion" } },
      { what: "dry-run patch", method: "PATCH", path: `${core(ns, "configmaps", "cf-dry")}?dryRun=All`, contentType: MERGE, body: { data: { a: "2" } }, expect: { code: 200, fields: { "data.a": "2" } } },
      { what: "dry-run delete", method: "DELETE", path: `${core(ns, "configmaps", "cf-dry")}?dryRun=All`, expect: { code: 200, fields: { status: "Success" } } },
      { what: "unchanged", method: "GET", path: core(ns, "configmaps", "cf-dry"), expect: { code: 200, fields: { "data.a": "1", "metadata.resourceVersion": "{{rv}}" } } },
      { what: "clean up", method: "DELETE", path: core(ns, "configmaps", "cf-dry"), expect: { code: 200 } },
    ],
  },
  {
    name: "routing errors",
    steps: (ns): Step[] => [
      { what: "unknown resource", method: "GET", path: `/api/v1/namespaces/${ns}/widgets`, expect: { code: 404, reason: "NotFound", message: "the server could not find the requested resource", fields: { details: {} } } },
      {
        what: "PUT on a collection",
        method: "PUT",
        path: core(ns, "configmaps"),
        body: {},
        expect: { code: 405, reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource" },
      },
      { what: "readyz", method: "GET", path: "/readyz", expect: { code: 200 } },
    ],
  },
  {
    name: "leases and webhook configurations",
    steps: (ns): Step[] => [
      {
        what: "MicroTime keeps six digits, in UTC",
        method: "POST",
        path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
        body: { metadata: { name: "cf-lease" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: "2026-01-01T02:00:00.123456+02:00" } },
        expect: { code: 201, fields: { "spec.renewTime": "2026-01-01T00:00:00.123456Z" } },
      },
      {
        what: "MicroTime with three digits does not decode",
        method: "POST",
        path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
        body: { metadata: { name: "cf-lease2" }, spec: { renewTime: "2026-01-01T00:00:00.123Z" } },
        expect: { code: 400, reason: "BadRequest", messagePrefix: 'Lease in version "v1" cannot be handled as a Lease: ' },
      },
      {
        what: "webhook configuration: v1 validation",
        method: "POST",
        path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        body: { metadata: { name: `${ns}-hook` }, webhooks: [{ name: "x", clientConfig: { url: "http://a" } }] },
        expect: {
          code: 422,
          message: `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${ns}-hook" is invalid: [webhooks[0].name: Invalid value: "x": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path], webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]`,
        },
      },
      {
        what: "webhook configuration: defaults and generation",
        method: "POST",
        path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        body: { metadata: { name: `${ns}-hook` }, webhooks: [{ name: "a.example.com", clientConfig: { url: "https://a.example.com/x" }, sideEffects: "None", admissionReviewVersions: ["v1"] }] },
        expect: {
          code: 201,
          fields: {
            "metadata.generation": 1,
            "webhooks.0.failurePolicy": "Fail",
            "webhooks.0.matchPolicy": "Equivalent",
            "webhooks.0.timeoutSeconds": 10,
            "webhooks.0.reinvocationPolicy": "Never",
            "webhooks.0.namespaceSelector": {},
          },
        },
      },
      { what: "delete it", method: "DELETE", path: `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${ns}-hook`, expect: { code: 200 } },
    ],
  },
  {
    name: "secrets and services",
    steps: (ns): Step[] => [
      {
        what: "stringData is folded into data",
        method: "POST",
        path: core(ns, "secrets"),
        body: { metadata: { name: "cf-secret" }, stringData: { a: "héllo" } },
        expect: { code: 201, fields: { "data.a": "aMOpbGxv", stringData: ABSENT, type: "Opaque" } },
      },
      {
        what: "service names are DNS-1035 labels",
        method: "POST",
        path: core(ns, "services"),
        body: { metadata: { name: "1cf-svc" }, spec: { ports: [{ port: 80 }] } },
        expect: {
          code: 422,
          message:
            "Service \"1cf-svc\" is invalid: metadata.name: Invalid value: \"1cf-svc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        },
      },
      {
        what: "service defaults",
        method: "POST",
        path: core(ns, "services"),
        body: { metadata: { name: "cf-svc" }, spec: { ports: [{ port: 80 }] } },
        expect: { code: 201, fields: { "spec.type": "ClusterIP", "spec.sessionAffinity": "None", "spec.ports.0.protocol": "TCP", "spec.ports.0.targetPort": 80 }, patterns: { "spec.clusterIP": "^10\\.96\\." } },
      },
      { what: "delete the service", method: "DELETE", path: core(ns, "services", "cf-svc"), expect: { code: 200 } },
      { what: "delete the secret", method: "DELETE", path: core(ns, "secrets", "cf-secret"), expect: { code: 200, fields: { kind: "Status" } } },
    ],
  },
  {
    name: "garbage collection",
    steps: (ns): Step[] => [
      { what: "owner", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-owner" } }, expect: { code: 201 }, save: { uid: "metadata.uid" } },
      {
        what: "dependent",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-dependent", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cf-owner", uid: "{{uid}}" }] } },
        expect: { code: 201 },
      },
      { what: "delete the owner (background)", method: "DELETE", path: core(ns, "configmaps", "cf-owner"), expect: { code: 200 } },
      { what: "the dependent goes too", method: "GET", path: core(ns, "configmaps", "cf-dependent"), expect: { code: 404 }, eventually: true },
      { what: "owner 2", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-owner2" } }, expect: { code: 201 }, save: { uid2: "metadata.uid" } },
      {
        what: "dependent 2",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-dependent2", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cf-owner2", uid: "{{uid2}}" }] } },
        expect: { code: 201 },
      },
      {
        what: "delete owner 2 orphaning dependents",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-owner2"),
        body: { propagationPolicy: "Orphan" },
        expect: { code: 200, fields: { "metadata.finalizers": ["orphan"] } },
      },
      { what: "the dependent loses its owner reference", method: "GET", path: core(ns, "configmaps", "cf-dependent2"), expect: { code: 200, fields: { "metadata.ownerReferences": ABSENT } }, eventually: true },
      { what: "and the owner goes", method: "GET", path: core(ns, "configmaps", "cf-owner2"), expect: { code: 404 }, eventually: true },
      { what: "clean up", method: "DELETE", path: core(ns, "configmaps", "cf-dependent2"), expect: { code: 200 } },
    ],
  },
  {
    name: "namespace termination",
    steps: (ns): Step[] => [
      { what: "a namespace", method: "POST", path: "/api/v1/namespaces", body: { metadata: { name: `${ns}-t` } }, expect: { code: 201, fields: { "spec.finalizers": ["kubernetes"], "status.phase": "Active" } } },
      {
        what: "the main endpoint keeps spec.finalizers",
        method: "PUT",
        path: `/api/v1/namespaces/${ns}-t`,
        body: { metadata: { name: `${ns}-t`, labels: { x: "y" } }, spec: { finalizers: [] } },
        expect: { code: 200, fields: { "spec.finalizers": ["kubernetes"], "metadata.labels.x": "y" } },
      },
      { what: "with held content", method: "POST", path: core(`${ns}-t`, "configmaps"), body: { metadata: { name: "held", finalizers: ["example.com/hold"] } }, expect: { code: 201 } },
      {
        what: "delete it: Terminating",
        method: "DELETE",
        path: `/api/v1/namespaces/${ns}-t`,
        expect: { code: 200, fields: { kind: "Namespace", "status.phase": "Terminating" }, patterns: { "metadata.deletionTimestamp": "Z$" } },
      },
      {
        what: "no new content",
        method: "POST",
        path: core(`${ns}-t`, "configmaps"),
        body: { metadata: { name: "late" } },
        expect: {
          code: 403,
          reason: "Forbidden",
          message: `configmaps "late" is forbidden: unable to create new content in namespace ${ns}-t because it is being terminated`,
          fields: { "details.causes": [{ reason: "NamespaceTerminating", message: `namespace ${ns}-t is being terminated`, field: "metadata.namespace" }] },
        },
      },
      { what: "the held object is being deleted", method: "GET", path: core(`${ns}-t`, "configmaps", "held"), expect: { code: 200, patterns: { "metadata.deletionTimestamp": "Z$" } }, eventually: true },
      { what: "release it", method: "PATCH", path: core(`${ns}-t`, "configmaps", "held"), contentType: MERGE, body: { metadata: { finalizers: null } }, expect: { code: 200 } },
      { what: "the namespace goes", method: "GET", path: `/api/v1/namespaces/${ns}-t`, expect: { code: 404 }, eventually: true },
    ],
  },
  {
    name: "more garbage collection",
    steps: (ns): Step[] => [
      {
        what: "a dependent whose owner never existed",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-orphaned", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cf-ghost", uid: "11111111-1111-1111-1111-111111111111" }] } },
        expect: { code: 201 },
      },
      { what: "is collected", method: "GET", path: core(ns, "configmaps", "cf-orphaned"), expect: { code: 404 }, eventually: true },
      { what: "owner a", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-own-a" } }, expect: { code: 201 }, save: { a: "metadata.uid" } },
      { what: "owner b", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-own-b" } }, expect: { code: 201 }, save: { b: "metadata.uid" } },
      {
        what: "a dependent of both",
        method: "POST",
        path: core(ns, "configmaps"),
        body: {
          metadata: {
            name: "cf-two-owners",
            ownerReferences: [
              { apiVersion: "v1", kind: "ConfigMap", name: "cf-own-a", uid: "{{a}}" },
              { apiVersion: "v1", kind: "ConfigMap", name: "cf-own-b", uid: "{{b}}" },
            ],
          },
        },
        expect: { code: 201 },
      },
      { what: "delete owner a", method: "DELETE", path: core(ns, "configmaps", "cf-own-a"), expect: { code: 200 } },
      {
        what: "the dependent stays, with the reference to the gone owner removed",
        method: "GET",
        path: core(ns, "configmaps", "cf-two-owners"),
        expect: { code: 200, fields: { "metadata.ownerReferences.0.name": "cf-own-b", "metadata.ownerReferences.1": ABSENT } },
        eventually: true,
      },
      {
        what: "foreground deletion of owner b",
        method: "DELETE",
        path: core(ns, "configmaps", "cf-own-b"),
        body: { propagationPolicy: "Foreground" },
        expect: { code: 200, fields: { "metadata.finalizers": ["foregroundDeletion"] }, patterns: { "metadata.deletionTimestamp": "Z$" } },
      },
      { what: "takes the dependent", method: "GET", path: core(ns, "configmaps", "cf-two-owners"), expect: { code: 404 }, eventually: true },
      { what: "and then the owner", method: "GET", path: core(ns, "configmaps", "cf-own-b"), expect: { code: 404 }, eventually: true },
    ],
  },
  {
    name: "more validation",
    steps: (ns): Step[] => [
      {
        what: "invalid label key",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-lbl", labels: { "bad key": "v" } } },
        expect: {
          code: 422,
          message:
            "ConfigMap \"cf-lbl\" is invalid: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        },
      },
      {
        what: "unqualified finalizer on a built-in kind",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-fin2", finalizers: ["hold"] } },
        expect: { code: 422, message: 'ConfigMap "cf-fin2" is invalid: metadata.finalizers[0]: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified' },
      },
      {
        what: "bad config key",
        method: "POST",
        path: core(ns, "configmaps"),
        body: { metadata: { name: "cf-key" }, data: { "a b": "x" } },
        expect: {
          code: 422,
          message:
            "ConfigMap \"cf-key\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        },
      },
      {
        what: "secret data that is not base64",
        method: "POST",
        path: core(ns, "secrets"),
        body: { metadata: { name: "cf-b64" }, data: { a: "!!" } },
        expect: { code: 400, messagePrefix: 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 0' },
      },
      {
        what: "duplicate container names",
        method: "POST",
        path: core(ns, "pods"),
        body: { metadata: { name: "cf-dup" }, spec: { containers: [{ name: "c", image: "a" }, { name: "c", image: "b" }] } },
        expect: { code: 422, message: 'Pod "cf-dup" is invalid: spec.containers[1].name: Duplicate value: "c"' },
      },
      {
        what: "volume mount of an unknown volume",
        method: "POST",
        path: core(ns, "pods"),
        body: { metadata: { name: "cf-vm" }, spec: { containers: [{ name: "c", image: "a", volumeMounts: [{ name: "nope", mountPath: "/x" }] }] } },
        expect: { code: 422, message: 'Pod "cf-vm" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "nope"' },
      },
      {
        what: "custom resource: wrong type",
        method: "POST",
        path: ordinal(ns),
        body: { ...ordinalSet("cf-type"), spec: { ...ordinalSet("cf-type").spec, revisionHistoryLimit: "ten" } },
        expect: { code: 422, message: 'StatefulSet.apps.ordinal.dev "cf-type" is invalid: spec.revisionHistoryLimit: Invalid value: "string": spec.revisionHistoryLimit in body must be of type integer: "string"' },
      },
      {
        what: "custom resource: required field missing",
        method: "POST",
        path: ordinal(ns),
        body: { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", metadata: { name: "cf-req" }, spec: { selector: { matchLabels: { a: "b" } } } },
        expect: { code: 422, message: 'StatefulSet.apps.ordinal.dev "cf-req" is invalid: spec.template: Required value' },
      },
      {
        what: "scale to a negative number",
        method: "POST",
        path: ordinal(ns),
        body: ordinalSet("cf-negscale", 1),
        expect: { code: 201 },
      },
      {
        what: "scale to -1",
        method: "PUT",
        path: ordinal(ns, "cf-negscale", "scale"),
        body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "cf-negscale" }, spec: { replicas: -1 } },
        expect: {
          code: 422,
          message:
            'StatefulSet.apps.ordinal.dev "cf-negscale" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]',
        },
      },
      { what: "clean up", method: "DELETE", path: ordinal(ns, "cf-negscale"), expect: { code: 200 } },
      { what: "an immutable configmap", method: "POST", path: core(ns, "configmaps"), body: { metadata: { name: "cf-imm" }, data: { a: "1" }, immutable: true }, expect: { code: 201 } },
      {
        what: "cannot change its data",
        method: "PATCH",
        path: core(ns, "configmaps", "cf-imm"),
        contentType: MERGE,
        body: { data: { a: "2" } },
        expect: { code: 422, message: 'ConfigMap "cf-imm" is invalid: data: Forbidden: field is immutable when `immutable` is set' },
      },
      { what: "clean up", method: "DELETE", path: core(ns, "configmaps", "cf-imm"), expect: { code: 200 } },
    ],
  },
  {
    name: "more pods",
    steps: (ns): Step[] => [
      { what: "a node", method: "POST", path: "/api/v1/nodes", body: { metadata: { name: `${ns}-n2` } }, expect: { code: 201 } },
      {
        what: "a pod created already bound, with resources",
        method: "POST",
        path: core(ns, "pods"),
        body: {
          metadata: { name: "cf-res" },
          spec: { nodeName: `${ns}-n2`, terminationGracePeriodSeconds: 5, containers: [{ name: "c", image: "a:1", resources: { limits: { cpu: "0.5", memory: "1024Ki" } } }] },
        },
        expect: {
          code: 201,
          fields: {
            "spec.containers.0.resources": { limits: { cpu: "500m", memory: "1Mi" }, requests: { cpu: "500m", memory: "1Mi" } },
            "status.qosClass": "Guaranteed",
            "spec.containers.0.terminationMessagePolicy": "File",
          },
        },
      },
      {
        what: "pods by node (field selector)",
        method: "GET",
        path: `${core(ns, "pods")}?fieldSelector=${encodeURIComponent(`spec.nodeName=${ns}-n2`)}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-res", "items.1": ABSENT } },
      },
      {
        what: "unsupported pod field selector",
        method: "GET",
        path: `${core(ns, "pods")}?fieldSelector=${encodeURIComponent("spec.x=1")}`,
        expect: { code: 400, message: "field label not supported: spec.x" },
      },
      {
        what: "nodeName cannot change by update",
        method: "PATCH",
        path: core(ns, "pods", "cf-res"),
        contentType: MERGE,
        body: { spec: { nodeName: "elsewhere" } },
        expect: { code: 422, messagePrefix: 'Pod "cf-res" is invalid: spec: Forbidden: pod updates may not change fields other than ' },
      },
      {
        what: "a pod that succeeded is deleted at once",
        method: "PUT",
        path: `${core(ns, "pods", "cf-res")}/status`,
        body: { metadata: { name: "cf-res" }, status: { phase: "Succeeded" } },
        expect: { code: 200, fields: { "status.phase": "Succeeded" } },
      },
      { what: "delete", method: "DELETE", path: core(ns, "pods", "cf-res"), expect: { code: 200, fields: { "metadata.deletionGracePeriodSeconds": 0 } } },
      { what: "gone", method: "GET", path: core(ns, "pods", "cf-res"), expect: { code: 404 } },
      {
        what: "a scheduled pod deleted with a negative grace period goes at once (1.20 keeps the value)",
        method: "POST",
        path: core(ns, "pods"),
        body: { ...pod("cf-neg"), spec: { nodeName: `${ns}-n2`, containers: [{ name: "c", image: "a:1" }] } },
        expect: { code: 201 },
      },
      { what: "delete with -5", method: "DELETE", path: `${core(ns, "pods", "cf-neg")}?gracePeriodSeconds=-5`, expect: { code: 200, fields: { "metadata.deletionGracePeriodSeconds": -5 } } },
      { what: "gone", method: "GET", path: core(ns, "pods", "cf-neg"), expect: { code: 404 } },
      { what: "clean up", method: "DELETE", path: `/api/v1/nodes/${ns}-n2`, expect: { code: 200 } },
    ],
  },
  {
    name: "more lists and collections",
    steps: (ns): Step[] => [
      ...["1", "2", "3"].map((i) => ({
        what: `create cf-coll-${i}`,
        method: "POST" as const,
        path: core(ns, "serviceaccounts"),
        body: { metadata: { name: `cf-coll-${i}`, labels: { "cf-coll": "x" } } },
        expect: { code: 201 },
      })),
      {
        what: "remainingItemCount without selectors",
        method: "GET",
        path: `${core(ns, "serviceaccounts")}?limit=1`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-coll-1", "items.1": ABSENT }, patterns: { "metadata.continue": "." } },
      },
      {
        what: "delete the collection by label",
        method: "DELETE",
        path: `${core(ns, "serviceaccounts")}?labelSelector=cf-coll`,
        expect: { code: 200, fields: { kind: "ServiceAccountList", "items.2.metadata.name": "cf-coll-3", "items.3": ABSENT } },
      },
      { what: "none left", method: "GET", path: `${core(ns, "serviceaccounts")}?labelSelector=cf-coll`, expect: { code: 200, fields: { items: [] } } },
      {
        what: "events are created by PUT too",
        method: "PUT",
        path: core(ns, "events", "cf-ev"),
        body: { metadata: { name: "cf-ev" }, involvedObject: { kind: "Pod", name: "x", namespace: ns }, reason: "Test", message: "m", type: "Normal", firstTimestamp: "2026-01-01T00:00:00.5Z" },
        expect: { code: 201, fields: { firstTimestamp: "2026-01-01T00:00:00Z", "source": {} } },
      },
      {
        what: "events by reason",
        method: "GET",
        path: `${core(ns, "events")}?fieldSelector=${encodeURIComponent("reason=Test,involvedObject.name=x")}`,
        expect: { code: 200, fields: { "items.0.metadata.name": "cf-ev" } },
      },
      { what: "delete the event", method: "DELETE", path: core(ns, "events", "cf-ev"), expect: { code: 200, fields: { kind: "Status" } } },
    ],
  },
  {
    name: "apps/v1 status and strategic merge patch",
    steps: (ns): Step[] => {
      const set = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "cf-sts-s" },
        spec: {
          serviceName: "cf-sts-s",
          selector: { matchLabels: { app: "cf-sts-s" } },
          template: { metadata: { labels: { app: "cf-sts-s" } }, spec: { containers: [{ name: "c", image: "a:1", env: [{ name: "A", value: "1" }] }] } },
        },
      };
      const path = `/apis/apps/v1/namespaces/${ns}/statefulsets/cf-sts-s`;
      return [
        { what: "create", method: "POST", path: `/apis/apps/v1/namespaces/${ns}/statefulsets`, body: set, expect: { code: 201 } },
        {
          what: "status update ignores spec, keeps labels",
          method: "PATCH",
          path: `${path}/status`,
          contentType: MERGE,
          body: { metadata: { labels: { s: "1" } }, spec: { replicas: 5 }, status: { replicas: 1, readyReplicas: 1, observedGeneration: 1 } },
          expect: { code: 200, fields: { "spec.replicas": 1, "metadata.labels.s": "1", "status.readyReplicas": 1, "metadata.generation": 1 } },
        },
        {
          what: "strategic merge patch merges containers and env by name (new items first, as strategicpatch orders them)",
          method: "PATCH",
          path,
          contentType: SMP,
          body: { spec: { template: { spec: { containers: [{ name: "c", env: [{ name: "B", value: "2" }] }] } } } },
          expect: { code: 200, fields: { "spec.template.spec.containers.0.image": "a:1", "spec.template.spec.containers.0.env": [{ name: "B", value: "2" }, { name: "A", value: "1" }], "metadata.generation": 2 } },
        },
        {
          what: "$patch: delete removes a list element",
          method: "PATCH",
          path,
          contentType: SMP,
          body: { spec: { template: { spec: { containers: [{ name: "c", env: [{ name: "A", $patch: "delete" }] }] } } } },
          expect: { code: 200, fields: { "spec.template.spec.containers.0.env": [{ name: "B", value: "2" }] } },
        },
        { what: "delete", method: "DELETE", path, expect: { code: 200 } },
      ];
    },
  },
];

// ---- replaying ---------------------------------------------------------------------------------

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ReplayOptions {
  fetch: FetchLike;
  /** e.g. https://127.0.0.1:26443 */
  baseUrl: string;
  namespace: string;
  /** extra headers (Authorization) */
  headers?: Record<string, string>;
  /** how long `eventually` steps retry (default 60 s) */
  eventuallyMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** fieldAt reads a dotted path; numbers index arrays. */
function fieldAt(body: unknown, path: string): unknown {
  let cur: unknown = body;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function substitute<T>(v: T, vars: Record<string, string>): T {
  if (typeof v === "string") return v.replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? `{{${k}}}`) as T;
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars)) as T;
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, vars)])) as T;
  return v;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** checkResponse lists how a response differs from an expectation (empty: it matches). */
function checkResponse(expect: Expect, code: number, body: unknown): string[] {
  const problems: string[] = [];
  const status = body as { reason?: string; message?: string } | undefined;
  if (code !== expect.code) problems.push(`code ${code}, want ${expect.code}`);
  if (expect.reason !== undefined && status?.reason !== expect.reason) problems.push(`reason ${JSON.stringify(status?.reason)}, want ${JSON.stringify(expect.reason)}`);
  if (expect.message !== undefined && status?.message !== expect.message) problems.push(`message ${JSON.stringify(status?.message)}, want ${JSON.stringify(expect.message)}`);
  if (expect.messagePrefix !== undefined && !String(status?.message ?? "").startsWith(expect.messagePrefix)) {
    problems.push(`message ${JSON.stringify(status?.message)}, want prefix ${JSON.stringify(expect.messagePrefix)}`);
  }
  for (const [path, want] of Object.entries(expect.fields ?? {})) {
    const got = fieldAt(body, path);
    if (want === ABSENT) {
      if (got !== undefined) problems.push(`${path} = ${JSON.stringify(got)}, want absent`);
    } else if (want === PRESENT) {
      if (got === undefined) problems.push(`${path} absent, want present`);
    } else if (Array.isArray(want) && want.includes(PRESENT)) {
      if (!Array.isArray(got) || got.length !== want.length) problems.push(`${path} = ${JSON.stringify(got)}, want ${want.length} items`);
    } else if (!same(got, want)) {
      problems.push(`${path} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
  }
  for (const [path, re] of Object.entries(expect.patterns ?? {})) {
    const got = fieldAt(body, path);
    if (typeof got !== "string" || !new RegExp(re).test(got)) problems.push(`${path} = ${JSON.stringify(got)}, want /${re}/`);
  }
  return problems;
}

/** replayCase runs one case against an apiserver; it returns the mismatches (empty: conformant). */
export async function replayCase(c: ConformanceCase, o: ReplayOptions): Promise<string[]> {
  const vars: Record<string, string> = {};
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const failures: string[] = [];
  for (const raw of c.steps(o.namespace)) {
    const step = substitute(raw, vars);
    const headers: Record<string, string> = { Accept: "application/json", ...o.headers };
    let body: string | undefined;
    if (step.rawBody !== undefined || step.body !== undefined) {
      headers["Content-Type"] = step.contentType ?? (step.method === "PATCH" ? MERGE : "application/json");
      body = step.rawBody ?? JSON.stringify(step.body);
    }
    const deadline = Date.now() + (step.eventually ? (o.eventuallyMs ?? 60_000) : 0);
    let problems: string[];
    let parsed: unknown;
    for (;;) {
      const res = await o.fetch(o.baseUrl + step.path, { method: step.method, headers, body });
      const text = await res.text();
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      problems = checkResponse(step.expect, res.status, parsed);
      if (problems.length === 0 || Date.now() >= deadline) break;
      await sleep(250);
    }
    if (problems.length > 0) {
      failures.push(`${c.name} / ${step.what}: ${step.method} ${step.path}: ${problems.join("; ")}`);
      break;
    }
    for (const [k, path] of Object.entries(step.save ?? {})) vars[k] = String(fieldAt(parsed, path));
  }
  return failures;
}
