import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { nameOf } from "../../src/objects/names.ts";
import type { PriorityStrategy } from "../../src/api/statefulset.ts";
import { newUpdateOrder, trailingInteger } from "../../src/core/update-order.ts";
import { makeSet } from "./fixtures.ts";

/** A pod `web-N` with `labels` (the order reads only the name and labels). */
const labelled = (ordinal: number, labels: Record<string, string> = {}): Pod => ({ metadata: { name: `web-${ordinal}`, labels } });

/** orderOf returns the names of `pods` in the update order of `priority`. */
const orderOf = (priority: PriorityStrategy | undefined, pods: Pod[]): string[] => newUpdateOrder(makeSet(), priority).sort(pods).map(nameOf);

const weight = (w: number, matchLabels: Record<string, string>) => ({ weight: w, matchSelector: { matchLabels } });

describe("newUpdateOrder", () => {
  const cases: { name: string; priority?: PriorityStrategy; pods: Pod[]; want: string[] }[] = [
    { name: "no strategy: highest ordinal first", pods: [labelled(0), labelled(2), labelled(1)], want: ["web-2", "web-1", "web-0"] },
    { name: "empty strategy: highest ordinal first", priority: {}, pods: [labelled(0), labelled(1)], want: ["web-1", "web-0"] },
    {
      name: "weight: higher score first",
      priority: { weightPriority: [weight(50, { role: "replica" }), weight(10, { zone: "a" })] },
      pods: [labelled(0, { role: "replica" }), labelled(1, { zone: "a" }), labelled(2, { role: "master" })],
      want: ["web-0", "web-1", "web-2"],
    },
    {
      name: "weight: a pod's score is the sum of the terms it matches",
      priority: { weightPriority: [weight(30, { a: "1" }), weight(20, { b: "1" })] },
      pods: [labelled(0, { a: "1" }), labelled(1, { a: "1", b: "1" }), labelled(2, { b: "1" })],
      want: ["web-1", "web-0", "web-2"],
    },
    {
      name: "weight: ties go highest ordinal first",
      priority: { weightPriority: [weight(10, { r: "x" })] },
      pods: [labelled(0, { r: "x" }), labelled(1), labelled(2, { r: "x" }), labelled(3)],
      want: ["web-2", "web-0", "web-3", "web-1"],
    },
    {
      name: "weight: matchExpressions select as everywhere",
      priority: { weightPriority: [{ weight: 5, matchSelector: { matchExpressions: [{ key: "role", operator: "NotIn", values: ["master"] }] } }] },
      pods: [labelled(0, { role: "replica" }), labelled(1, { role: "master" }), labelled(2)],
      want: ["web-2", "web-0", "web-1"],
    },
    {
      name: "weight 0 counts nothing",
      priority: { weightPriority: [weight(0, { r: "x" })] },
      pods: [labelled(0, { r: "x" }), labelled(1)],
      want: ["web-1", "web-0"],
    },
    {
      name: "order: the first listed key's pods first",
      priority: { orderPriority: [{ orderedKey: "first" }, { orderedKey: "second" }] },
      pods: [labelled(0, { second: "1" }), labelled(1, { first: "1" }), labelled(2, { second: "9" })],
      want: ["web-1", "web-2", "web-0"],
    },
    {
      name: "order: a pod with both keys is at the first key's level",
      priority: { orderPriority: [{ orderedKey: "first" }, { orderedKey: "second" }] },
      pods: [labelled(0, { second: "5" }), labelled(1, { first: "0", second: "9" })],
      want: ["web-1", "web-0"],
    },
    {
      name: "order: within a level the trailing integer, higher first",
      priority: { orderPriority: [{ orderedKey: "prio" }] },
      pods: [labelled(0, { prio: "sts-5" }), labelled(1, { prio: "sts-10" }), labelled(2, { prio: "7" })],
      want: ["web-1", "web-2", "web-0"],
    },
    {
      name: "order: equal or missing integers go highest ordinal first",
      priority: { orderPriority: [{ orderedKey: "prio" }] },
      pods: [labelled(0, { prio: "a" }), labelled(1, { prio: "0" }), labelled(2, { prio: "b" })],
      want: ["web-2", "web-1", "web-0"],
    },
    {
      // Kruise's code sorts these first, its API comment last: Ordinal follows the comment (update-order.ts).
      name: "order: a pod with none of the keys goes after every pod with one (the documented order, not Kruise's code)",
      priority: { orderPriority: [{ orderedKey: "first" }, { orderedKey: "second" }] },
      pods: [labelled(3), labelled(0, { second: "1" }), labelled(1), labelled(2, { first: "1" })],
      want: ["web-2", "web-0", "web-3", "web-1"],
    },
    {
      name: "order: an empty value carries the key (level, integer 0)",
      priority: { orderPriority: [{ orderedKey: "k" }] },
      pods: [labelled(0), labelled(1, { k: "" })],
      want: ["web-1", "web-0"],
    },
  ];
  for (const c of cases) it(c.name, () => expect(orderOf(c.priority, c.pods)).toEqual(c.want));

  it("without a priority or roles the order is not ranked (the partition names ordinals)", () => {
    expect(newUpdateOrder(makeSet(), undefined).ranked).toBe(false);
    expect(newUpdateOrder(makeSet(), {}).ranked).toBe(false);
    expect(newUpdateOrder(makeSet(), { orderPriority: [{ orderedKey: "k" }] }).ranked).toBe(true);
    expect(newUpdateOrder(makeSet(), { weightPriority: [weight(1, { a: "b" })] }).ranked).toBe(true);
  });

  it("does not change the array it sorts", () => {
    const pods = [labelled(0), labelled(1)];
    orderOf(undefined, pods);
    expect(pods.map(nameOf)).toEqual(["web-0", "web-1"]);
  });
});

describe("trailingInteger", () => {
  const cases: [string, bigint][] = [
    ["", 0n],
    ["abc", 0n],
    ["5", 5n],
    ["sts-10", 10n],
    ["a1b22", 22n],
    ["007", 7n],
    ["9223372036854775807", 9223372036854775807n],
    // Beyond int64: Kruise's ParseInt fails and the value counts as 0.
    ["x9223372036854775808", 0n],
  ];
  for (const [value, want] of cases) it(JSON.stringify(value), () => expect(trailingInteger(value)).toBe(want));
});
