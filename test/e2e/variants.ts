/**
 * Variants of a valid Ordinal StatefulSet for the differential test against the real apiserver
 * (validation-oracle.e2e.test.ts, issue 4): a rich valid base set, hand-written mutations covering
 * every rule family of issue 4 item 2 (plus the set-level rules and a few valid edge cases), the
 * upstream corpus manifests, and randomized variants from a seeded generator that combine one to
 * three mutations (hand-written ones and parametric ones that draw their values from pools).
 *
 * Every variant names itself; a mutation never throws on a set another mutation already changed
 * (accessors fall back to throw-away objects), so any combination is a variant.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { mulberry32, pick, type Random } from "../../src/sim/fake-apiserver/random.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Raw = any;

type Family =
  | "valid"
  | "containers"
  | "container-names"
  | "image"
  | "ports"
  | "volumes"
  | "volume-mounts"
  | "resources"
  | "env"
  | "probes"
  | "security-context"
  | "pvc"
  | "set-name"
  | "service-name"
  | "pod-spec"
  | "set-level"
  | "corpus"
  | "random";

interface Mutation {
  name: string;
  family: Family;
  apply: (s: Raw) => void;
  /** false: not picked by the random generator (it would mask whatever it is combined with). */
  composable?: boolean;
}

export interface Variant {
  name: string;
  family: Family;
  set: Raw;
}

/** The valid base set: two claim templates, init container, two containers, ports, probes, resources, env, volumes, security contexts. */
export function baseSet(): Raw {
  return {
    apiVersion: "apps.ordinal.dev/v1",
    kind: "StatefulSet",
    metadata: { name: "web", labels: { app: "web" } },
    spec: {
      replicas: 3,
      serviceName: "web",
      selector: { matchLabels: { app: "web" } },
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, podUpdatePolicy: "InPlaceIfPossible" } },
      template: {
        metadata: { labels: { app: "web", tier: "frontend" }, annotations: { "example.com/owner": "team-web" } },
        spec: {
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          nodeSelector: { "kubernetes.io/os": "linux" },
          tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
          securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000, supplementalGroups: [3000], seccompProfile: { type: "RuntimeDefault" } },
          initContainers: [
            {
              name: "init",
              image: "busybox:1.36",
              command: ["sh", "-c", "cp /config/* /work/ || true"],
              volumeMounts: [{ name: "config", mountPath: "/config" }],
              resources: { requests: { cpu: "10m", memory: "16Mi" } },
            },
          ],
          containers: [
            {
              name: "nginx",
              image: "nginx:1.25",
              imagePullPolicy: "IfNotPresent",
              ports: [
                { name: "web", containerPort: 80, protocol: "TCP" },
                { name: "metrics", containerPort: 9113 },
              ],
              env: [
                { name: "MODE", value: "production" },
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "CPU_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "1m" } } },
                { name: "API_KEY", valueFrom: { secretKeyRef: { name: "web-secrets", key: "api-key", optional: true } } },
              ],
              envFrom: [{ prefix: "CFG_", configMapRef: { name: "web-config" } }],
              resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } },
              volumeMounts: [
                { name: "www", mountPath: "/usr/share/nginx/html" },
                { name: "logs", mountPath: "/var/log/nginx" },
                { name: "config", mountPath: "/etc/nginx/conf.d", readOnly: true },
                { name: "cache", mountPath: "/var/cache/nginx", subPath: "nginx" },
                { name: "podinfo", mountPath: "/etc/podinfo", readOnly: true },
              ],
              livenessProbe: { httpGet: { path: "/healthz", port: "web" }, initialDelaySeconds: 5, periodSeconds: 10 },
              readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5, successThreshold: 2 },
              startupProbe: { exec: { command: ["cat", "/tmp/started"] }, periodSeconds: 2, failureThreshold: 30 },
              lifecycle: { preStop: { exec: { command: ["nginx", "-s", "quit"] } } },
              securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } },
            },
            {
              name: "sidecar",
              image: "registry.example.com/tools/log-shipper@sha256:" + "a".repeat(64),
              args: ["--path=/logs"],
              volumeMounts: [{ name: "logs", mountPath: "/logs", readOnly: true }, { name: "tls", mountPath: "/tls" }],
              resources: { limits: { cpu: "100m", memory: "32Mi" } },
            },
          ],
          volumes: [
            { name: "config", configMap: { name: "web-config", items: [{ key: "default.conf", path: "default.conf" }] } },
            { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
            { name: "tls", secret: { secretName: "web-tls", defaultMode: 0o400 } },
            { name: "podinfo", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
          ],
        },
      },
      volumeClaimTemplates: [
        { metadata: { name: "www", labels: { purpose: "content" } }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
        { metadata: { name: "logs" }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: "standard", resources: { requests: { storage: "500Mi" } } } },
      ],
    },
  };
}

// --- accessors that never throw -------------------------------------------------------------

const T = (s: Raw): Raw => s.spec?.template?.spec ?? {};
/** C returns container i (a throw-away object when there is none). */
const C = (s: Raw, i = 0): Raw => T(s).containers?.[i] ?? {};
const I = (s: Raw, i = 0): Raw => T(s).initContainers?.[i] ?? {};
const VOL = (s: Raw, name: string): Raw => (Array.isArray(T(s).volumes) ? T(s).volumes.find((v: Raw) => v?.name === name) : undefined) ?? {};
const CT = (s: Raw, i = 0): Raw => s.spec?.volumeClaimTemplates?.[i] ?? { metadata: {}, spec: {} };
/** list returns obj[key] as an array, creating it when missing. */
const list = (obj: Raw, key: string): Raw[] => {
  if (!Array.isArray(obj[key])) obj[key] = [];
  return obj[key];
};
const at = (arr: Raw[] | undefined, i: number): Raw => arr?.[i] ?? {};
const sub = (obj: Raw, key: string): Raw => {
  if (typeof obj[key] !== "object" || obj[key] === null) obj[key] = {};
  return obj[key];
};

