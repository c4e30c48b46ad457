/**
 * Started by bounded-plan.test.ts with a small heap (--max-old-space-size): plans sets whose
 * spec.replicas is the maximum, or 2147483647 forced past validation, and prints what each plan
 * does as one JSON line. Before replica slots were sparse (src/core/slots.ts) this died of a heap
 * OOM: one slot per replica, and with Parallel one pod object per missing ordinal.
 */
import { MAX_REPLICAS } from "../../src/api/statefulset.ts";
import { plan } from "../../src/core/planner.ts";
import { NOW, makeSet, pod, revisionOf } from "./fixtures.ts";

const INT32_MAX = 2147483647;
const img2 = { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } };

/** run plans a set of `replicas` (written over the parsed set: no validation sees it) with ready pods at `ordinals` of the first template. */
function run(spec: Record<string, unknown>, replicas: number, ordinals: number[], newTemplate = false): Record<string, number> {
  const old = makeSet(spec);
  const set = makeSet({ ...spec, ...(newTemplate ? img2 : {}) }, { generation: 2 }, { currentRevision: revisionOf(old).metadata?.name });
  set.spec.replicas = replicas;
  const revisions = newTemplate ? [revisionOf(old, 1), revisionOf(set, 2)] : [revisionOf(set)];
  const pods = ordinals.map((i) => pod(old, i, revisions[0].metadata?.name ?? "", "ready"));
  const p = plan({ set, pods, claims: [], revisions, now: NOW });
  const counts: Record<string, number> = { waiting: Number(p.waiting) };
  for (const a of p.actions) counts[a.type] = (counts[a.type] ?? 0) + 1;
  return counts;
}

const parallel = { podManagementPolicy: "Parallel" };
const some = [...Array.from({ length: 100 }, (_, i) => i), 5_000_000];
const rolling = { ...parallel, updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "100%", podUpdatePolicy: "InPlaceIfPossible", imagePrewarm: { parallelism: 3 } } } };
const out = {
  orderedMax: run({}, INT32_MAX, []),
  parallelMax: run(parallel, MAX_REPLICAS, []),
  parallelInt32: run(parallel, INT32_MAX, []),
  parallelInt32WithPods: run(parallel, INT32_MAX, some),
  rollingInt32: run(rolling, INT32_MAX, some, true),
  onDeleteInt32: run({ ...parallel, updateStrategy: { type: "OnDelete" } }, INT32_MAX, some, true),
  partitionInt32: run({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: INT32_MAX } } }, INT32_MAX, some, true),
  heapUsedMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
};
console.log(JSON.stringify(out));
