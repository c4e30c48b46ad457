// validatePodCreate: the apiserver's pod create validation, after v1 defaulting, with upstream's
// exact paths and messages.
import { describe, expect, it } from "vitest";
import { validatePodCreate } from "../../src/validation/index.ts";
import { type Raw, messages, validPod, with_ } from "./helpers.ts";

const pod = (edit: (p: Raw) => void) => with_(validPod, edit);
const c0 = (p: Raw) => p.spec.containers[0];

const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe("validatePodCreate", () => {
  it("admits a minimal pod (defaults fill the rest)", () => {
    expect(validatePodCreate(validPod())).toEqual([]);
  });

  const cases: Array<[string, (p: Raw) => void, string[]]> = [
    ["name not a subdomain", (p) => (p.metadata.name = "Web_0"), [
      `metadata.name: Invalid value: "Web_0": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]],
    ["no containers", (p) => (p.spec.containers = []), ["spec.containers: Required value"]],
    ["container name", (p) => (c0(p).name = "Bad_Name"), [`spec.containers[0].name: Invalid value: "Bad_Name": ${DNS_LABEL}`]],
    ["container name missing", (p) => delete c0(p).name, ["spec.containers[0].name: Required value"]],
    ["duplicate container", (p) => p.spec.containers.push({ name: "nginx", image: "busybox" }), [`spec.containers[1].name: Duplicate value: "nginx"`]],
    [
      "init container named like a container",
      (p) => (p.spec.initContainers = [{ name: "nginx", image: "busybox" }]),
      [`spec.initContainers[0].name: Duplicate value: "nginx"`],
    ],
    ["image missing", (p) => (c0(p).image = ""), ["spec.containers[0].image: Required value"]],
    ["image with spaces around", (p) => (c0(p).image = " nginx "), [`spec.containers[0].image: Invalid value: " nginx ": must not have leading or trailing whitespace`]],
    ["containerPort 0", (p) => (c0(p).ports = [{ containerPort: 0 }]), ["spec.containers[0].ports[0].containerPort: Required value"]],
    [
      "containerPort out of range",
      (p) => (c0(p).ports = [{ containerPort: 70000 }]),
      ["spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"],
    ],
    [
      "hostPort out of range",
      (p) => (c0(p).ports = [{ containerPort: 80, hostPort: -1 }]),
      ["spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"],
    ],
    [
      "port name too long and with capitals",
      (p) => (c0(p).ports = [{ containerPort: 80, name: "Very-Long-Port-Name" }]),
      [
        `spec.containers[0].ports[0].name: Invalid value: "Very-Long-Port-Name": must be no more than 15 characters`,
        `spec.containers[0].ports[0].name: Invalid value: "Very-Long-Port-Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
      ],
    ],
    [
      "duplicate port name",
      (p) => (c0(p).ports = [{ containerPort: 80, name: "http" }, { containerPort: 81, name: "http" }]),
      [`spec.containers[0].ports[1].name: Duplicate value: "http"`],
    ],
    [
      "protocol",
      (p) => (c0(p).ports = [{ containerPort: 80, protocol: "HTTP" }]),
      [`spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`],
    ],
    [
      "host port used twice",
      (p) => p.spec.containers.push({ name: "b", image: "busybox", ports: [{ containerPort: 81, hostPort: 8080 }] }, { name: "c", image: "busybox", ports: [{ containerPort: 82, hostPort: 8080 }] }),
      [`spec.containers[2].ports[0].hostPort: Duplicate value: "TCP//8080"`],
    ],
    ["volume name", (p) => (p.spec.volumes = [{ name: "Data", emptyDir: {} }]), [`spec.volumes[0].name: Invalid value: "Data": ${DNS_LABEL}`]],
    ["duplicate volume", (p) => (p.spec.volumes = [{ name: "a", emptyDir: {} }, { name: "a", emptyDir: {} }]), [`spec.volumes[1].name: Duplicate value: "a"`]],
    [
      "two volume sources",
      (p) => (p.spec.volumes = [{ name: "a", emptyDir: {}, configMap: { name: "c" } }]),
      ["spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type"],
    ],
    [
      "downwardAPI as second source (upstream's path spelling)",
      (p) => (p.spec.volumes = [{ name: "a", secret: { secretName: "s" }, downwardAPI: {} }]),
      ["spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type"],
    ],
    ["configMap without name", (p) => (p.spec.volumes = [{ name: "a", configMap: {} }]), ["spec.volumes[0].configMap.name: Required value"]],
    ["secret without name", (p) => (p.spec.volumes = [{ name: "a", secret: {} }]), ["spec.volumes[0].secret.secretName: Required value"]],
    [
      "secret mode",
      (p) => (p.spec.volumes = [{ name: "a", secret: { secretName: "s", defaultMode: 1024 } }]),
      ["spec.volumes[0].secret.defaultMode: Invalid value: 1024: must be a number between 0 and 0777 (octal), both inclusive"],
    ],
    ["pvc without claimName", (p) => (p.spec.volumes = [{ name: "a", persistentVolumeClaim: {} }]), ["spec.volumes[0].persistentVolumeClaim.claimName: Required value"]],
    [
      "hostPath type",
      (p) => (p.spec.volumes = [{ name: "a", hostPath: { path: "/x", type: "Dir" } }]),
      [`spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`],
    ],
    ["nfs relative path", (p) => (p.spec.volumes = [{ name: "a", nfs: { server: "s", path: "x" } }]), [`spec.volumes[0].nfs.path: Invalid value: "x": must be an absolute path`]],
    ["mount of unknown volume", (p) => (c0(p).volumeMounts = [{ name: "x", mountPath: "/x" }]), [`spec.containers[0].volumeMounts[0].name: Not found: "x"`]],
    [
      "mount without path",
      (p) => ((p.spec.volumes = [{ name: "a", emptyDir: {} }]), (c0(p).volumeMounts = [{ name: "a" }])),
      ["spec.containers[0].volumeMounts[0].mountPath: Required value"],
    ],
    [
      "mountPath twice",
      (p) => ((p.spec.volumes = [{ name: "a", emptyDir: {} }]), (c0(p).volumeMounts = [{ name: "a", mountPath: "/a" }, { name: "a", mountPath: "/a" }])),
      [`spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique`],
    ],
    [
      "absolute subPath (reported without index, as upstream)",
      (p) => ((p.spec.volumes = [{ name: "a", emptyDir: {} }]), (c0(p).volumeMounts = [{ name: "a", mountPath: "/a", subPath: "/etc" }])),
      [`spec.containers[0].volumeMounts.subPath: Invalid value: "/etc": must be a relative path`],
    ],
    [
      "subPath with ..",
      (p) => ((p.spec.volumes = [{ name: "a", emptyDir: {} }]), (c0(p).volumeMounts = [{ name: "a", mountPath: "/a", subPath: "x/../y" }])),
      [`spec.containers[0].volumeMounts.subPath: Invalid value: "x/../y": must not contain '..'`],
    ],
    [
      "request above limit",
      (p) => (c0(p).resources = { requests: { cpu: "2", memory: "1Gi" }, limits: { cpu: "1500m", memory: "1024Mi" } }),
      [`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m`],
    ],
    [
      "unparsable quantity",
      (p) => (c0(p).resources = { limits: { memory: "1 GB" } }),
      [
        `spec.containers[0].resources.limits[memory]: Invalid value: "1 GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
        `spec.containers[0].resources.requests[memory]: Invalid value: "1 GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ],
    ],
    [
      "negative quantity",
      (p) => (c0(p).resources = { requests: { cpu: "-1" } }),
      [`spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`],
    ],
    [
      "unknown resource name",
      (p) => (c0(p).resources = { requests: { gpu: "1" } }),
      [
        `spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified`,
        `spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers`,
      ],
    ],
    [
      "extended resource request without limit",
      (p) => (c0(p).resources = { requests: { "example.com/gpu": "1" } }),
      ["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"],
    ],
    [
      "extended resource fraction",
      (p) => (c0(p).resources = { limits: { "example.com/gpu": "500m" } }),
      [
        `spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer`,
        `spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer`,
      ],
    ],
    ["env name missing", (p) => (c0(p).env = [{ value: "x" }]), ["spec.containers[0].env[0].name: Required value"]],
    [
      "env name with = (current upstream's relaxed rule)",
      (p) => (c0(p).env = [{ name: "A=B" }, { name: "1.ok-now" }]),
      [`spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`],
    ],
    [
      "envFrom prefix",
      (p) => (c0(p).envFrom = [{ prefix: "X=", configMapRef: { name: "c" } }]),
      [`spec.containers[0].envFrom[0].prefix: Invalid value: "X=": a valid environment variable name must consist only of printable ASCII characters other than '='`],
    ],
    [
      "envFrom without source",
      (p) => (c0(p).envFrom = [{ prefix: "X_" }]),
      ['spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`'],
    ],
    [
      "valueFrom with two sources",
      (p) => (c0(p).env = [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" }, secretKeyRef: { name: "s", key: "k" } } }]),
      ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'],
    ],
    [
      "valueFrom with no source",
      (p) => (c0(p).env = [{ name: "A", valueFrom: {} }]),
      ['spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'],
    ],
    [
      "valueFrom next to value",
      (p) => (c0(p).env = [{ name: "A", value: "x", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }]),
      ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'],
    ],
    [
      "fieldRef path",
      (p) => (c0(p).env = [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.labels" } } }]),
      [
        `spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
      ],
    ],
    [
      "probe without handler",
      (p) => (c0(p).readinessProbe = { periodSeconds: 5 }),
      ["spec.containers[0].readinessProbe: Required value: must specify a handler type"],
    ],
    [
      "probe with two handlers",
      (p) => (c0(p).livenessProbe = { exec: { command: ["true"] }, tcpSocket: { port: 80 } }),
      ["spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"],
    ],
    [
      "probe timings",
      (p) => (c0(p).readinessProbe = { tcpSocket: { port: 80 }, periodSeconds: -1, initialDelaySeconds: -2 }),
      [
        "spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -2: must be greater than or equal to 0",
        "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
      ],
    ],
    [
      "liveness successThreshold",
      (p) => (c0(p).livenessProbe = { httpGet: { port: "http" }, successThreshold: 2 }),
      ["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"],
    ],
    [
      "startup successThreshold",
      (p) => (c0(p).startupProbe = { grpc: { port: 9000 }, successThreshold: 3 }),
      ["spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1"],
    ],
    [
      "probe port name that is a number in a string",
      (p) => (c0(p).readinessProbe = { httpGet: { port: "8080" } }),
      [`spec.containers[0].readinessProbe.httpGet.port: Invalid value: "8080": must contain at least one letter (a-z)`],
    ],
    [
      "probe on a plain init container",
      (p) => (p.spec.initContainers = [{ name: "init", image: "busybox", readinessProbe: { exec: { command: ["true"] } } }]),
      ["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"],
    ],
    [
      "restartPolicy",
      (p) => (p.spec.restartPolicy = "Sometimes"),
      [`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`],
    ],
    [
      "dnsPolicy",
      (p) => (p.spec.dnsPolicy = "Google"),
      [`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`],
    ],
    ["dnsPolicy None without config", (p) => (p.spec.dnsPolicy = "None"), ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"]],
    [
      "imagePullPolicy",
      (p) => (c0(p).imagePullPolicy = "Sometimes"),
      [`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`],
    ],
    ["hostname", (p) => (p.spec.hostname = "web_0"), [`spec.hostname: Invalid value: "web_0": ${DNS_LABEL}`]],
    ["subdomain", (p) => (p.spec.subdomain = "a.b"), [`spec.subdomain: Invalid value: "a.b": must not contain dots`]],
    [
      "readiness gate",
      (p) => (p.spec.readinessGates = [{ conditionType: "a/b/c" }]),
      [
        `spec.readinessGates[0].conditionType: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
    ],
    ["runAsUser", (p) => (c0(p).securityContext = { runAsUser: -1 }), ["spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive"]],
    ["pod runAsGroup", (p) => (p.spec.securityContext = { runAsGroup: -5 }), ["spec.securityContext.runAsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive"]],
    ["fsGroup", (p) => (p.spec.securityContext = { fsGroup: 2 ** 31 }), ["spec.securityContext.fsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive"]],
    [
      "privileged without privilege escalation",
      (p) => (c0(p).securityContext = { privileged: true, allowPrivilegeEscalation: false }),
      ['spec.containers[0].securityContext: Invalid value: {"privileged":true,"allowPrivilegeEscalation":false}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true'],
    ],
    ["negative activeDeadlineSeconds", (p) => (p.spec.activeDeadlineSeconds = 0), ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]],
    ["ephemeral containers on create", (p) => (p.spec.ephemeralContainers = [{ name: "debug", image: "busybox" }]), ["spec.ephemeralContainers: Forbidden: cannot be set on create"]],
    [
      "toleration without key and operator",
      (p) => (p.spec.tolerations = [{ value: "x" }]),
      [`spec.tolerations[0].operator: Invalid value: "": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`],
    ],
  ];
  for (const [name, edit, expected] of cases) it(name, () => expect(messages(validatePodCreate(pod(edit)))).toEqual(expected));

  it("defaults a volume with no source to emptyDir, as the apiserver does", () => {
    expect(validatePodCreate(pod((p) => (p.spec.volumes = [{ name: "scratch" }])))).toEqual([]);
  });

  // Found by the real-apiserver oracle (test/e2e/validation-oracle.e2e.test.ts).
  it("defaults fieldRef.apiVersion in downward API volume files, plain and projected", () => {
    const items = [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }];
    const p = pod((p) => {
      p.spec.volumes = [
        { name: "podinfo", downwardAPI: { items } },
        { name: "all", projected: { sources: [{ downwardAPI: { items } }] } },
      ];
      c0(p).volumeMounts = [
        { name: "podinfo", mountPath: "/etc/podinfo" },
        { name: "all", mountPath: "/etc/all" },
      ];
    });
    expect(validatePodCreate(p)).toEqual([]);
  });

  it("checks huge page values for being a multiple of the page size in limits only", () => {
    const requests = pod((p) => (c0(p).resources = { requests: { "hugepages-2Mi": "1Mi", memory: "1Gi" }, limits: { memory: "1Gi" } }));
    expect(messages(validatePodCreate(requests))).toEqual(["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"]);
    const limits = pod((p) => (c0(p).resources = { limits: { "hugepages-2Mi": "3Mi", memory: "1Gi" } }));
    // The request defaults to the limit and is not checked again.
    expect(messages(validatePodCreate(limits))).toEqual([
      `spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
    ]);
  });

  it("checks privileged containers against the cluster policy when told", () => {
    const p = pod((p) => (c0(p).securityContext = { privileged: true }));
    expect(validatePodCreate(p)).toEqual([]);
    expect(messages(validatePodCreate(p, { allowPrivileged: false }))).toEqual(["spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy"]);
  });

  it("reports wrong types and never throws", () => {
    expect(messages(validatePodCreate(pod((p) => (p.spec.containers = [{ name: 7, image: "x" }]))))).toEqual([
      `spec.containers[0].name: Invalid value: "integer": spec.containers[0].name in body must be of type string: "integer"`,
    ]);
    for (const bad of [null, 1, "pod", [], { spec: 3 }, { spec: { containers: [null, 1, "x"] } }, { spec: { volumes: "v", containers: [{ name: "a", image: "b", ports: "p" }] } }])
      expect(() => validatePodCreate(bad)).not.toThrow();
  });
});