const m = (family: Family, name: string, apply: (s: Raw) => void, composable = true): Mutation => ({ name, family, apply, composable });

/** The hand-written mutations. */
const MUTATIONS: Mutation[] = [
  // valid edge cases: must be admitted by both
  m("valid", "base", () => {}),
  m("valid", "volume-without-source-defaults-to-emptyDir", (s) => list(T(s), "volumes").push({ name: "scratch" })),
  m("valid", "template-volume-shadowed-by-claim", (s) => list(T(s), "volumes").push({ name: "www", hostPath: { path: "/srv/www" } })),
  m("valid", "image-with-space-passes-the-apiserver", (s) => (C(s).image = "nginx 1.25")),
  m("valid", "limits-only-requests-default", (s) => (C(s).resources = { limits: { cpu: "1", memory: "1Gi" } })),
  m("valid", "service-name-empty", (s) => (s.spec.serviceName = "")),
  m("valid", "set-name-61-characters", (s) => (s.metadata.name = "w" + "e".repeat(60))),
  m("valid", "ordinals-start-5", (s) => (s.spec.ordinals = { start: 5 })),
  m("valid", "no-claim-templates", (s) => {
    delete s.spec.volumeClaimTemplates;
    list(T(s), "volumes").push({ name: "www", emptyDir: {} }, { name: "logs", emptyDir: {} });
  }),
  m("valid", "mount-path-relative", (s) => (at(C(s).volumeMounts, 0).mountPath = "html")),

  // containers required
  m("containers", "containers-empty", (s) => (T(s).containers = []), false),
  m("containers", "containers-missing", (s) => delete T(s).containers, false),

  // container and init-container names
  m("container-names", "container-name-Bad_Name", (s) => (C(s).name = "Bad_Name")),
  m("container-names", "container-name-empty", (s) => (C(s).name = "")),
  m("container-names", "container-name-64-characters", (s) => (C(s).name = "n".repeat(64))),
  m("container-names", "container-name-leading-dash", (s) => (C(s, 1).name = "-sidecar")),
  m("container-names", "container-names-duplicate", (s) => (C(s, 1).name = "nginx")),
  m("container-names", "init-container-name-duplicates-container", (s) => (I(s).name = "sidecar")),
  m("container-names", "init-container-name-with-dot", (s) => (I(s).name = "init.1")),
  m("container-names", "init-container-names-duplicate", (s) => list(T(s), "initContainers").push({ name: "init", image: "busybox:1.36" })),

  // image required
  m("image", "image-empty", (s) => (C(s).image = "")),
  m("image", "image-missing", (s) => delete C(s, 1).image),
  m("image", "init-image-empty", (s) => (I(s).image = "")),
  m("image", "image-leading-space", (s) => (C(s).image = " nginx:1.25")),

  // ports
  m("ports", "container-port-70000", (s) => (at(C(s).ports, 0).containerPort = 70000)),
  m("ports", "container-port-0", (s) => (at(C(s).ports, 1).containerPort = 0)),
  m("ports", "container-port-negative", (s) => (at(C(s).ports, 0).containerPort = -1)),
  m("ports", "host-port-70000", (s) => (at(C(s).ports, 0).hostPort = 70000)),
  m("ports", "port-names-duplicate", (s) => (at(C(s).ports, 1).name = "web")),
  m("ports", "port-name-invalid", (s) => (at(C(s).ports, 0).name = "Web_Port")),
  m("ports", "port-name-16-characters", (s) => (at(C(s).ports, 0).name = "abcdefghijklmnop")),
  m("ports", "port-name-digits-only", (s) => (at(C(s).ports, 1).name = "9113")),
  m("ports", "port-protocol-HTTP", (s) => (at(C(s).ports, 0).protocol = "HTTP")),
  m("ports", "port-protocol-lower-case", (s) => (at(C(s).ports, 1).protocol = "udp")),
  m("ports", "host-ports-duplicate", (s) => {
    at(C(s).ports, 0).hostPort = 8080;
    list(C(s, 1), "ports").push({ containerPort: 8081, hostPort: 8080 });
  }),
  m("ports", "host-network-host-port-mismatch", (s) => {
    T(s).hostNetwork = true;
    at(C(s).ports, 0).hostPort = 8080;
  }),

  // volume names and sources
  m("volumes", "volume-name-invalid", (s) => (VOL(s, "config").name = "Config_Vol")),
  m("volumes", "volume-name-empty", (s) => (VOL(s, "cache").name = "")),
  m("volumes", "volume-names-duplicate", (s) => (VOL(s, "cache").name = "config")),
  m("volumes", "volume-two-sources", (s) => (VOL(s, "config").emptyDir = {})),
  m("volumes", "volume-configMap-without-name", (s) => (VOL(s, "config").configMap = {})),
  m("volumes", "volume-secret-without-secretName", (s) => (VOL(s, "tls").secret = { defaultMode: 0o400 })),
  m("volumes", "volume-secret-defaultMode-01000", (s) => (VOL(s, "tls").secret = { secretName: "web-tls", defaultMode: 0o1000 })),
  m("volumes", "volume-hostPath-with-backsteps", (s) => list(T(s), "volumes").push({ name: "host", hostPath: { path: "/srv/../etc" } })),
  m("volumes", "volume-hostPath-type-invalid", (s) => list(T(s), "volumes").push({ name: "host", hostPath: { path: "/srv", type: "Folder" } })),
  m("volumes", "volume-emptyDir-sizeLimit-negative", (s) => (VOL(s, "cache").emptyDir = { sizeLimit: "-1Gi" })),
  m("volumes", "volume-pvc-without-claimName", (s) => list(T(s), "volumes").push({ name: "shared", persistentVolumeClaim: { claimName: "" } })),
  m("volumes", "volume-downwardAPI-bad-fieldPath", (s) => (VOL(s, "podinfo").downwardAPI = { items: [{ path: "x", fieldRef: { fieldPath: "spec.nodeName" } }] })),
  m("volumes", "volume-configMap-item-path-absolute", (s) => (VOL(s, "config").configMap = { name: "web-config", items: [{ key: "k", path: "/abs" }] })),

  // volumeMounts
  m("volume-mounts", "mount-of-unknown-volume", (s) => list(C(s), "volumeMounts").push({ name: "missing", mountPath: "/missing" })),
  m("volume-mounts", "init-mount-of-unknown-volume", (s) => list(I(s), "volumeMounts").push({ name: "missing", mountPath: "/missing" })),
  m("volume-mounts", "mount-path-empty", (s) => (at(C(s).volumeMounts, 2).mountPath = "")),
  m("volume-mounts", "mount-paths-duplicate", (s) => (at(C(s).volumeMounts, 1).mountPath = "/usr/share/nginx/html")),
  m("volume-mounts", "mount-name-empty", (s) => (at(C(s, 1).volumeMounts, 0).name = "")),
  m("volume-mounts", "mount-subPath-with-backsteps", (s) => (at(C(s).volumeMounts, 3).subPath = "../nginx")),
  m("volume-mounts", "mount-subPath-absolute", (s) => (at(C(s).volumeMounts, 3).subPath = "/nginx")),
  m("volume-mounts", "mount-propagation-invalid", (s) => (at(C(s).volumeMounts, 0).mountPropagation = "Shared")),
  m("volume-mounts", "mount-propagation-bidirectional-unprivileged", (s) => (at(C(s).volumeMounts, 0).mountPropagation = "Bidirectional")),
  m("volume-mounts", "mount-of-renamed-claim", (s) => (CT(s, 0).metadata.name = "content")),

  // resources
  m("resources", "cpu-request-above-limit", (s) => (C(s).resources = { requests: { cpu: "2" }, limits: { cpu: "1" } })),
  m("resources", "memory-request-above-limit", (s) => (C(s).resources = { requests: { memory: "1Gi" }, limits: { memory: "512Mi" } })),
  m("resources", "cpu-request-negative", (s) => (sub(sub(C(s), "resources"), "requests").cpu = "-100m")),
  m("resources", "cpu-limit-unparsable", (s) => (sub(sub(C(s), "resources"), "limits").cpu = "lots")),
  m("resources", "resource-name-not-standard", (s) => (sub(sub(C(s), "resources"), "requests").gpu = "1")),
  m("resources", "extended-resource-fractional-without-limit", (s) => (sub(sub(C(s), "resources"), "requests")["example.com/fpga"] = "500m")),
  m("resources", "hugepages-without-cpu-or-memory", (s) => (C(s, 1).resources = { limits: { "hugepages-2Mi": "4Mi" } })),
  m("resources", "hugepages-limit-not-a-page-multiple", (s) => (C(s, 1).resources = { limits: { "hugepages-2Mi": "3Mi", memory: "64Mi" } })),
  m("resources", "init-memory-request-above-limit", (s) => (I(s).resources = { requests: { memory: "2Gi" }, limits: { memory: "1Gi" } })),

  // env and envFrom
  m("env", "env-name-with-equals", (s) => (at(C(s).env, 0).name = "A=B")),
  m("env", "env-name-empty", (s) => (at(C(s).env, 0).name = "")),
  m("env", "env-name-leading-digit", (s) => (at(C(s).env, 0).name = "1ST_MODE")),
  m("env", "env-valueFrom-two-sources", (s) => (at(C(s).env, 1).valueFrom.configMapKeyRef = { name: "web-config", key: "mode" })),
  m("env", "env-value-and-valueFrom", (s) => (at(C(s).env, 1).value = "web-0")),
  m("env", "env-valueFrom-empty", (s) => (at(C(s).env, 1).valueFrom = {})),
  m("env", "env-fieldRef-unsupported-path", (s) => (at(C(s).env, 1).valueFrom = { fieldRef: { fieldPath: "spec.containers" } })),
  m("env", "env-secretKeyRef-without-key", (s) => (at(C(s).env, 3).valueFrom = { secretKeyRef: { name: "web-secrets" } })),
  m("env", "env-resourceFieldRef-unsupported", (s) => (at(C(s).env, 2).valueFrom = { resourceFieldRef: { resource: "limits.gpu" } })),
  m("env", "envFrom-without-source", (s) => (C(s).envFrom = [{ prefix: "CFG_" }])),
  m("env", "envFrom-two-sources", (s) => (at(C(s).envFrom, 0).secretRef = { name: "web-secrets" })),
  m("env", "envFrom-prefix-with-equals", (s) => (at(C(s).envFrom, 0).prefix = "CFG=")),
  m("env", "envFrom-configMapRef-name-invalid", (s) => (at(C(s).envFrom, 0).configMapRef = { name: "Web_Config" })),

  // probes and lifecycle
  m("probes", "probe-without-handler", (s) => (C(s).livenessProbe = { periodSeconds: 10 })),
  m("probes", "probe-two-handlers", (s) => (sub(C(s), "readinessProbe").exec = { command: ["true"] })),
  m("probes", "probe-period-negative", (s) => (sub(C(s), "readinessProbe").periodSeconds = -1)),
  m("probes", "probe-timeout-negative", (s) => (sub(C(s), "livenessProbe").timeoutSeconds = -5)),
  m("probes", "probe-initialDelay-negative", (s) => (sub(C(s), "startupProbe").initialDelaySeconds = -1)),
  m("probes", "liveness-successThreshold-2", (s) => (sub(C(s), "livenessProbe").successThreshold = 2)),
  m("probes", "probe-httpGet-port-70000", (s) => (C(s).livenessProbe = { httpGet: { path: "/", port: 70000 } })),
  m("probes", "probe-httpGet-port-name-invalid", (s) => (C(s).livenessProbe = { httpGet: { path: "/", port: "Web_Port" } })),
  m("probes", "probe-httpGet-scheme-invalid", (s) => (C(s).livenessProbe = { httpGet: { path: "/", port: 80, scheme: "FTP" } })),
  m("probes", "probe-exec-without-command", (s) => (C(s).startupProbe = { exec: { command: [] } })),
  m("probes", "lifecycle-preStop-without-handler", (s) => (C(s).lifecycle = { preStop: {} })),

  // securityContext basics
  m("security-context", "pod-runAsUser-negative", (s) => (sub(T(s), "securityContext").runAsUser = -1)),
  m("security-context", "pod-fsGroup-negative", (s) => (sub(T(s), "securityContext").fsGroup = -2)),
  m("security-context", "pod-supplementalGroup-negative", (s) => (sub(T(s), "securityContext").supplementalGroups = [1, -1])),
  m("security-context", "pod-sysctl-name-invalid", (s) => (sub(T(s), "securityContext").sysctls = [{ name: "net/ipv4/../x", value: "1" }])),
  m("security-context", "pod-fsGroupChangePolicy-invalid", (s) => (sub(T(s), "securityContext").fsGroupChangePolicy = "Sometimes")),
  m("security-context", "pod-seccomp-type-invalid", (s) => (sub(T(s), "securityContext").seccompProfile = { type: "Strict" })),
  m("security-context", "container-runAsUser-negative", (s) => (sub(C(s), "securityContext").runAsUser = -1)),
  m("security-context", "container-privileged-without-escalation", (s) => (sub(C(s), "securityContext").privileged = true)),
  m("security-context", "container-CAP_SYS_ADMIN-without-escalation", (s) => list(sub(sub(C(s), "securityContext"), "capabilities"), "add").push("CAP_SYS_ADMIN")),
  m("security-context", "container-seccomp-localhost-without-profile", (s) => (sub(C(s, 1), "securityContext").seccompProfile = { type: "Localhost" })),
  m("security-context", "container-seccomp-localhost-profile-with-backsteps", (s) => (sub(C(s), "securityContext").seccompProfile = { type: "Localhost", localhostProfile: "../x.json" })),
  m("security-context", "container-procMount-invalid", (s) => (sub(C(s, 1), "securityContext").procMount = "Masked")),

  // PVC: accessModes, storage, name and the rest of the claim
  m("pvc", "claim-without-accessModes", (s) => delete CT(s, 0).spec.accessModes),
  m("pvc", "claim-accessModes-empty", (s) => (CT(s, 1).spec.accessModes = [])),
  m("pvc", "claim-accessMode-invalid", (s) => (CT(s, 0).spec.accessModes = ["ReadWriteOnce", "ReadWriteSometimes"])),
  m("pvc", "claim-accessMode-ReadWriteOncePod", (s) => (CT(s, 0).spec.accessModes = ["ReadWriteOncePod"])),
  m("pvc", "claim-without-storage-request", (s) => (CT(s, 0).spec.resources = { requests: {} })),
  m("pvc", "claim-without-resources", (s) => delete CT(s, 1).spec.resources),
  m("pvc", "claim-storage-zero", (s) => (CT(s, 0).spec.resources = { requests: { storage: "0" } })),
  m("pvc", "claim-storage-unparsable", (s) => (CT(s, 1).spec.resources = { requests: { storage: "big" } })),
  m("pvc", "claim-name-invalid", (s) => (CT(s, 1).metadata.name = "Logs_Vol")),
  m("pvc", "claim-name-250-characters", (s) => (CT(s, 1).metadata.name = "l".repeat(250))),
  m("pvc", "claim-names-duplicate", (s) => (CT(s, 1).metadata.name = "www")),
  m("pvc", "claim-storageClassName-invalid", (s) => (CT(s, 1).spec.storageClassName = "Fast_SSD")),
  m("pvc", "claim-volumeMode-invalid", (s) => (CT(s, 0).spec.volumeMode = "Raw")),
  m("pvc", "claim-selector-invalid", (s) => (CT(s, 0).spec.selector = { matchExpressions: [{ key: "tier", operator: "In" }] })),
  m("pvc", "claim-label-invalid", (s) => (CT(s, 0).metadata.labels = { purpose: "web content" })),
  m("pvc", "claim-dataSource-without-name", (s) => (CT(s, 0).spec.dataSource = { kind: "PersistentVolumeClaim", name: "" })),

  // the set's name becomes the pods' hostname
  m("set-name", "set-name-62-characters", (s) => (s.metadata.name = "w" + "e".repeat(61)), false),
  m("set-name", "set-name-61-characters-11-replicas", (s) => {
    s.metadata.name = "w" + "e".repeat(60);
    s.spec.replicas = 11;
  }, false),
  m("set-name", "set-name-with-dot", (s) => (s.metadata.name = "web.v1"), false),
  m("set-name", "set-name-64-characters", (s) => (s.metadata.name = "w" + "e".repeat(63)), false),
  m("set-name", "set-name-upper-case", (s) => (s.metadata.name = "Web")),

  // serviceName becomes the pods' subdomain
  m("service-name", "service-name-invalid", (s) => (s.spec.serviceName = "Web_Svc")),

  // other pod-spec rules
  m("pod-spec", "dnsPolicy-invalid", (s) => (T(s).dnsPolicy = "Sometimes")),
  m("pod-spec", "dnsPolicy-None-without-dnsConfig", (s) => (T(s).dnsPolicy = "None")),
  m("pod-spec", "toleration-operator-invalid", (s) => (at(T(s).tolerations, 0).operator = "Like")),
  m("pod-spec", "nodeSelector-key-invalid", (s) => (sub(T(s), "nodeSelector")["bad key"] = "x")),
  m("pod-spec", "hostAliases-ip-invalid", (s) => (T(s).hostAliases = [{ ip: "300.1.1.1", hostnames: ["db"] }])),
  m("pod-spec", "imagePullPolicy-invalid", (s) => (C(s).imagePullPolicy = "Sometimes")),
  m("pod-spec", "terminationMessagePolicy-invalid", (s) => (C(s, 1).terminationMessagePolicy = "Logs")),
  m("pod-spec", "readinessGate-conditionType-invalid", (s) => (T(s).readinessGates = [{ conditionType: "not valid!" }])),

  // the apiserver's own StatefulSet rules (also compared against apps/v1 admission)
  m("set-level", "selector-does-not-match-labels", (s) => (s.spec.template.metadata.labels = { app: "other" })),
  m("set-level", "replicas-negative", (s) => (s.spec.replicas = -1)),
  m("set-level", "podManagementPolicy-invalid", (s) => (s.spec.podManagementPolicy = "Sometimes")),
  m("set-level", "restartPolicy-Never", (s) => (T(s).restartPolicy = "Never")),
  m("set-level", "restartPolicy-OnFailure", (s) => (T(s).restartPolicy = "OnFailure")),
  m("set-level", "activeDeadlineSeconds-set", (s) => (T(s).activeDeadlineSeconds = 30)),
  m("set-level", "partition-negative", (s) => (s.spec.updateStrategy.rollingUpdate.partition = -1)),
  m("set-level", "updateStrategy-type-invalid", (s) => (s.spec.updateStrategy.type = "Rolling")),
  m("set-level", "template-label-key-invalid", (s) => (s.spec.template.metadata.labels["bad key"] = "x")),
];

