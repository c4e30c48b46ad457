/** deploy/rbac.yaml: the reconciler may never delete a PVC, and never gets wildcards or secrets. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
const docs = parseAllDocuments(readFileSync("deploy/rbac.yaml", "utf8")).map((d) => d.toJSON() as { kind: string; rules?: Rule[] });
const rules = docs.flatMap((d) => d.rules ?? []);

describe("deploy/rbac.yaml", () => {
  it("grants no delete on persistentvolumeclaims", () => {
    for (const r of rules) if (r.resources.includes("persistentvolumeclaims")) expect(r.verbs).not.toContain("delete");
  });
  it("has no wildcards and no secrets", () => {
    for (const r of rules) {
      expect([...r.apiGroups, ...r.resources, ...r.verbs]).not.toContain("*");
      expect(r.resources).not.toContain("secrets");
    }
  });
  it("grants leases only through a namespaced Role", () => {
    for (const d of docs) if (d.kind === "ClusterRole") expect((d.rules ?? []).some((r) => r.resources.includes("leases"))).toBe(false);
  });
});
