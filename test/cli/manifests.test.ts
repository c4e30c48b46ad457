/** `ordinal manifests`: the install YAML, and `--kube-version` for clusters older than 1.21 (issue 21). */
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { cliWorld } from "./helpers.ts";

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

/** manifests runs `ordinal manifests ARGS` and returns the exit code, the objects printed and stderr. */
async function manifests(args: string[]): Promise<{ code: number; docs: Doc[]; err: string }> {
  const w = cliWorld();
  w.ctx.client = () => Promise.reject(new Error("manifests must not ask for a client"));
  const code = await main(["manifests", ...args], w.ctx);
  return { code, docs: parseAllDocuments(w.out.join("\n")).map((d) => d.toJS() as Doc), err: w.err.join("\n") };
}
const key = (d: Doc) => `${d.apiVersion} ${d.kind} ${d.metadata.namespace ?? ""}/${d.metadata.name}`;
const deployFiles = ["crds/statefulsets.apps.ordinal.dev.yaml", "crds/imagelists.apps.ordinal.dev.yaml", "namespace.yaml", "rbac.yaml", "server.yaml", "webhooks.yaml"];

// Each case renders every manifest (the CRDs from the zod schemas): slow on a loaded 2-core machine.
describe("ordinal manifests", { timeout: 20_000 }, () => {
  it("prints the objects of deploy/'s kustomization, in order", async () => {
    const { code, docs } = await manifests([]);
    expect(code).toBe(0);
    const deployed = deployFiles.flatMap((f) => parseAllDocuments(readFileSync(`deploy/${f}`, "utf8")).map((d) => d.toJS() as Doc));
    expect(docs).toEqual(deployed);
  });

  it("--kube-version 1.20: the PodDisruptionBudget as policy/v1beta1 and kube-system labelled out of the webhooks; nothing else changes", async () => {
    const current = (await manifests([])).docs;
    const { code, docs } = await manifests(["--kube-version", "1.20"]);
    expect(code).toBe(0);
    expect(docs.find((d) => d.kind === "PodDisruptionBudget")!.apiVersion).toBe("policy/v1beta1");
    expect(docs.find((d) => d.kind === "Namespace" && d.metadata.name === "kube-system")).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "kube-system", labels: { "ordinal.dev/webhooks": "disabled" } },
    });
    const unchanged = (d: Doc) => d.kind !== "PodDisruptionBudget" && d.metadata.name !== "kube-system";
    expect(docs.filter(unchanged)).toEqual(current.filter(unchanged));
    // kube-system's label comes after the install namespace, before anything that uses the webhooks.
    expect(docs.map(key).indexOf("v1 Namespace /kube-system")).toBeLessThan(docs.map(key).indexOf("admissionregistration.k8s.io/v1 MutatingWebhookConfiguration /ordinal"));
  });

  for (const v of ["1.21", "v1.28.3", "1.31"]) {
    it(`--kube-version ${v} prints the current manifests`, async () => {
      expect((await manifests(["--kube-version", v])).docs).toEqual((await manifests([])).docs);
    });
  }

  const refused: [string, RegExp][] = [
    ["1.19", /--kube-version 1\.19: Ordinal needs Kubernetes 1\.20 or later/],
    ["1.2x", /--kube-version must be 1\.MINOR \(e\.g\. 1\.20/],
    ["2", /--kube-version must be 1\.MINOR/],
    ["", /option --kube-version/],
  ];
  for (const [v, message] of refused) {
    it(`--kube-version ${JSON.stringify(v)} is a usage error (exit 2)`, async () => {
      const { code, err } = await manifests(["--kube-version", v]);
      expect(code).toBe(2);
      expect(err).toMatch(message);
    });
  }
});