// --- the upstream corpus ----------------------------------------------------------------------

const corpusDir = fileURLToPath(new URL("../validation/corpus/", import.meta.url));

/** The StatefulSet documents of test/validation/corpus, converted to apps.ordinal.dev/v1. */
export function corpusSets(): Array<{ file: string; set: Raw }> {
  const out: Array<{ file: string; set: Raw }> = [];
  for (const file of readdirSync(corpusDir).filter((f) => f.endsWith(".yaml")).sort())
    for (const doc of parseAllDocuments(readFileSync(corpusDir + file, "utf8"))) {
      const obj = doc.toJS() as Raw;
      if (obj?.kind === "StatefulSet") out.push({ file, set: { ...obj, apiVersion: "apps.ordinal.dev/v1" } });
    }
  return out;
}

// --- the seeded generator ---------------------------------------------------------------------

type Rng = Random;

// Pools of values on which 1.20 and current upstream agree (no relaxed env names, no ReadWriteOncePod).
const NAMES = ["a", "web", "nginx", "sidecar", "init", "Bad_Name", "-x", "x-", "a.b", "n".repeat(63), "n".repeat(64), "", "config", "www"];
const PORTS = [1, 80, 9113, 65535, 65536, 0, -5, 70000];
const PORT_NAMES = ["http", "web", "metrics", "Http", "a-b", "a--b", "-ab", "1234", "abcdefghijklmno", "abcdefghijklmnop", ""];
const PROTOCOLS = ["TCP", "UDP", "SCTP", "tcp", "HTTP", ""];
const QUANTITIES = ["1", "100m", "0", "-1", "2Gi", "1.5", "1e3", "1Mi", "0.5Gi", "3", "64Mi", "abc", "1Qi"];
const HUGE_PAGE_QUANTITIES = ["2Mi", "4Mi", "0", "-2Mi", "10Mi"];
const RESOURCES = ["cpu", "memory", "ephemeral-storage", "gpu", "example.com/fpga", "hugepages-2Mi", "storage"];
const MOUNT_PATHS = ["/data", "", "/usr/share/nginx/html", "/etc/nginx/conf.d", "/x/../y", "rel"];
const SUB_PATHS = ["a", "a/b", "../a", "/abs", "a/../../b", ""];
const VOLUME_NAMES = ["config", "cache", "tls", "podinfo", "www", "logs", "Bad_Vol", "", "v".repeat(64), "extra"];
const ENV_NAMES = ["A", "a.b", "a-b", "_x", "A=B", "", "MODE", "x.y-z_1"];
const ACCESS_MODES = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWrite", "rwo"];
const STORAGE = ["1Gi", "0", "-1Gi", "1", "10Ti", "500Mi", "huge"];
const PROBE_INTS = [0, 1, 3, -1, -10];
const PROBE_FIELDS = ["periodSeconds", "timeoutSeconds", "initialDelaySeconds", "successThreshold", "failureThreshold"];
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"];
const IDS = [0, 1000, -1, 2147483647];
const HANDLERS: Raw[] = [
  { exec: { command: ["true"] } },
  { exec: { command: [] } },
  { httpGet: { path: "/", port: 80 } },
  { httpGet: { port: "web" } },
  { httpGet: { path: "/", port: "No_Such" } },
  { tcpSocket: { port: 0 } },
  { tcpSocket: { port: "metrics" } },
  {},
];

