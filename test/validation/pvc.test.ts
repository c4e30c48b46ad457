// validatePvcCreate: ValidatePersistentVolumeClaim as the apiserver words it (current upstream);
// validatePvcNameAndSpec: the same errors at metadata.name and in the spec, in the same order.
import { describe, expect, it } from "vitest";
import { validatePvcCreate } from "../../src/validation/index.ts";
import { validatePvcNameAndSpec } from "../../src/validation/pvc.ts";
import { type Raw, messages, validClaim, with_ } from "./helpers.ts";

const claim = (edit: (c: Raw) => void) => with_(validClaim, edit);

// validatePvcNameAndSpec is checked here against validatePvcCreate (last test).
describe("validatePvcCreate", () => {
  it("admits a valid claim", () => expect(validatePvcCreate(validClaim())).toEqual([]));

  const cases: Array<[string, (c: Raw) => void, string[]]> = [
    [
      "name",
      (c) => (c.metadata.name = "Data"),
      [
        `metadata.name: Invalid value: "Data": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    ["no access modes", (c) => delete c.spec.accessModes, ["spec.accessModes: Required value: at least 1 access mode is required"]],
    [
      "unknown access mode",
      (c) => (c.spec.accessModes = ["ReadWriteSometimes"]),
      [`spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`],
    ],
    [
      "ReadWriteOncePod mixed",
      (c) => (c.spec.accessModes = ["ReadWriteOncePod", "ReadWriteOnce"]),
      ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
    ],
    ["no storage request", (c) => (c.spec.resources = {}), ["spec.resources[storage]: Required value"]],
    ["zero storage", (c) => (c.spec.resources.requests.storage = "0Gi"), [`spec.resources[storage]: Invalid value: "0": must be greater than zero`]],
    [
      "bad storage quantity",
      (c) => (c.spec.resources.requests.storage = "lots"),
      [`spec.resources.requests[storage]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`],
    ],
    ["volumeMode", (c) => (c.spec.volumeMode = "Raw"), [`spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"`]],
    [
      "storageClassName",
      (c) => (c.spec.storageClassName = "Fast_SSD"),
      [
        `spec.storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      // NormalizeDataSources copies a lone dataSource to dataSourceRef before validation.
      "dataSource without name, kind of the core group",
      (c) => (c.spec.dataSource = { kind: "VolumeSnapshot" }),
      [
        "spec.dataSource.name: Required value",
        `spec.dataSource: Invalid value: "VolumeSnapshot": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
        "spec.dataSourceRef.name: Required value",
        `spec.dataSourceRef: Invalid value: "VolumeSnapshot": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
      ],
    ],
    [
      "dataSourceRef alone is copied to dataSource",
      (c) => (c.spec.dataSourceRef = { kind: "PersistentVolumeClaim" }),
      ["spec.dataSource.name: Required value", "spec.dataSourceRef.name: Required value"],
    ],
    [
      "selector",
      (c) => (c.spec.selector = { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }),
      ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ],
  ];
  for (const [name, edit, expected] of cases) it(name, () => expect(messages(validatePvcCreate(claim(edit)))).toEqual(expected));

  it("accepts a snapshot data source with its apiGroup", () => {
    expect(validatePvcCreate(claim((c) => (c.spec.dataSource = { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: "s" })))).toEqual([]);
  });

  it("reports wrong types and never throws", () => {
    expect(messages(validatePvcCreate(claim((c) => (c.spec.accessModes = "ReadWriteOnce"))))).toEqual([
      `spec.accessModes: Invalid value: "string": spec.accessModes in body must be of type array: "string"`,
      "spec.accessModes: Required value: at least 1 access mode is required",
    ]);
    for (const bad of [null, "x", { spec: [] }, { spec: { resources: { requests: [] } } }]) expect(() => validatePvcCreate(bad)).not.toThrow();
  });

  it("validatePvcNameAndSpec finds validatePvcCreate's errors at metadata.name and in the spec, in its order, and no others", () => {
    const claims = [
      ...cases.map(([, edit]) => claim(edit)),
      claim((c) => ((c.metadata.name = `Data-${"x".repeat(260)}`), (c.spec.accessModes = "ReadWriteOnce"), (c.metadata.labels = { "bad key": "v" }))),
      claim((c) => ((c.metadata.name = ""), (c.spec = "x"), (c.metadata.namespace = "Bad_NS"))),
      claim((c) => ((c.metadata.name = "ok"), (c.spec = { resources: { requests: [] }, dataSource: { kind: "X" } }))),
    ];
    for (const c of claims) {
      const expected = validatePvcCreate(c).filter((e) => e.field === "metadata.name" || !e.field.startsWith("metadata"));
      expect(messages(validatePvcNameAndSpec(c.metadata.name, c.spec))).toEqual(messages(expected));
    }
  });
});
