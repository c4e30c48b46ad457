/** Unknown fields in a set's templates (src/validation/unknown-fields.ts), found as the apiserver's strict decoding finds them. */
import { describe, expect, it } from "vitest";
import { templateUnknownFields } from "../../src/validation/unknown-fields.ts";
import { setManifest } from "../support/fixtures.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test writes typos into any level of the manifest
type Loose = Record<string, any>;
const withTemplate = (edit: (spec: Loose) => void, claims = false) => {
  const s = setManifest({ claims: claims ? ["www"] : undefined }) as unknown as { spec: Loose };
  edit(s.spec);
  return s;
};

describe("templateUnknownFields", () => {
  it("a typo in a container port: the strict decoding path", () => {
    const s = withTemplate((spec) => (spec.template.spec.containers[0].ports = [{ containerPort: 80, protocl: "TCP" }]));
    expect(templateUnknownFields(s)).toEqual(["spec.template.spec.containers[0].ports[0].protocl"]);
  });
  // In document order, as strict decoding lists them.
  it("every level: template, metadata, pod spec, nested objects, lists, claim templates", () => {
    const s = withTemplate((spec) => {
      spec.template.replicas = 1;
      spec.template.metadata.lables = { a: "b" };
      spec.template.spec.restartpolicy = "Always";
      spec.template.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "k", operator: "In", value: ["v"] }] }] } } };
      spec.template.spec.containers[0].resources = { limits: { cpu: "1" }, request: { cpu: "1" } };
      spec.volumeClaimTemplates[0].spec.storageclass = "fast";
    }, true);
    expect(templateUnknownFields(s)).toEqual([
      "spec.template.metadata.lables",
      "spec.template.spec.containers[0].resources.request",
      "spec.template.spec.restartpolicy",
      "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].value",
      "spec.template.replicas",
      "spec.volumeClaimTemplates[0].spec.storageclass",
    ]);
  });
  it("what the apiserver knows passes: labels and annotations of any key, quantities, intOrString, probes, creationTimestamp null", () => {
    const s = withTemplate((spec) => {
      spec.template.metadata.annotations = { "any/key": "v" };
      spec.template.metadata.creationTimestamp = null;
      spec.template.spec.containers[0].readinessProbe = { httpGet: { port: "http", path: "/" }, periodSeconds: 5 };
      spec.template.spec.containers[0].resources = { requests: { cpu: "100m", "example.com/gpu": "1" } };
      spec.template.spec.volumes = [{ name: "v", ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"] } } } }];
    }, true);
    expect(templateUnknownFields(s)).toEqual([]);
  });
  it("on an update, only fields the old object did not have (a stored typo stays changeable)", () => {
    const old = withTemplate((spec) => (spec.template.spec.containers[0].imagePullPolcy = "Always"));
    const next = withTemplate((spec) => {
      spec.replicas = 5;
      spec.template.spec.containers[0].imagePullPolcy = "Always";
    });
    expect(templateUnknownFields(next, old)).toEqual([]);
    const worse = withTemplate((spec) => {
      spec.template.spec.containers[0].imagePullPolcy = "Always";
      spec.template.spec.dnspolicy = "Default";
    });
    expect(templateUnknownFields(worse, old)).toEqual(["spec.template.spec.dnspolicy"]);
  });
  it("stops at 20 and ignores values of the wrong JSON type (validation reports those)", () => {
    const s = withTemplate((spec) => {
      for (let i = 0; i < 30; i++) spec.template.spec[`x${i}`] = i;
      spec.template.spec.containers = "nope";
    });
    const got = templateUnknownFields(s);
    expect(got).toHaveLength(20);
    expect(templateUnknownFields({ spec: { template: 7, volumeClaimTemplates: {} } })).toEqual([]);
    expect(templateUnknownFields(null)).toEqual([]);
  });
});