const VOLUME_SOURCES: Raw[] = [
  { emptyDir: {} },
  { emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
  { hostPath: { path: "" } },
  { hostPath: { path: "/run/x.sock", type: "Socket" } },
  { secret: { secretName: "s", items: [{ key: "", path: "p" }] } },
  { secret: { secretName: "s", items: [{ key: "k", path: "a/../../p" }], defaultMode: 0o777 } },
  { configMap: { name: "c", items: [{ key: "k", path: "..data" }] } },
  { configMap: { name: "c", optional: true, items: [{ key: "k", path: "p", mode: -1 }] } },
  { nfs: { server: "", path: "rel" } },
  { nfs: { server: "nfs.example.com", path: "/exports" } },
  { persistentVolumeClaim: { claimName: "shared", readOnly: true } },
  { downwardAPI: { items: [{ path: "cpu", resourceFieldRef: { resource: "limits.cpu" } }] } },
  { downwardAPI: { items: [{ path: "cpu", resourceFieldRef: { containerName: "nginx", resource: "limits.cpu" } }] } },
  { downwardAPI: { items: [{ path: "x", fieldRef: { fieldPath: "metadata.name" }, resourceFieldRef: { containerName: "nginx", resource: "limits.cpu" } }] } },
  { projected: { sources: [{ secret: { name: "s", items: [{ key: "k", path: "p" }] } }, { configMap: { name: "c", items: [{ key: "k", path: "p" }] } }] } },
  { projected: { sources: [{ secret: { name: "s" }, configMap: { name: "c" } }] } },
  { projected: { sources: [{ downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } }] } },
  { gitRepo: { repository: "" } },
  { gitRepo: { repository: "https://example.com/r.git", directory: "../x" } },
  { csi: { driver: "Bad_Driver" } },
  { csi: { driver: "csi.example.com", volumeAttributes: { a: "b" } } },
];
const CAPABILITIES = ["NET_ADMIN", "CAP_SYS_ADMIN", "SYS_TIME", "all", ""];
// (A Localhost profile with backsteps is a hand-written exception: 1.20 also refuses the seccomp annotation it syncs.)
const SECCOMP: Raw[] = [{ type: "RuntimeDefault" }, { type: "Localhost", localhostProfile: "profiles/x.json" }, { type: "Localhost" }, { type: "Unconfined", localhostProfile: "x" }, { type: "" }];
const TOLERATIONS: Raw[] = [
  { operator: "Exists" },
  { key: "k", operator: "Exists", value: "v" },
  { key: "k", operator: "Equal", value: "v", effect: "NoExecute", tolerationSeconds: 60 },
  { key: "k", operator: "Equal", value: "v", effect: "NoSchedule", tolerationSeconds: 60 },
  { key: "k", effect: "Sometimes" },
  { key: "bad key", operator: "Exists" },
  { key: "", operator: "Equal", value: "v" },
];
const DNS_CONFIGS: Raw[] = [
  { nameservers: ["1.1.1.1"], searches: ["svc.cluster.local"] },
  { nameservers: ["not-an-ip"] },
  { searches: ["Bad_Domain"] },
  { options: [{ name: "" }] },
  { nameservers: ["1.1.1.1", "8.8.8.8", "9.9.9.9", "1.0.0.1"] },
];
const LABEL_KEYS = ["tier", "example.com/role", "bad key", "a".repeat(64), "-x", "example.com/", "app.kubernetes.io/name"];
const LABEL_VALUES = ["frontend", "", "a b", "v".repeat(64), "-x", "ok_1.2"];
// (Names that are DNS subdomains but not labels, like "web.v1" or 64 characters, are hand-written: 1.20 admits them as apps/v1 names.)
const SET_NAMES = ["web", "w".repeat(60), "w".repeat(62), "Web", "web-", "w1", "WEB_1"];
const SERVICE_NAMES = ["web", "", "Web_Svc", "web.svc", "s".repeat(63), "s".repeat(64)];

