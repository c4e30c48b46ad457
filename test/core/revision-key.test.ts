/** revisionKey: an apps/v1 revision (template defaulted by the apiserver) equals Ordinal's revision of the same template; real changes still differ. */
import { describe, expect, it } from "vitest";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { resolveRevisions, revisionData, revisionKey } from "../../src/core/revisions.ts";

const raw = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.25", ports: [{ containerPort: 80 }] }], volumes: [{ name: "cfg", configMap: { name: "x" } }] } };
/** What kube-apiserver 1.20 stores for `raw` in an apps/v1 StatefulSet (measured). */
const defaulted = {
  metadata: { creationTimestamp: null, labels: { app: "web" } },
  spec: {
    containers: [{ image: "nginx:1.25", imagePullPolicy: "IfNotPresent", name: "nginx", ports: [{ containerPort: 80, protocol: "TCP" }], resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" }],
    dnsPolicy: "ClusterFirst",
    restartPolicy: "Always",
    schedulerName: "default-scheduler",
    securityContext: {},
    terminationGracePeriodSeconds: 30,
    volumes: [{ configMap: { defaultMode: 420, name: "x" }, name: "cfg" }],
  },
};
const set = (template: unknown) =>
  StatefulSetSchema.parse({ metadata: { name: "web", namespace: "default", uid: "u" }, spec: { selector: { matchLabels: { app: "web" } }, template } });
const appsRevision = { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "web-5f8c7d9b6" }, data: { spec: { template: { ...defaulted, $patch: "replace" } } }, revision: 1 };

describe("revisionKey", () => {
  it("equates a template with its apiserver-defaulted form", () => {
    expect(revisionKey(revisionData(set(raw)))).toBe(revisionKey(appsRevision.data));
  });
  it.each([
    ["an image", { ...raw, spec: { ...raw.spec, containers: [{ ...raw.spec.containers[0], image: "nginx:1.26" }] } }],
    ["a non-default pull policy", { ...raw, spec: { ...raw.spec, containers: [{ ...raw.spec.containers[0], imagePullPolicy: "Always" }] } }],
    ["a label", { ...raw, metadata: { labels: { app: "web", tier: "x" } } }],
  ])("still tells %s apart", (_what, other) => {
    expect(revisionKey(revisionData(set(other)))).not.toBe(revisionKey(appsRevision.data));
  });
});

describe("revisionKey: the defaults apps/v1 stores that pod validation does not add", () => {
  const keyOf = (spec: Record<string, unknown>) => revisionKey({ spec: { template: { metadata: { labels: { app: "web" } }, spec } } });
  const env = (fieldRef: Record<string, unknown>) => [{ name: "N", valueFrom: { fieldRef } }];
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["a secret volume's defaultMode 420", { volumes: [{ name: "s", secret: { secretName: "x" } }] }, { volumes: [{ name: "s", secret: { secretName: "x", defaultMode: 420 } }] }],
    ["a downwardAPI volume's defaultMode 420", { volumes: [{ name: "d", downwardAPI: { items: [] } }] }, { volumes: [{ name: "d", downwardAPI: { items: [], defaultMode: 420 } }] }],
    ["a projected volume's defaultMode 420", { volumes: [{ name: "p", projected: { sources: [] } }] }, { volumes: [{ name: "p", projected: { sources: [], defaultMode: 420 } }] }],
    ["a container's fieldRef apiVersion v1", { containers: [{ name: "c", image: "i", env: env({ fieldPath: "metadata.name" }) }] }, { containers: [{ name: "c", image: "i", env: env({ fieldPath: "metadata.name", apiVersion: "v1" }) }] }],
    ["an init container's fieldRef apiVersion v1", { containers: [{ name: "c", image: "i" }], initContainers: [{ name: "i", image: "i", env: env({ fieldPath: "metadata.name" }) }] }, { containers: [{ name: "c", image: "i" }], initContainers: [{ name: "i", image: "i", env: env({ fieldPath: "metadata.name", apiVersion: "v1" }) }] }],
  ])("equates a template without %s and one with it", (_, without, withDefault) => {
    expect(keyOf({ containers: [{ name: "c", image: "i" }], ...without })).toBe(keyOf({ containers: [{ name: "c", image: "i" }], ...withDefault }));
  });
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["a non-default file mode", { volumes: [{ name: "s", secret: { secretName: "x", defaultMode: 256 } }] }, { volumes: [{ name: "s", secret: { secretName: "x", defaultMode: 420 } }] }],
    ["another fieldRef apiVersion", { containers: [{ name: "c", image: "i", env: env({ fieldPath: "metadata.name", apiVersion: "v2" }) }] }, { containers: [{ name: "c", image: "i", env: env({ fieldPath: "metadata.name", apiVersion: "v1" }) }] }],
  ])("still tells %s apart", (_, a, b) => {
    expect(keyOf({ containers: [{ name: "c", image: "i" }], ...a })).not.toBe(keyOf({ containers: [{ name: "c", image: "i" }], ...b }));
  });
});

describe("resolveRevisions after migrating from apps/v1", () => {
  it("reuses the apps/v1 revision (its pods stay current) instead of creating one", () => {
    const r = resolveRevisions(set(raw), [appsRevision as never]);
    expect(r.update.metadata?.name).toBe("web-5f8c7d9b6");
    expect(r.actions).toEqual([]);
  });
});
