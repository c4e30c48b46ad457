/**
 * spec.roles in the CLI: `ordinal get -o wide` shows the pods in update order and the roles'
 * order (the CRD's wide columns), and `rollout status` prints the pods by role and the switchover it waits on, and
 * exits 1 once a switchover goes unanswered past its timeout (condition SwitchoverTimedOut).
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { R } from "../../src/kube/resources.ts";
import { cliWorld, webSet } from "./helpers.ts";

const ROLE = "spilo-role";
const withRoles = () => {
  const set = webSet();
  (set.spec as Record<string, unknown>).roles = { labelKey: ROLE, updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: 30 } };
  return set;
};

describe("roles in the CLI", () => {
  it("get -o wide shows the pods in update order and the roles' order", async () => {
    const w = cliWorld();
    await w.fake.seed(withRoles());
    await w.converge();
    expect(await main(["get", "web", "-o", "wide"], w.ctx)).toBe(0);
    const [head, row] = w.out.at(-1)!.split("\n");
    expect(head.split(/\s+/).slice(-2)).toEqual(["ORDER", "ROLES"]);
    // No pod has a role label yet: all rank with the first role, highest ordinal first.
    expect(row.split(/\s+/).slice(-2)).toEqual(["web-2,web-1,web-0", '["replica","master"]']);
  });

  it("rollout status prints the pods by role and the switchover, and exits 1 once it times out", async () => {
    const w = cliWorld();
    await w.fake.seed(withRoles());
    await w.converge();
    for (const [pod, role] of [["web-0", "replica"], ["web-1", "replica"], ["web-2", "master"]])
      await w.client.patch(R.pods, "default", pod, { metadata: { labels: { [ROLE]: role } } }, "merge");
    expect(await main(["set", "image", "web", "nginx=nginx:1.26"], w.ctx)).toBe(0);
    w.out.length = 0;
    // No operator answers: web-1 and web-0 are updated, web-2 is asked and never answers.
    expect(await main(["rollout", "status", "web"], w.ctx)).toBe(1);
    expect(w.out).toContain(`roles ${ROLE}: replica web-0, web-1 → master web-2`);
    expect(w.out.some((l) => /^roles spilo-role: .*; switchover: pod web-2 holds role master: switchover requested at \S+, waiting for its label spilo-role to move \(timeout 30s\)$/.test(l))).toBe(true);
    expect(w.out.at(-1)).toMatch(/^rollout of web is stuck: Progressing SwitchoverTimedOut: rollout stopped: 2 of 3 pods at revision \S+; pod web-2 holds role master: switchover requested at \S+ \(annotation ordinal.dev\/switchover-requested\) was not answered within 30s/);
  });
});