/** Parametric mutations: each call draws its target and value from the pools. */
const PARAMETRIC: Array<(rng: Rng) => Mutation> = [
  (rng) => {
    const i = Math.floor(rng() * 5);
    const src = structuredClone(pick(rng, VOLUME_SOURCES));
    return m("random", `volumes[${i}] source=${JSON.stringify(src)}`, (s) => {
      const vols = list(T(s), "volumes");
      vols[i] = { name: vols[i]?.name ?? `extra-${i}`, ...src };
    });
  },
  (rng) => {
    const k = Math.floor(rng() * 2);
    const sc: Raw = {};
    if (rng() < 0.5) sc.capabilities = { add: [pick(rng, CAPABILITIES)], drop: [pick(rng, CAPABILITIES)] };
    if (rng() < 0.3) sc.privileged = rng() < 0.5;
    if (rng() < 0.3) sc.allowPrivilegeEscalation = rng() < 0.5;
    if (rng() < 0.3) sc.readOnlyRootFilesystem = true;
    if (rng() < 0.3) sc.runAsNonRoot = rng() < 0.5;
    return m("random", `containers[${k}].securityContext=${JSON.stringify(sc)}`, (s) => (C(s, k).securityContext = sc));
  },
  (rng) => {
    // Pod level only: 1.20 copies a container's seccompProfile into an annotation keyed by the
    // container's name, which a bad container name then makes invalid (a 1.20-only error).
    const profile = structuredClone(pick(rng, SECCOMP));
    return m("random", `pod seccompProfile=${JSON.stringify(profile)}`, (s) => (sub(T(s), "securityContext").seccompProfile = profile));
  },
  (rng) => {
    const t = structuredClone(pick(rng, TOLERATIONS));
    return m("random", `tolerations+=${JSON.stringify(t)}`, (s) => list(T(s), "tolerations").push(t));
  },
  (rng) => {
    const dc = structuredClone(pick(rng, DNS_CONFIGS));
    const policy = pick(rng, ["ClusterFirst", "None", "Default"]);
    return m("random", `dnsPolicy=${policy} dnsConfig=${JSON.stringify(dc)}`, (s) => {
      T(s).dnsPolicy = policy;
      T(s).dnsConfig = dc;
    });
  },
  (rng) => {
    const key = pick(rng, LABEL_KEYS);
    const value = pick(rng, LABEL_VALUES);
    const where = pick(rng, ["template labels", "template annotations", "claim labels", "claim annotations"]);
    return m("random", `${where}[${JSON.stringify(key)}]=${JSON.stringify(value)}`, (s) => {
      if (where === "template labels") sub(s.spec.template.metadata, "labels")[key] = value;
      else if (where === "template annotations") sub(s.spec.template.metadata, "annotations")[key] = value;
      else if (where === "claim labels") sub(CT(s, 0).metadata, "labels")[key] = value;
      else sub(CT(s, 1).metadata, "annotations")[key] = value;
    });
  },
  (rng) => {
    const name = pick(rng, SET_NAMES);
    return m("random", `metadata.name=${JSON.stringify(name)}`, (s) => (s.metadata.name = name));
  },
  (rng) => {
    const name = pick(rng, SERVICE_NAMES);
    return m("random", `serviceName=${JSON.stringify(name)}`, (s) => (s.spec.serviceName = name));
  },
  (rng) => {
    const hook = pick(rng, ["postStart", "preStop"]);
    const handler = structuredClone(pick(rng, HANDLERS));
    return m("random", `containers[0].lifecycle.${hook}=${JSON.stringify(handler)}`, (s) => (sub(C(s), "lifecycle")[hook] = handler));
  },
  (rng) => {
    const i = Math.floor(rng() * 2);
    const sel: Raw = pick(rng, [
      { matchLabels: { disk: "ssd" } },
      { matchLabels: { "bad key": "x" } },
      { matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] },
      { matchExpressions: [{ key: "disk", operator: "Exists", values: ["ssd"] }] },
      { matchExpressions: [{ key: "disk", operator: "Near", values: ["ssd"] }] },
    ]);
    return m("random", `volumeClaimTemplates[${i}].selector=${JSON.stringify(sel)}`, (s) => (CT(s, i).spec.selector = structuredClone(sel)));
  },
  (rng) => {
    const k = Math.floor(rng() * 3);
    const name = pick(rng, NAMES);
    return m("random", `container[${k}].name=${JSON.stringify(name)}`, (s) => ((k === 2 ? I(s) : C(s, k)).name = name));
  },
  (rng) => {
    const i = Math.floor(rng() * 3);
    const port = { containerPort: pick(rng, PORTS), name: pick(rng, PORT_NAMES), protocol: pick(rng, PROTOCOLS) };
    return m("random", `containers[0].ports[${i}]=${JSON.stringify(port)}`, (s) => (list(C(s), "ports")[i] = port));
  },
  (rng) => {
    const where = pick(rng, ["requests", "limits"]);
    const res = pick(rng, RESOURCES);
    // Huge pages: multiples of the page size (1.20 does not check divisibility, current upstream does; see the exceptions).
    const q = res.startsWith("hugepages-") ? pick(rng, HUGE_PAGE_QUANTITIES) : pick(rng, QUANTITIES);
    const k = Math.floor(rng() * 2);
    return m("random", `containers[${k}].resources.${where}[${res}]=${q}`, (s) => (sub(sub(C(s, k), "resources"), where)[res] = q));
  },
  (rng) => {
    const i = Math.floor(rng() * 6);
    const mount: Raw = { name: pick(rng, VOLUME_NAMES), mountPath: pick(rng, MOUNT_PATHS) };
    if (rng() < 0.4) mount.subPath = pick(rng, SUB_PATHS);
    return m("random", `containers[0].volumeMounts[${i}]=${JSON.stringify(mount)}`, (s) => (list(C(s), "volumeMounts")[i] = mount));
  },
  (rng) => {
    const i = Math.floor(rng() * 5);
    const name = pick(rng, VOLUME_NAMES);
    return m("random", `volumes[${i}].name=${JSON.stringify(name)}`, (s) => {
      const vols = list(T(s), "volumes");
      if (vols[i]) vols[i].name = name;
      else vols.push({ name, emptyDir: {} });
    });
  },
  (rng) => {
    const i = Math.floor(rng() * 5);
    const ev: Raw = { name: pick(rng, ENV_NAMES) };
    const r = rng();
    if (r < 0.5) ev.value = "v";
    else if (r < 0.8) ev.valueFrom = { fieldRef: { fieldPath: pick(rng, ["metadata.name", "status.podIP", "spec.foo", "metadata.labels['app']"]) } };
    else ev.valueFrom = { configMapKeyRef: { name: pick(rng, ["cm", "Bad_CM", ""]), key: pick(rng, ["k", "", "a/b"]) } };
    return m("random", `containers[0].env[${i}]=${JSON.stringify(ev)}`, (s) => (list(C(s), "env")[i] = ev));
  },
  (rng) => {
    const probe = pick(rng, PROBES);
    const field = pick(rng, PROBE_FIELDS);
    const value = pick(rng, PROBE_INTS);
    return m("random", `containers[0].${probe}.${field}=${value}`, (s) => (sub(C(s), probe)[field] = value));
  },
  (rng) => {
    const probe = pick(rng, PROBES);
    const handler = structuredClone(pick(rng, HANDLERS));
    return m("random", `containers[0].${probe}=${JSON.stringify(handler)}`, (s) => (C(s)[probe] = { ...handler, periodSeconds: 5 }));
  },
  (rng) => {
    const f = pick(rng, ["runAsUser", "runAsGroup", "fsGroup"]);
    const id = pick(rng, IDS);
    const pod = rng() < 0.5;
    return m("random", `${pod ? "pod" : "containers[0]"}.securityContext.${f}=${id}`, (s) => {
      if (pod) sub(T(s), "securityContext")[f] = id;
      else if (f !== "fsGroup") sub(C(s), "securityContext")[f] = id;
    });
  },
  (rng) => {
    const i = Math.floor(rng() * 2);
    const modes = rng() < 0.2 ? [] : [pick(rng, ACCESS_MODES), ...(rng() < 0.3 ? [pick(rng, ACCESS_MODES)] : [])];
    return m("random", `volumeClaimTemplates[${i}].accessModes=${JSON.stringify(modes)}`, (s) => (CT(s, i).spec.accessModes = modes));
  },
  (rng) => {
    const i = Math.floor(rng() * 2);
    const q = pick(rng, STORAGE);
    return m("random", `volumeClaimTemplates[${i}].storage=${q}`, (s) => (CT(s, i).spec.resources = { requests: { storage: q } }));
  },
  (rng) => {
    const i = Math.floor(rng() * 2);
    const name = pick(rng, ["data", "www", "logs", "Data", "d".repeat(63), "d".repeat(64), "a.b", "-d"]);
    return m("random", `volumeClaimTemplates[${i}].name=${JSON.stringify(name)}`, (s) => (CT(s, i).metadata.name = name));
  },
  (rng) => {
    const k = Math.floor(rng() * 3);
    const policy = pick(rng, ["Always", "IfNotPresent", "Never", "Sometimes", ""]);
    return m("random", `${k === 2 ? "initContainers[0]" : `containers[${k}]`}.imagePullPolicy=${JSON.stringify(policy)}`, (s) => ((k === 2 ? I(s) : C(s, k)).imagePullPolicy = policy));
  },
];

