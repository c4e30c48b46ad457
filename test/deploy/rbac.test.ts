/**
 * deploy/rbac.yaml against the code: every apiserver request the server's code makes (the
 * reconciler, the webhooks' lookup, registration, the serving-certificate bootstrap) is found in
 * src/ and must be granted, and every granted verb must be used. Plus the hard rules: no PVC
 * delete, no wildcards, Secrets and Leases only in the own namespace.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { R } from "../../src/kube/resources.ts";
import { MIRRORED } from "../../src/schedule/watch-cache.ts";

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
const load = (file: string) => parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJSON() as { kind: string; rules?: Rule[] });
const docs = load("deploy/rbac.yaml");
const clusterRules = docs.filter((d) => d.kind === "ClusterRole").flatMap((d) => d.rules ?? []);
const nsRules = docs.filter((d) => d.kind === "Role").flatMap((d) => d.rules ?? []);
const rules = [...clusterRules, ...nsRules];
/** The optional grant for WEBHOOK_REGISTRATION=create, outside the default kustomization. */
const optionalRules = load("deploy/rbac-webhook-create.yaml").flatMap((d) => d.rules ?? []);

/** The files whose requests run as the server's ServiceAccount (not the CLI's user commands, not test support). */
const SERVER_FILES = [
  "src/reconciler/pass.ts",
  "src/reconciler/pass-groups.ts",
  "src/reconciler/set-pass.ts",
  "src/reconciler/quarantine.ts",
  "src/reconciler/executor.ts",
  "src/reconciler/prewarm.ts",
  "src/reconciler/pull-sources.ts",
  "src/reconciler/events.ts",
  "src/lease/lease.ts",
  "src/lease/shard-leases.ts",
  "src/lease/shard-share.ts",
  "src/admission/lookup.ts",
  "src/admission/delete-access.ts",
  "src/reconciler/evict.ts",
  "src/webhook-config/registration.ts",
  "src/node/serving-cert.ts",
];
/** Calls through a variable resource: which resources it stands for (registration's DesiredConfig). */
const VARIABLE_RESOURCES: Record<string, (keyof typeof R)[]> = { resource: ["mutatingWebhooks", "validatingWebhooks"] };
const VERB: Record<string, string> = { get: "get", list: "list", create: "create", update: "update", patch: "patch", delete: "delete", createSubresource: "create" };

/** requestsInCode returns "group|resource[/sub]|verb" for each client call in the server's files. */
function requestsInCode(): Set<string> {
  const out = new Set<string>();
  for (const file of SERVER_FILES) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/client\.(get|list|create|update|patch|delete|createSubresource)\s*(?:<[^>]*>)?\(\s*(R\.(\w+)|(\w+))\s*,/g)) {
      const stmt = text.slice(m.index, text.indexOf(";", m.index));
      const refs = m[3] ? [m[3] as keyof typeof R] : (VARIABLE_RESOURCES[m[4]] ?? []);
      expect(refs.length, `${file}: unknown resource variable ${m[4]} in ${stmt}`).toBeGreaterThan(0);
      // createSubresource(R.x, ns, name, "sub", …) names its subresource; elsewhere only "status" is one.
      const named = m[1] === "createSubresource" ? /^[^,]+,[^,]+,[^,]+,\s*"(\w+)"/.exec(stmt.slice(stmt.indexOf("(") + 1)) : null;
      const sub = named ? `/${named[1]}` : /"status"\s*,?\s*(?:\)|\{)/.test(stmt) ? "/status" : "";
      for (const ref of refs) out.add(`${R[ref].group}|${R[ref].resource}${sub}|${VERB[m[1]]}`);
    }
  }
  // The watch cache's informers list and watch each resource of its table (src/kube/informer.ts).
  for (const { resource } of MIRRORED) for (const verb of ["list", "watch"]) out.add(`${resource.group}|${resource.resource}|${verb}`);
  return out;
}

const granted = (rs: Rule[]) => new Set(rs.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}|${res}|${v}`)))));

describe("deploy/rbac.yaml (+ the optional rbac-webhook-create.yaml) against the requests in src/", () => {
  const used = requestsInCode();
  const all = granted([...rules, ...optionalRules]);
  it("finds the requests (the scan works)", () => {
    expect(used.has("|pods|create")).toBe(true);
    expect(used.has("apps.ordinal.dev|statefulsets/status|patch")).toBe(true);
    expect(used.has("|secrets|create")).toBe(true);
  });
  it("grants every verb the code uses", () => {
    expect([...used].filter((u) => !all.has(u)).sort()).toEqual([]);
  });
  it("grants no verb the code does not use", () => {
    expect([...all].filter((g) => !used.has(g)).sort()).toEqual([]);
  });
});

describe("deploy/rbac.yaml hard rules", () => {
  it("grants no delete on persistentvolumeclaims", () => {
    for (const r of rules) if (r.resources.includes("persistentvolumeclaims")) expect(r.verbs).not.toContain("delete");
  });
  it("has no wildcards; no secrets cluster-wide", () => {
    for (const r of rules) expect([...r.apiGroups, ...r.resources, ...r.verbs]).not.toContain("*");
    for (const r of clusterRules) expect(r.resources).not.toContain("secrets");
  });
  it("reads Secrets only by name, in the own namespace", () => {
    for (const r of nsRules) if (r.resources.includes("secrets") && r.verbs.includes("get")) expect(r.resourceNames).toEqual(["ordinal-webhook-tls"]);
  });
  it("grants leases only through a namespaced Role", () => {
    expect(clusterRules.some((r) => r.resources.includes("leases"))).toBe(false);
  });
  it("the default install cannot create webhook configurations; the optional file grants only that, and kustomization.yaml leaves it out", () => {
    const webhookCreates = [...granted(rules)].filter((g) => g.startsWith("admissionregistration.k8s.io|") && g.endsWith("|create"));
    expect(webhookCreates).toEqual([]);
    expect([...granted(optionalRules)].sort()).toEqual([
      "admissionregistration.k8s.io|mutatingwebhookconfigurations|create",
      "admissionregistration.k8s.io|validatingwebhookconfigurations|create",
    ]);
    const kustomization = parse(readFileSync("deploy/kustomization.yaml", "utf8")) as { resources: string[] };
    expect(kustomization.resources).toContain("rbac.yaml");
    expect(kustomization.resources).not.toContain("rbac-webhook-create.yaml");
  });
  it("may get and update only Ordinal's webhook configurations", () => {
    for (const r of clusterRules) {
      if (r.apiGroups.includes("admissionregistration.k8s.io") && (r.verbs.includes("get") || r.verbs.includes("update"))) expect(r.resourceNames).toEqual(["ordinal", "ordinal-apps-v1"]);
    }
  });
});
