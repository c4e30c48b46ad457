import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderWebhookManifests } from "../../src/webhook-config/gen-webhooks.ts";
import { HOOKS, webhookConfigurations } from "../../src/webhook-config/webhook-configs.ts";
import { PULLER_LABEL, SET_NAME_LABEL, SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";

const dir = new URL("../../webhooks/", import.meta.url);

describe("webhooks/*.yaml", () => {
  it("are up to date with webhook-configs.ts (else run: npm run gen)", async () => {
    const rendered = renderWebhookManifests();
    expect((await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort()).toEqual(rendered.map((r) => r.file).sort());
    for (const { file, text } of rendered) {
      expect(await readFile(new URL(file, dir), "utf8"), `webhooks/${file} is stale`).toBe(text);
    }
  });

  it("say why each failurePolicy was chosen, right above it", () => {
    for (const { text } of renderWebhookManifests()) {
      const lines = text.split("\n");
      lines.forEach((line, i) => {
        if (!/^\s+failurePolicy:/.test(line)) return;
        let first = i - 1;
        while (first > 0 && /^\s+#/.test(lines[first - 1])) first--;
        const policy = line.trim().split(": ")[1];
        expect(lines[first], `comment above line ${i + 1}`).toMatch(new RegExp(`^\\s+# ${policy}: `));
      });
    }
  });

  it("parse back to the objects register applies", () => {
    const placeholder = webhookConfigurations({ url: "https://ordinal.invalid" }, { validateAppsV1StatefulSets: true });
    expect(renderWebhookManifests().map((r) => parse(r.text) as unknown)).toEqual(placeholder.map((c) => c.object));
  });
});

describe("HOOKS", () => {
  for (const { hook, config } of HOOKS) {
    it(`${hook.name}: the fields the apiserver needs, on a path of ours`, () => {
      expect(hook).toMatchObject({ sideEffects: "None", admissionReviewVersions: ["v1"], matchPolicy: "Equivalent" });
      expect(["Fail", "Ignore"]).toContain(hook.failurePolicy);
      expect(hook.timeoutSeconds).toBeGreaterThanOrEqual(1);
      expect(hook.timeoutSeconds).toBeLessThanOrEqual(30);
      expect(hook.path).toMatch(/^\/(mutate|validate)\//);
      expect(hook.namespaceSelector?.matchExpressions).toContainEqual({ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] });
      for (const rule of hook.rules ?? []) expect(rule.scope).toBe("Namespaced");
      if (hook.rules?.some((r) => r.resources?.includes("pods"))) {
        // Pod hooks see Ordinal's pods only: a set's (the chosen-deletion hook: those carrying its label), or (wake-only) an image puller's.
        const key = hook.name.startsWith("pullers.") ? PULLER_LABEL : SET_NAME_LABEL;
        const chosen = hook.name.startsWith("specified-delete.") ? [{ key: SPECIFIED_DELETE_LABEL, operator: "Exists" }] : [];
        expect(hook.objectSelector).toEqual({ matchExpressions: [{ key, operator: "Exists" }, ...chosen] });
      }
      expect(config === "mutating").toBe(hook.name.includes(".mutate."));
    });
  }
});