/**
 * randomVariants returns `count` variants of the base set, each combining 1–3 mutations drawn with
 * `seed`: hand-written composable ones (except those named in `exclude`) and parametric ones.
 */
function randomVariants(seed: number, count: number, exclude: ReadonlySet<string> = new Set()): Variant[] {
  const rng = mulberry32(seed);
  const handWritten = MUTATIONS.filter((x) => x.composable !== false && x.family !== "valid" && !exclude.has(x.name));
  const randomMutation = (): Mutation => (rng() < 0.5 ? pick(rng, handWritten) : pick(rng, PARAMETRIC)(rng));
  const out: Variant[] = [];
  for (let k = 0; k < count; k++) {
    const n = 1 + Math.floor(rng() * 3);
    const muts = Array.from({ length: n }, () => randomMutation());
    const set = baseSet();
    for (const mu of muts) mu.apply(set);
    out.push({ name: `random#${k}: ${muts.map((x) => x.name).join(" + ")}`, family: "random", set });
  }
  return out;
}

/** handWrittenVariants: one variant per hand-written mutation, applied to a fresh base set. */
function handWrittenVariants(): Variant[] {
  return MUTATIONS.map((mu) => {
    const set = baseSet();
    mu.apply(set);
    return { name: mu.name, family: mu.family, set };
  });
}

