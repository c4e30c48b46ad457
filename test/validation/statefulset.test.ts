// validateStatefulSet: the apiserver's StatefulSet rules with their exact messages, Ordinal's own
// rules, the apply-time pod/PVC checks (issue 4), update rules, warnings, and that malformed input
// never throws. FC_SEED=<n> replays the randomized part.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcRuns } from "../support/random.ts";
import { MAX_REPLICAS, StatefulSetSchema } from "../../src/api/statefulset.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { FORBIDDEN_UPDATE_MESSAGE, formatFieldError, validatePodCreate, validateStatefulSet } from "../../src/validation/index.ts";
import { type Raw, messages, pairs, validSet, with_ } from "./helpers.ts";

const ordinal = { group: "apps.ordinal.dev" } as const;
const apps = { group: "apps" } as const;
const set = (edit: (s: Raw) => void) => with_(validSet, edit);
const create = (s: Raw, opts: Parameters<typeof validateStatefulSet>[2] = ordinal) => validateStatefulSet(s, undefined, opts);

const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const PERCENT =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

describe("validateStatefulSet", () => {
  it("admits a valid set in both groups, without warnings", () => {
    expect(create(validSet())).toEqual({ errors: [], warnings: [] });
    expect(create(with_(validSet, (s) => (s.apiVersion = "apps/v1")), apps)).toEqual({ errors: [], warnings: [] });
  });

  // Every rule of ValidateStatefulSet / ValidateStatefulSetSpec (current upstream), exact message.
  const upstream: Array<[string, (s: Raw) => void, string[]]> = [
    ["name not a DNS label", (s) => (s.metadata.name = "web.v2"), [`metadata.name: Invalid value: "web.v2": must not contain dots`]],
    ["name with capitals", (s) => (s.metadata.name = "Web"), [`metadata.name: Invalid value: "Web": ${DNS_LABEL}`]],
    ["name missing", (s) => delete s.metadata.name, ["metadata.name: Required value: name or generateName is required"]],
    [
      "name too long",
      (s) => (s.metadata.name = "a".repeat(64)),
      [`metadata.name: Invalid value: "${"a".repeat(64)}": must be no more than 63 characters`],
    ],
    ["negative replicas", (s) => (s.spec.replicas = -1), ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]],
    ["podManagementPolicy", (s) => (s.spec.podManagementPolicy = "X"), [`spec.podManagementPolicy: Invalid value: "X": must be 'OrderedReady' or 'Parallel'`]],
    [
      "updateStrategy type",
      (s) => (s.spec.updateStrategy = { type: "Sometimes" }),
      [`spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":null}: must be 'RollingUpdate' or 'OnDelete'`],
    ],
    [
      "rollingUpdate with OnDelete",
      (s) => (s.spec.updateStrategy = { type: "OnDelete", rollingUpdate: { partition: 2 } }),
      [`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":2,"MaxUnavailable":null}: only allowed for updateStrategy 'RollingUpdate'`],
    ],
    [
      "negative partition",
      (s) => (s.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: -1 } }),
      ["spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"],
    ],
    [
      "maxUnavailable 0",
      (s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 0 } }),
      ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"],
    ],
    [
      "maxUnavailable negative",
      (s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: -2 } }),
      ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -2: must be greater than or equal to 0"],
    ],
    [
      "maxUnavailable not a percent",
      (s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: "half" } }),
      [`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "half": ${PERCENT}`, `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "half": cannot be 0`],
    ],
    [
      "maxUnavailable over 100%",
      (s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: "150%" } }),
      [`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`],
    ],
    ["negative minReadySeconds", (s) => (s.spec.minReadySeconds = -5), ["spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0"]],
    ["negative ordinals.start", (s) => (s.spec.ordinals = { start: -1 }), ["spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"]],
    [
      "retention policy",
      (s) => (s.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete", whenScaled: "Keep" }),
      [`spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": supported values: "Retain", "Delete"`],
    ],
    [
      "selector missing",
      (s) => delete s.spec.selector,
      ["spec.selector: Required value", `spec.template.metadata.labels: Invalid value: {"app":"web"}: \`selector\` does not match template \`labels\``],
    ],
    ["selector empty", (s) => (s.spec.selector = {}), ["spec.selector: Invalid value: {}: empty selector is invalid for statefulset"]],
    [
      "selector operator",
      (s) => (s.spec.selector = { matchExpressions: [{ key: "app", operator: "Is", values: ["web"] }] }),
      [
        `spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator`,
        `spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Is","values":["web"]}]}`,
      ],
    ],
    [
      "selector In without values",
      (s) => (s.spec.selector = { matchExpressions: [{ key: "app", operator: "In" }] }),
      [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        `spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}`,
      ],
    ],
    [
      "selector Exists with values",
      (s) => (s.spec.selector = { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "Exists", values: ["x"] }] }),
      [
        "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        `spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Exists","values":["x"]}]}`,
      ],
    ],
    [
      "selector label value",
      (s) => {
        s.spec.selector = { matchLabels: { app: "-web" } };
        s.spec.template.metadata.labels = { app: "-web" };
      },
      [
        `spec.selector.matchLabels: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        `spec.selector: Invalid value: {"matchLabels":{"app":"-web"}}`,
      ],
    ],
    [
      "template labels do not match",
      (s) => (s.spec.template.metadata.labels = { app: "api", tier: "b" }),
      ['spec.template.metadata.labels: Invalid value: {"app":"api","tier":"b"}: `selector` does not match template `labels`'],
    ],
    [
      "template label key invalid",
      (s) => (s.spec.template.metadata.labels = { app: "web", "-x": "y" }),
      [
        `spec.template.labels: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    [
      "template annotation key invalid",
      (s) => (s.spec.template.metadata.annotations = { "a b": "c" }),
      [
        `spec.template.annotations: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    [
      "pod deletion cost annotation",
      (s) => (s.spec.template.metadata.annotations = { "controller.kubernetes.io/pod-deletion-cost": "high" }),
      [`spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "high": must be a 32bit integer`],
    ],
    ["restartPolicy Never", (s) => (s.spec.template.spec.restartPolicy = "Never"), [`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`]],
    [
      "activeDeadlineSeconds",
      (s) => (s.spec.template.spec.activeDeadlineSeconds = 60),
      ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"],
    ],
    [
      "metadata label value",
      (s) => (s.metadata.labels = { team: "a b" }),
      [
        `metadata.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
    [
      "finalizer not qualified",
      (s) => (s.metadata.finalizers = ["cleanup"]),
      [`metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`],
    ],
  ];
  for (const [name, edit, expected] of upstream) {
    it(`apiserver rule: ${name}`, () => {
      // checkPods off: the apiserver's verdict alone, the same in both groups.
      for (const group of ["apps.ordinal.dev", "apps"] as const)
        expect(messages(create(set(edit), { group, checkPods: false }).errors)).toEqual(expected);
    });
  }

  it("reports every error at once and formats like the apiserver", () => {
    const { errors } = create(
      set((s) => {
        s.spec.replicas = -1;
        s.spec.template.metadata.labels = { app: "other" };
        s.spec.template.spec.restartPolicy = "Never";
      }),
    );
    expect(messages(errors)).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
      `spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
    ]);
  });

  // Issue 4: what upstream admits and only refuses at pod or PVC creation.
  const issue4: Array<[string, (s: Raw) => void, Array<[string, string]>]> = [
    ["no containers", (s) => (s.spec.template.spec.containers = []), [["spec.template.spec.containers", "FieldValueRequired"]]],
    ["container named Bad_Name", (s) => (s.spec.template.spec.containers[0].name = "Bad_Name"), [["spec.template.spec.containers[0].name", "FieldValueInvalid"]]],
    [
      "duplicate container names",
      (s) => s.spec.template.spec.containers.push({ name: "nginx", image: "busybox:1.36" }),
      [["spec.template.spec.containers[1].name", "FieldValueDuplicate"]],
    ],
    ["empty image", (s) => (s.spec.template.spec.containers[0].image = ""), [["spec.template.spec.containers[0].image", "FieldValueRequired"]]],
    [
      "port 70000",
      (s) => (s.spec.template.spec.containers[0].ports[0].containerPort = 70000),
      [["spec.template.spec.containers[0].ports[0].containerPort", "FieldValueInvalid"]],
    ],
    [
      "volumeMount of an unknown volume",
      (s) => s.spec.template.spec.containers[0].volumeMounts.push({ name: "cache", mountPath: "/cache" }),
      [["spec.template.spec.containers[0].volumeMounts[1].name", "FieldValueNotFound"]],
    ],
    [
      "invalid claim template name",
      (s) => {
        s.spec.volumeClaimTemplates[0].metadata.name = "Data";
        s.spec.template.spec.containers[0].volumeMounts = [];
      },
      [
        ["spec.volumeClaimTemplates[0].metadata.name", "FieldValueInvalid"],
        ["spec.volumeClaimTemplates[0].metadata.name", "FieldValueInvalid"],
      ],
    ],
    [
      "claim template without accessModes",
      (s) => delete s.spec.volumeClaimTemplates[0].spec.accessModes,
      [["spec.volumeClaimTemplates[0].spec.accessModes", "FieldValueRequired"]],
    ],
    [
      "claim template without storage request",
      (s) => (s.spec.volumeClaimTemplates[0].spec.resources = { requests: {} }),
      [["spec.volumeClaimTemplates[0].spec.resources[storage]", "FieldValueRequired"]],
    ],
    [
      "duplicate volume names",
      (s) => (s.spec.template.spec.volumes = [{ name: "tmp", emptyDir: {} }, { name: "tmp", configMap: { name: "c" } }]),
      [["spec.template.spec.volumes[1].name", "FieldValueDuplicate"]],
    ],
    [
      "cpu request above limit",
      (s) => (s.spec.template.spec.containers[0].resources = { requests: { cpu: "2" }, limits: { cpu: "1" } }),
      [["spec.template.spec.containers[0].resources.requests", "FieldValueInvalid"]],
    ],
    [
      // Invalid under both the strict (1.20) and the relaxed (current) env var name rules.
      "env var name with '='",
      (s) => (s.spec.template.spec.containers[0].env = [{ name: "A=B", value: "1" }]),
      [["spec.template.spec.containers[0].env[0].name", "FieldValueInvalid"]],
    ],
  ];
  for (const [name, edit, expected] of issue4) {
    it(`pod/PVC creation check: ${name}`, () => {
      expect(pairs(create(set(edit)).errors)).toEqual(expected);
      expect(create(set(edit), { ...ordinal, checkPods: false }).errors).toEqual([]);
    });
  }

  it("keeps the apiserver's detail and says creation would fail", () => {
    const withLimit = set((s) => (s.spec.template.spec.containers[0].resources = { requests: { cpu: "2" }, limits: { cpu: "1" } }));
    expect(messages(create(withLimit).errors)).toEqual([
      `spec.template.spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1 (would fail at pod creation)`,
    ]);
    expect(messages(create(set((s) => (s.spec.template.spec.containers = []))).errors)).toEqual([
      "spec.template.spec.containers: Required value: would fail at pod creation",
    ]);
    expect(messages(create(set((s) => delete s.spec.volumeClaimTemplates[0].spec.accessModes)).errors)).toEqual([
      "spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required (would fail at PVC creation)",
    ]);
    expect(messages(create(set((s) => (s.spec.volumeClaimTemplates[0].metadata.name = "Data"))).errors)).toContain(
      `spec.volumeClaimTemplates[0].metadata.name: Invalid value: "Data": ${DNS_LABEL} (would fail at pod creation)`,
    );
  });

  it("maps template volumes around the claim volumes the set injects", () => {
    const s = set((s) => {
      s.spec.volumeClaimTemplates.push({ metadata: { name: "logs" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
      s.spec.template.spec.volumes = [{ name: "data", emptyDir: {} }, { name: "cfg", configMap: {} }, { name: "Bad" , emptyDir: {} }];
    });
    expect(messages(create(s).errors)).toEqual([
      "spec.template.spec.volumes[1].configMap.name: Required value: would fail at pod creation",
      `spec.template.spec.volumes[2].name: Invalid value: "Bad": ${DNS_LABEL} (would fail at pod creation)`,
    ]);
  });

  // The bench's "duplicate claims" shape, small: every claim template's name is bad for the pod's
  // volume and for the PVC, and repeated; the errors per template, in this order, are the answer.
  it("reports each of many duplicate, too long claim template names at its own index", () => {
    const long = `D-${"x".repeat(298)}`;
    const labelKey =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const subdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    const good = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } };
    const s = set((s) => {
      s.spec.volumeClaimTemplates = [
        ...Array.from({ length: 3 }, () => ({ metadata: { name: long }, spec: {} })),
        ...Array.from({ length: 2 }, () => ({ metadata: { name: "data", labels: { "bad key": "v" }, annotations: { "a/b/c": "" } }, spec: good })),
      ];
    });
    const at = (i: number) => `spec.volumeClaimTemplates[${i}]`;
    const pod = (i: number) => [
      `${at(i)}.metadata.name: Invalid value: "${long}": must be no more than 63 characters (would fail at pod creation)`,
      `${at(i)}.metadata.name: Invalid value: "${long}": ${DNS_LABEL} (would fail at pod creation)`,
    ];
    const pvc = (i: number) => [
      `${at(i)}.metadata.name: Invalid value: "${long}": PVC name "${long}-web-0": must be no more than 253 characters (would fail at PVC creation)`,
      `${at(i)}.metadata.name: Invalid value: "${long}": PVC name "${long}-web-0": ${subdomain} (would fail at PVC creation)`,
      `${at(i)}.spec.accessModes: Required value: at least 1 access mode is required (would fail at PVC creation)`,
      `${at(i)}.spec.resources[storage]: Required value: would fail at PVC creation`,
    ];
    const meta = (i: number) => [
      `${at(i)}.metadata.labels: Invalid value: "bad key": ${labelKey} (would fail at PVC creation)`,
      `${at(i)}.metadata.annotations: Invalid value: "a/b/c": a valid label key ${labelKey.slice("name part ".length)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName') (would fail at PVC creation)`,
    ];
    expect(messages(create(s).errors)).toEqual([
      ...[0, 1, 2].flatMap(pod),
      `${at(4)}.metadata.name: Duplicate value: "data": would fail at pod creation`,
      ...[0, 1, 2].flatMap(pvc),
      ...[3, 4].flatMap(meta),
    ]);
  });

  it("reports a serviceName that makes the pods' subdomain invalid at spec.serviceName", () => {
    expect(messages(create(set((s) => (s.spec.serviceName = "Web_Svc"))).errors)).toEqual([
      `spec.serviceName: Invalid value: "Web_Svc": ${DNS_LABEL} (would fail at pod creation)`,
    ]);
  });

  it("requires room for -<ordinal> in the hostname", () => {
    const name61 = "a".repeat(61);
    expect(create(set((s) => (s.metadata.name = name61))).errors).toEqual([]);
    expect(messages(create(set((s) => ((s.metadata.name = name61), (s.spec.replicas = 11)))).errors)).toEqual([
      `metadata.name: Invalid value: "${name61}": must be no more than 60 characters to leave room for the pod ordinal: the hostname "${name61}-10" is longer than 63 characters (would fail at pod creation)`,
    ]);
    expect(pairs(create(set((s) => ((s.metadata.name = "a".repeat(62)), (s.spec.ordinals = { start: 5 })))).errors)).toEqual([
      ["metadata.name", "FieldValueInvalid"],
    ]);
  });

  it("refuses images that are not references, unless allowed", () => {
    for (const image of ["nginx 1.25", "nginx;rm", "Nginx:1", "nginx:1.25@sha256:abc"]) {
      const s = set((s) => (s.spec.template.spec.containers[0].image = image));
      const errors = create(s).errors;
      expect(pairs(errors)).toEqual([["spec.template.spec.containers[0].image", "FieldValueInvalid"]]);
      expect(formatFieldError(errors[0])).toMatch(new RegExp(`^spec\\.template\\.spec\\.containers\\[0\\]\\.image: Invalid value: "${image.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}": `));
      expect(create(s, { ...ordinal, allowInvalidImageRefs: true }).errors).toEqual([]);
    }
    const init = set((s) => (s.spec.template.spec.initContainers = [{ name: "init", image: "busybox latest" }]));
    expect(pairs(create(init).errors)).toEqual([["spec.template.spec.initContainers[0].image", "FieldValueInvalid"]]);
  });

  it("does not repeat a pod error on a field the apiserver rule reported", () => {
    const s = set((s) => (s.spec.template.spec.restartPolicy = "Sometimes"));
    expect(messages(create(s).errors)).toEqual([`spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always"`]);
    const ads = set((s) => (s.spec.template.spec.activeDeadlineSeconds = -1));
    expect(pairs(create(ads).errors)).toEqual([["spec.template.spec.activeDeadlineSeconds", "FieldValueForbidden"]]);
  });

  it("caps replicas at MAX_REPLICAS for apps.ordinal.dev only (apps/v1 has no maximum)", () => {
    expect(create(set((s) => (s.spec.replicas = MAX_REPLICAS))).errors).toEqual([]);
    const over = (n: number) => set((s) => ((s.metadata.name = "w"), (s.spec.replicas = n)));
    expect(messages(create(over(MAX_REPLICAS + 1)).errors)).toEqual([
      `spec.replicas: Invalid value: ${MAX_REPLICAS + 1}: must be less than or equal to ${MAX_REPLICAS}, the most pods Kubernetes supports in a whole cluster`,
    ]);
    expect(messages(create(over(2147483647)).errors)).toEqual([
      `spec.replicas: Invalid value: 2147483647: must be less than or equal to ${MAX_REPLICAS}, the most pods Kubernetes supports in a whole cluster`,
    ]);
    expect(create(over(2147483647), apps).errors).toEqual([]);
  });

  it("applies Ordinal's own rules only to apps.ordinal.dev", () => {
    const s = set((s) => {
      s.spec.revisionHistoryLimit = -1;
      s.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "Sometimes", inPlaceUpdateStrategy: { gracePeriodSeconds: -3 } } };
    });
    expect(messages(create(s).errors)).toEqual([
      "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
      `spec.updateStrategy.rollingUpdate.podUpdatePolicy: Unsupported value: "Sometimes": supported values: "ReCreate", "InPlaceIfPossible", "InPlaceOnly"`,
      "spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.gracePeriodSeconds: Invalid value: -3: must be greater than or equal to 0",
    ]);
    expect(create(s, apps).errors).toEqual([]);
    const prewarm = (v: unknown) => set((s) => (s.spec.updateStrategy = { rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible", imagePrewarm: v } }));
    expect(create(prewarm({ parallelism: 2 })).errors).toEqual([]);
    expect(create(prewarm({})).errors).toEqual([]);
    expect(messages(create(prewarm({ parallelism: 0 })).errors)).toEqual(["spec.updateStrategy.rollingUpdate.imagePrewarm.parallelism: Invalid value: 0: must be greater than or equal to 1"]);
    expect(pairs(create(prewarm({ parallelism: "2" })).errors)).toEqual([["spec.updateStrategy.rollingUpdate.imagePrewarm.parallelism", "FieldValueTypeInvalid"]]);
    expect(pairs(create(prewarm(3)).errors)).toEqual([["spec.updateStrategy.rollingUpdate.imagePrewarm", "FieldValueTypeInvalid"]]);
    const paused = set((s) => (s.spec.updateStrategy = { type: "OnDelete", rollingUpdate: { paused: true } }));
    expect(pairs(create(paused).errors)).toEqual([["spec.updateStrategy.rollingUpdate", "FieldValueInvalid"]]);
  });

  it("checks spec.lifecycle (Ordinal's group): handler labels and finalizers as on a pod, only preDelete and inPlaceUpdate", () => {
    const lc = (v: unknown) => set((s) => ((s.spec as Record<string, unknown>).lifecycle = v));
    const good = { labelsHandler: { "example.io/drain": "true" }, finalizersHandler: ["example.io/keep"], markPodNotReady: true };
    expect(create(lc({ preDelete: good, inPlaceUpdate: good })).errors).toEqual([]);
    expect(create(lc({})).errors).toEqual([]);
    expect(
      messages(create(lc({ preDelete: { labelsHandler: { "bad key!": "true" }, finalizersHandler: ["plain", "a.io/x", "a.io/x"] }, preNormal: good })).errors),
    ).toEqual([
      "spec.lifecycle.preNormal: Forbidden: not supported: Ordinal's lifecycle hooks are preDelete and inPlaceUpdate",
      expect.stringMatching(/^spec\.lifecycle\.preDelete\.labelsHandler: Invalid value: "bad key!": name part must consist of/),
      'spec.lifecycle.preDelete.finalizersHandler[0]: Invalid value: "plain": name is neither a standard finalizer name nor is it fully qualified',
      'spec.lifecycle.preDelete.finalizersHandler[2]: Duplicate value: "a.io/x"',
    ]);
    expect(pairs(create(lc({ inPlaceUpdate: { markPodNotReady: "yes" } })).errors)).toEqual([["spec.lifecycle.inPlaceUpdate.markPodNotReady", "FieldValueTypeInvalid"]]);
  });

  it("checks unorderedUpdate.priorityStrategy (issue 33): exactly one form, weights 0-100, no empty selector, valid keys", () => {
    const ps = (v: unknown, policy = "Parallel") =>
      set((s) => {
        s.spec.podManagementPolicy = policy;
        s.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { unorderedUpdate: { priorityStrategy: v } } };
      });
    const P = "spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy";
    const weight = (w: unknown, matchSelector: unknown = { matchLabels: { role: "replica" } }) => ({ weightPriority: [{ weight: w, matchSelector }] });
    expect(create(ps(weight(100))).errors).toEqual([]);
    expect(create(ps(weight(0, { matchExpressions: [{ key: "role", operator: "Exists" }] }))).errors).toEqual([]);
    expect(create(ps({ orderPriority: [{ orderedKey: "example.io/order" }, { orderedKey: "zone" }] })).errors).toEqual([]);
    // Beyond Kruise (Parallel only): OrderedReady takes it too, for the update order.
    expect(create(ps(weight(50), "OrderedReady")).errors).toEqual([]);
    expect(messages(create(ps({ ...weight(10), orderPriority: [{ orderedKey: "k" }] })).errors)).toEqual([`${P}: Forbidden: only one of weightPriority and orderPriority may be set`]);
    expect(messages(create(ps({})).errors)).toEqual([`${P}: Required value: one of weightPriority or orderPriority (non-empty) is required`]);
    expect(messages(create(ps({ weightPriority: [], orderPriority: [] })).errors)).toEqual([`${P}: Required value: one of weightPriority or orderPriority (non-empty) is required`]);
    expect(messages(create(ps(weight(101))).errors)).toEqual([`${P}.weightPriority[0].weight: Invalid value: 101: must be between 0 and 100, inclusive`]);
    expect(messages(create(ps(weight(-1))).errors)).toEqual([`${P}.weightPriority[0].weight: Invalid value: -1: must be between 0 and 100, inclusive`]);
    expect(pairs(create(ps(weight("10"))).errors)).toEqual([[`${P}.weightPriority[0].weight`, "FieldValueTypeInvalid"]]);
    expect(pairs(create(ps({ weightPriority: [{ matchSelector: { matchLabels: { a: "b" } } }] })).errors)).toEqual([[`${P}.weightPriority[0].weight`, "FieldValueRequired"]]);
    expect(pairs(create(ps({ weightPriority: [{ weight: 1 }] })).errors)).toEqual([[`${P}.weightPriority[0].matchSelector`, "FieldValueRequired"]]);
    expect(messages(create(ps(weight(5, {}))).errors)).toEqual([`${P}.weightPriority[0].matchSelector: Invalid value: {}: empty selector: it matches every pod, so its weight orders nothing`]);
    expect(messages(create(ps(weight(5, { matchLabels: {}, matchExpressions: [] }))).errors)).toEqual([
      expect.stringMatching(/weightPriority\[0\]\.matchSelector: Invalid value: .*empty selector/),
    ]);
    expect(messages(create(ps(weight(5, { matchLabels: { "bad key!": "x" } }))).errors)).toEqual([
      expect.stringMatching(/^spec\.updateStrategy\.rollingUpdate\.unorderedUpdate\.priorityStrategy\.weightPriority\[0\]\.matchSelector\.matchLabels: Invalid value: "bad key!": name part must consist of/),
    ]);
    expect(pairs(create(ps(weight(5, { matchExpressions: [{ key: "a", operator: "In" }] }))).errors)).toEqual([[`${P}.weightPriority[0].matchSelector.matchExpressions[0].values`, "FieldValueRequired"]]);
    expect(messages(create(ps({ orderPriority: [{ orderedKey: "a" }, { orderedKey: "a" }] })).errors)).toEqual([`${P}.orderPriority[1].orderedKey: Duplicate value: "a"`]);
    expect(messages(create(ps({ orderPriority: [{ orderedKey: "-bad" }] })).errors)).toEqual([expect.stringMatching(/orderPriority\[0\]\.orderedKey: Invalid value: "-bad": name part must consist of/)]);
    expect(pairs(create(ps({ orderPriority: [{}] })).errors)).toEqual([[`${P}.orderPriority[0].orderedKey`, "FieldValueRequired"]]);
    expect(pairs(create(ps({ orderPriority: Array.from({ length: 65 }, (_, i) => ({ orderedKey: `k${i}` })) })).errors)).toEqual([[`${P}.orderPriority`, "FieldValueTooMany"]]);
    expect(messages(create(ps({ orderPriority: [{ orderedKey: "a" }], scatter: [] })).errors)).toEqual([`${P}.scatter: Forbidden: not supported: priorityStrategy has weightPriority or orderPriority`]);
    expect(pairs(create(set((s) => (s.spec.updateStrategy = { rollingUpdate: { unorderedUpdate: { other: 1 } } }))).errors)).toEqual([["spec.updateStrategy.rollingUpdate.unorderedUpdate.other", "FieldValueForbidden"]]);
  });

  it("progressDeadlineSeconds and rollbackOnFailure (issue 23)", () => {
    const deadline = (seconds: unknown, more: (s: { spec: Record<string, unknown> }) => void = () => {}) =>
      set((s) => {
        s.spec.progressDeadlineSeconds = seconds;
        more(s);
      });
    expect(create(deadline(600)).errors).toEqual([]);
    expect(create(deadline(600, (s) => (s.spec.updateStrategy = { rollingUpdate: { rollbackOnFailure: true } }))).errors).toEqual([]);
    expect(messages(create(deadline(0)).errors)).toEqual(["spec.progressDeadlineSeconds: Invalid value: 0: must be greater than 0"]);
    expect(messages(create(deadline(10, (s) => (s.spec.minReadySeconds = 10))).errors)).toEqual(["spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"]);
    expect(pairs(create(deadline("10m")).errors)).toEqual([["spec.progressDeadlineSeconds", "FieldValueTypeInvalid"]]);
    expect(messages(create(deadline(undefined, (s) => (s.spec.updateStrategy = { rollingUpdate: { rollbackOnFailure: true } }))).errors)).toEqual([
      "spec.updateStrategy.rollingUpdate.rollbackOnFailure: Invalid value: true: needs spec.progressDeadlineSeconds: a rollout is rolled back once that deadline passes without progress",
    ]);
    expect(pairs(create(deadline(60, (s) => (s.spec.updateStrategy = { rollingUpdate: { rollbackOnFailure: "yes" } }))).errors)).toEqual([["spec.updateStrategy.rollingUpdate.rollbackOnFailure", "FieldValueTypeInvalid"]]);
    expect(pairs(create(deadline(60, (s) => (s.spec.updateStrategy = { type: "OnDelete", rollingUpdate: { rollbackOnFailure: true } }))).errors)).toEqual([["spec.updateStrategy.rollingUpdate", "FieldValueInvalid"]]);
  });

  it("warns about valid but risky settings", () => {
    const w = (edit: (s: Raw) => void, group: "apps" | "apps.ordinal.dev" = "apps.ordinal.dev") => create(set(edit), { group }).warnings;
    expect(w((s) => (s.spec.serviceName = ""))).toEqual([expect.stringMatching(/^spec\.serviceName is empty: .*stable network identity/)]);
    expect(w((s) => (s.spec.template.spec.terminationGracePeriodSeconds = 0))).toEqual([expect.stringMatching(/terminationGracePeriodSeconds is 0/)]);
    // Ordinal honours maxUnavailable with OrderedReady too; apps/v1 1.20 does not.
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 2 } }))).toEqual([]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 2 } }), "apps")).toEqual([expect.stringMatching(/maxUnavailable \(2\) has effect only with podManagementPolicy Parallel/)]);
    expect(w((s) => ((s.spec.podManagementPolicy = "Parallel"), (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 2 } })), "apps")).toEqual([]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: "34%" } }), "apps")).toEqual([expect.stringMatching(/maxUnavailable/)]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { maxUnavailable: "33%" } }), "apps")).toEqual([]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { partition: 3 } }))).toEqual([expect.stringMatching(/partition \(3\) is not below spec.replicas \(3\)/)]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { inPlaceUpdateStrategy: { gracePeriodSeconds: 5 } } }))).toEqual([
      expect.stringMatching(/inPlaceUpdateStrategy has no effect with podUpdatePolicy ReCreate/),
    ]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { imagePrewarm: { parallelism: 1 } } }))).toEqual([expect.stringMatching(/imagePrewarm with podUpdatePolicy ReCreate .* may be scheduled elsewhere/)]);
    expect(w((s) => (s.spec.updateStrategy = { rollingUpdate: { podUpdatePolicy: "InPlaceOnly", imagePrewarm: { parallelism: 1 } } }))).toEqual([]);
    expect(w((s) => (s.spec.serviceName = ""), "apps")).toHaveLength(1);
  });

  describe("on update", () => {
    const update = (edit: (s: Raw) => void, old = validSet()) => validateStatefulSet(set(edit), old, ordinal);

    it("allows changing replicas, ordinals, template, updateStrategy, revisionHistoryLimit, retention and minReadySeconds", () => {
      const { errors } = update((s) => {
        s.spec.replicas = 5;
        s.spec.ordinals = { start: 2 };
        s.spec.template.spec.containers[0].image = "nginx:1.26";
        s.spec.updateStrategy = { type: "OnDelete" };
        s.spec.revisionHistoryLimit = 3;
        s.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete", whenScaled: "Retain" };
        s.spec.minReadySeconds = 10;
      });
      expect(errors).toEqual([]);
    });

    const immutable: Array<[string, (s: Raw) => void]> = [
      ["selector", (s) => ((s.spec.selector = { matchLabels: { app: "web", tier: "x" } }), (s.spec.template.metadata.labels.tier = "x"))],
      ["serviceName", (s) => (s.spec.serviceName = "web2")],
      ["podManagementPolicy", (s) => (s.spec.podManagementPolicy = "Parallel")],
    ];
    for (const [name, edit] of immutable)
      it(`forbids changing ${name}`, () => {
        expect(messages(update(edit).errors)).toEqual([`spec: Forbidden: ${FORBIDDEN_UPDATE_MESSAGE}`]);
      });
    it("forbids changing volumeClaimTemplates of an apps/v1 set (Ordinal's own rules: statefulset-claims.test.ts)", () => {
      const grow = set((s) => (s.spec.volumeClaimTemplates[0].spec.resources.requests.storage = "2Gi"));
      expect(messages(validateStatefulSet(grow, validSet(), { group: "apps" }).errors)).toEqual([`spec: Forbidden: ${FORBIDDEN_UPDATE_MESSAGE}`]);
    });

    it("compares after defaulting and by quantity value", () => {
      const old = with_(validSet, (s) => {
        s.spec.podManagementPolicy = "OrderedReady";
        s.spec.volumeClaimTemplates[0] = { apiVersion: "v1", kind: "PersistentVolumeClaim", ...s.spec.volumeClaimTemplates[0], status: { phase: "Pending" } };
        s.spec.volumeClaimTemplates[0].spec.volumeMode = "Filesystem";
        s.spec.volumeClaimTemplates[0].metadata.creationTimestamp = null;
      });
      expect(update((s) => (s.spec.volumeClaimTemplates[0].spec.resources.requests.storage = "1024Mi"), old).errors).toEqual([]);
    });

    it("validates the new spec and the metadata update", () => {
      expect(messages(update((s) => ((s.spec.replicas = -1), (s.metadata.name = "api"))).errors)).toEqual([
        `metadata.name: Invalid value: "api": field is immutable`,
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      ]);
      const deleting = with_(validSet, (s) => (s.metadata = { ...s.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["a.io/x"] }));
      expect(messages(update((s) => (s.metadata.finalizers = ["a.io/x", "b.io/y"]), deleting).errors)).toEqual([
        `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}`,
      ]);
    });

    it("does not re-check the name on update (it cannot change)", () => {
      const old = with_(validSet, (s) => (s.metadata.name = "web.v1"));
      expect(update((s) => (s.metadata.name = "web.v1"), old).errors).toEqual([]);
    });
  });

  it("reports wrong types instead of throwing", () => {
    const s = set((s) => {
      s.spec.replicas = "three";
      s.spec.template.spec.containers = "nginx";
      s.spec.selector.matchLabels = { app: 1 };
    });
    const errors = create(s).errors;
    expect(messages(errors)).toContain(`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`);
    expect(messages(errors)).toContain(
      `spec.template.spec.containers: Invalid value: "string": spec.template.spec.containers in body must be of type array: "string" (would fail at pod creation)`,
    );
    expect(pairs(errors)).toContainEqual(["spec.selector.matchLabels[app]", "FieldValueTypeInvalid"]);
    expect(create(null).errors[0]).toMatchObject({ type: "FieldValueTypeInvalid" });
    expect(create([]).errors[0]).toMatchObject({ type: "FieldValueTypeInvalid" });
  });

  it("never throws on random input near a valid set", () => {
    const paths = [
      "metadata", "metadata.name", "spec", "spec.replicas", "spec.selector", "spec.selector.matchExpressions", "spec.template",
      "spec.template.metadata", "spec.template.spec", "spec.template.spec.containers", "spec.template.spec.containers.0",
      "spec.template.spec.containers.0.resources", "spec.template.spec.containers.0.ports", "spec.template.spec.volumes",
      "spec.template.spec.readinessGates", "spec.volumeClaimTemplates", "spec.volumeClaimTemplates.0", "spec.volumeClaimTemplates.0.spec",
      "spec.updateStrategy", "spec.updateStrategy.rollingUpdate", "spec.ordinals", "spec.serviceName",
    ];
    const arb = fc.tuple(fc.array(fc.constantFrom(...paths), { maxLength: 3 }), fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 3, maxLength: 3 }), fc.boolean());
    fc.assert(
      fc.property(arb, ([ps, values, asUpdate]) => {
        const s = validSet();
        ps.forEach((p, i) => {
          const keys = p.split(".");
          let cur: Raw = s;
          for (const k of keys.slice(0, -1)) {
            if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
            cur = cur[k];
          }
          cur[keys[keys.length - 1]] = values[i];
        });
        const r = validateStatefulSet(s, asUpdate ? validSet() : undefined, ordinal);
        expect(r.errors.every((e) => e.type !== "InternalError")).toBe(true);
        r.errors.forEach((e) => formatFieldError(e));
      }),
      { numRuns: fcRuns(500, 2000) },
    );
  });
});

describe("newStatefulSetPod for a valid set", () => {
  it("passes pod create validation", () => {
    // As stored: the apiserver gives the set a uid, which the pod's ownerReference needs.
    const parsed = StatefulSetSchema.parse(with_(validSet, (s) => (s.metadata.uid = "0b7a3c1e-uid")));
    for (const ordinal of [0, 2]) expect(validatePodCreate(newStatefulSetPod(parsed, ordinal, "rev-1"))).toEqual([]);
  });
});
