// spec.roles at apply time (validateStatefulSet, apps.ordinal.dev): the label key, the update
// order, the switchover's roles and timeout, unknown keys refused by name.
import { describe, expect, it } from "vitest";
import { MAX_ROLES } from "../../src/api/statefulset.ts";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { type Raw, messages, validSet, with_ } from "./helpers.ts";

const withRoles = (roles: unknown) =>
  validateStatefulSet(
    with_(validSet, (s: Raw) => {
      s.spec.roles = roles;
    }),
    undefined,
    { group: "apps.ordinal.dev" },
  );
const patroni = { labelKey: "spilo-role", updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: 300 } };

describe("validateRoles", () => {
  it.each([
    ["Patroni's roles with a switchover", patroni],
    ["an order alone", { labelKey: "example.com/role", updateOrder: ["follower", "leader"] }],
    ["a switchover without a timeout", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a"] } }],
    ["the longest timeout", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a"], timeoutSeconds: 86400 } }],
  ])("accepts %s", (_, roles) => expect(withRoles(roles)).toEqual({ errors: [], warnings: [] }));

  it.each([
    ["no labelKey", { updateOrder: ["a"] }, ["spec.roles.labelKey: Required value: the pod label the application writes each pod's role in (Patroni: spilo-role)"]],
    ["a labelKey that is no label key", { labelKey: "a b", updateOrder: ["a"] }, [
      `spec.roles.labelKey: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]],
    ["Ordinal's own label as labelKey", { labelKey: "ordinal.dev/lifecycle-state", updateOrder: ["a"] }, [
      `spec.roles.labelKey: Invalid value: "ordinal.dev/lifecycle-state": is a label Ordinal writes on its pods: name the label the application writes each pod's role in`,
    ]],
    ["no updateOrder", { labelKey: "role" }, ["spec.roles.updateOrder: Required value: list at least one role (label value)"]],
    ["an empty updateOrder", { labelKey: "role", updateOrder: [] }, ["spec.roles.updateOrder: Required value: list at least one role (label value)"]],
    ["a duplicate role", { labelKey: "role", updateOrder: ["a", "b", "a"] }, [`spec.roles.updateOrder[2]: Duplicate value: "a"`]],
    ["an empty role", { labelKey: "role", updateOrder: [""] }, [`spec.roles.updateOrder[0]: Invalid value: "": a role is a non-empty label value`]],
    ["a role that is no label value", { labelKey: "role", updateOrder: ["a/b"] }, [
      `spec.roles.updateOrder[0]: Invalid value: "a/b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]],
    ["too many roles", { labelKey: "role", updateOrder: Array.from({ length: MAX_ROLES + 1 }, (_, i) => `r${i}`) }, [`spec.roles.updateOrder: Too many: ${MAX_ROLES + 1}: must have at most ${MAX_ROLES} items`]],
    ["a switchover role not in updateOrder", { labelKey: "role", updateOrder: ["replica", "master"], switchover: { roles: ["leader"] } }, [
      `spec.roles.switchover.roles[0]: Invalid value: "leader": must be one of spec.roles.updateOrder ("replica", "master")`,
    ]],
    ["a switchover without roles", { labelKey: "role", updateOrder: ["a"], switchover: { roles: [] } }, ["spec.roles.switchover.roles: Required value: list at least one role (label value)"]],
    ["a duplicate switchover role", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a", "a"] } }, [`spec.roles.switchover.roles[1]: Duplicate value: "a"`]],
    ["a zero timeout", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a"], timeoutSeconds: 0 } }, ["spec.roles.switchover.timeoutSeconds: Invalid value: 0: must be between 1 and 86400 seconds (default 300)"]],
    ["a timeout over a day", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a"], timeoutSeconds: 86401 } }, ["spec.roles.switchover.timeoutSeconds: Invalid value: 86401: must be between 1 and 86400 seconds (default 300)"]],
    ["an unknown key", { labelKey: "role", updateOrder: ["a"], priority: 3 }, ["spec.roles.priority: Forbidden: not supported: spec.roles has labelKey, updateOrder, switchover"]],
    ["an unknown switchover key", { labelKey: "role", updateOrder: ["a"], switchover: { roles: ["a"], action: "x" } }, ["spec.roles.switchover.action: Forbidden: not supported: spec.roles.switchover has roles, timeoutSeconds"]],
    ["roles of the wrong type", { labelKey: "role", updateOrder: "a" }, [`spec.roles.updateOrder: Invalid value: "string": spec.roles.updateOrder in body must be of type array: "string"`]],
  ])("refuses %s", (_, roles, want) => expect(messages(withRoles(roles).errors)).toEqual(want));
});