/** corpusVariants: the upstream manifests, which must be admitted. */
function corpusVariants(): Variant[] {
  return corpusSets().map(({ file, set }) => ({ name: `corpus:${file}:${set.metadata?.name}`, family: "corpus", set }));
}

/** allVariants: hand-written, corpus and `randomCount` random variants from `seed` (never combining the mutations in `exclude`). */
export function allVariants(seed: number, randomCount: number, exclude: ReadonlySet<string> = new Set()): Variant[] {
  return [...handWrittenVariants(), ...corpusVariants(), ...randomVariants(seed, randomCount, exclude)];
}

// --- the twelve templates of issue 4 ("Why") for kubectl apply ----------------------------------

/** The twelve templates issue 4 lists as admitted by upstream and failing at pod/PVC creation, with the field path each must be refused at. */
export const TWELVE: Array<{ name: string; apply: (s: Raw) => void; field: string }> = [
  { name: "no containers", apply: (s) => (T(s).containers = []), field: "spec.template.spec.containers" },
  { name: "container named Bad_Name", apply: (s) => (C(s).name = "Bad_Name"), field: "spec.template.spec.containers[0].name" },
  { name: "duplicate container names", apply: (s) => (C(s, 1).name = "nginx"), field: "spec.template.spec.containers[1].name" },
  { name: "empty image", apply: (s) => (C(s).image = ""), field: "spec.template.spec.containers[0].image" },
  { name: "port 70000", apply: (s) => (at(C(s).ports, 0).containerPort = 70000), field: "spec.template.spec.containers[0].ports[0].containerPort" },
  {
    name: "volumeMount of an unknown volume",
    apply: (s) => list(C(s), "volumeMounts").push({ name: "missing", mountPath: "/missing" }),
    field: "spec.template.spec.containers[0].volumeMounts[5].name",
  },
  { name: "invalid claim template name", apply: (s) => (CT(s, 1).metadata.name = "Logs_Vol"), field: "spec.volumeClaimTemplates[1].metadata.name" },
  { name: "claim template without accessModes", apply: (s) => delete CT(s, 0).spec.accessModes, field: "spec.volumeClaimTemplates[0].spec.accessModes" },
  {
    name: "claim template without a storage request",
    apply: (s) => (CT(s, 0).spec.resources = { requests: {} }),
    field: "spec.volumeClaimTemplates[0].spec.resources[storage]",
  },
  { name: "duplicate volume names", apply: (s) => (VOL(s, "cache").name = "config"), field: "spec.template.spec.volumes[1].name" },
  {
    name: "cpu request above limit",
    apply: (s) => (C(s).resources = { requests: { cpu: "2" }, limits: { cpu: "1" } }),
    field: "spec.template.spec.containers[0].resources.requests",
  },
  { name: "invalid env var name", apply: (s) => (at(C(s).env, 0).name = "A=B"), field: "spec.template.spec.containers[0].env[0].name" },
];
