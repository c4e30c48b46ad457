/**
 * priorityStrategy (issue 33) as seeded randomized runs: a set (OrderedReady or Parallel, 3–6
 * replicas, maxUnavailable 1, 2 or 50%, sometimes a partition, recreated or updated in place) with a random weightPriority or
 * orderPriority, one or two template changes, and pod labels the test changes at random moments
 * (the order moves while Ordinal rolls), under injected faults, lost responses and crashes.
 * Asserted on every pod write the reconciler makes:
 * - maxUnavailable: an available replica is deleted, or taken out of traffic for its in-place
 *   update (its InPlaceUpdateReady gate set False), only while fewer than maxUnavailable others
 *   are unavailable;
 * - the order: an update of an available pod (deleted, or gated for in place) comes after every
 *   old pod before it in the update order (as the labels are then) has been taken: none of them
 *   is left old and serving;
 * - the partition counts pods: pods at the latest revision plus old pods on their way out never
 *   exceed replicas − partition;
 * and every run converges with exactly replicas − partition pods at the latest revision.
 * ORDINAL_RANDOM_RUNS / ORDINAL_RANDOM_SEED pick the seeds (a failure prints its seed).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import { newUpdateOrder } from "../../src/core/update-order.ts";
import { START_REASON, isInPlaceUpdating, readInPlaceState } from "../../src/core/inplace-state.ts";
import { updateStrategyOf } from "../../src/core/update-strategy.ts";
import { isCreated, isHealthy, isRunningAndReady } from "../../src/core/pod-state.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { crashingReconciler, mulberry32 } from "./chaos.ts";
import { setManifest } from "../support/fixtures.ts";
import { projectionDiffs } from "../support/projection-check.ts";

const RUNS = randomRuns(8, 150);
const NS = "default";
const TIERS = ["a", "b", undefined] as const;

const imageOf = (p: Pod) => p.spec?.containers[0]?.image ?? "";
const isTerminating = (p: Pod) => p.metadata?.deletionTimestamp != null;
/** isGated is true while an in-place update holds the pod out of traffic (gate False, or its state annotation). */
const isGated = isInPlaceUpdating;

/** drawPriority returns a random priorityStrategy over the labels `tier` and `prio`. */
function drawPriority(rnd: () => number): Record<string, unknown> {
  const w = () => Math.floor(rnd() * 101);
  if (rnd() < 0.5)
    return {
      weightPriority: [
        { weight: w(), matchSelector: { matchLabels: { tier: "a" } } },
        { weight: w(), matchSelector: { matchExpressions: [{ key: "prio", operator: "Exists" }] } },
        ...(rnd() < 0.5 ? [{ weight: w(), matchSelector: { matchLabels: { tier: "b" } } }] : []),
      ],
    };
  return { orderPriority: rnd() < 0.5 ? [{ orderedKey: "tier" }, { orderedKey: "prio" }] : [{ orderedKey: "prio" }] };
}

async function runOnce(seed: number): Promise<{ steps: number; inPlace: boolean; gated: number }> {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const replicas = 3 + Math.floor(rnd() * 4);
  const policy = pick(["OrderedReady", "Parallel"] as const);
  const maxUnavailable = pick([1, 2, "50%"] as const);
  const max = maxUnavailable === "50%" ? Math.ceil(replicas / 2) : maxUnavailable;
  const partition = rnd() < 0.4 ? 1 + Math.floor(rnd() * (replicas - 1)) : 0;
  const priorityStrategy = drawPriority(rnd);
  // Drawn from a stream of its own: the recreate runs of each seed stay as they were.
  const inPlace = mulberry32((seed ^ 0x9e3779b9) >>> 0)() < 0.5;
  const spec = { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable, partition, unorderedUpdate: { priorityStrategy }, ...(inPlace ? { podUpdatePolicy: "InPlaceIfPossible" } : {}) } } };
  const manifest = (image: string) => setManifest({ namespace: NS, replicas, policy, image, spec });
  let clock = Date.parse("2026-11-21T00:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const observer = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(observer, { namespace: NS, random: rnd, speed: 0.3 + rnd() * 0.7, now });
  let chaos = true;
  let latest = "img:1";
  const violations: string[] = [];
  let gates = 0;
  const snapshot = () => observer.list<Pod>(R.pods, NS);
  const readSet = async () => StatefulSetSchema.parse(await observer.get(R.statefulSets, NS, "web")) as StatefulSet;

  const observe = async (method: string, path: string, code: number, body: unknown) => {
    if (code >= 300) return;
    const podCreate = method === "POST" && /\/namespaces\/default\/pods$/.test(path);
    const podDelete = method === "DELETE" && /\/pods\/[^/]+$/.test(path);
    // An in-place update takes the pod out of traffic first: its gate False (inplace-update.ts).
    const gated = method === "PATCH" && /\/pods\/[^/]+\/status$/.test(path) && JSON.stringify(body ?? "").includes(START_REASON);
    if (!podCreate && !podDelete && !gated) return;
    if (gated) gates++;
    const pods = await snapshot();
    // The partition counts pods while a rollout runs (current and update revisions differ): at the
    // latest revision, plus old ones on their way out (each comes back at most at the latest).
    const st = (await readSet()).status;
    const rolling = !!st?.currentRevision && st.currentRevision !== st.updateRevision;
    const taken = pods.filter((p) => (isTerminating(p) || isGated(p) ? imageOf(p) !== latest : imageOf(p) === latest)).length;
    if (rolling && taken > replicas - partition) violations.push(`${taken} pods at ${latest} or being replaced, partition ${partition} of ${replicas}`);
    if (podCreate) return;
    const parts = path.split("/");
    const name = decodeURIComponent(parts[gated ? parts.length - 2 : parts.length - 1]);
    const target = pods.find((p) => p.metadata!.name === name);
    // The write is applied already: the target reads as terminating or gated. Judge it as it was before.
    // A pod whose in-place update is under way (its state annotation, which the gate write leaves
    // as it was) is moved on to the latest revision wherever it is in the order: it is down already.
    if (!target || target.status?.phase === "Failed" || !isRunningAndReady(target) || readInPlaceState(target)) return;
    const others = pods.filter((p) => p.metadata!.name !== name);
    const unavailable = replicas - 1 - others.filter((p) => isHealthy(p) && !isGated(p)).length;
    if (unavailable >= max) violations.push(`${gated ? "took out of traffic" : "deleted"} available ${name} while ${unavailable} other replicas were unavailable (maxUnavailable ${max})`);
    if (imageOf(target) === latest) return;
    // The order, as the reconciler's pass read it: the set (spec unchanged within a step) and these labels.
    const order = newUpdateOrder(await readSet(), updateStrategyOf(await readSet()).priority).sort(pods).map((p) => p.metadata!.name!);
    const before = others.filter((p) => order.indexOf(p.metadata!.name!) < order.indexOf(name));
    const skipped = before.find((p) => !isTerminating(p) && !isGated(p) && isCreated(p) && imageOf(p) !== latest);
    if (skipped) violations.push(`${gated ? "took out of traffic" : "deleted"} ${name} before ${skipped.metadata!.name}, which comes first in the update order [${order.join(",")}]`);
  };

  const reconciler = crashingReconciler(fake.fetch, { random: rnd, chaos: () => chaos, leaseNamespace: NS, now, observe });
  await observer.create(R.statefulSets, NS, manifest(latest));
  const changes = [6 + Math.floor(rnd() * 6)];
  let image = 1;
  let steps = 0;
  for (; steps < 160; steps++) {
    await reconciler.invoke();
    await kubelet.step();
    // The pass plans from projected pods: the labels the order reads must survive the projection.
    expect(projectionDiffs(fake, NS, now())).toEqual([]);
    clock += 1000 + Math.floor(rnd() * 3000);
    // The labels the order reads move at random moments, between passes.
    if (steps < 70 && rnd() < 0.3) {
      const pods = await snapshot();
      const victim = pods.length ? pick(pods) : undefined;
      const tier = pick(TIERS);
      const prio = rnd() < 0.6 ? `x-${Math.floor(rnd() * 20)}` : null;
      if (victim && !isTerminating(victim)) await observer.patch(R.pods, NS, victim.metadata!.name!, { metadata: { labels: { tier: tier ?? null, prio } } }, "merge");
    }
    if (changes.includes(steps)) {
      latest = `img:${++image}`;
      await observer.patch(R.statefulSets, NS, "web", { spec: { template: manifest(latest).spec.template } }, "merge");
      if (changes.length === 1 && rnd() < 0.6) changes.push(steps + 2 + Math.floor(rnd() * 6));
    }
    if (steps === 80) chaos = false;
    if (violations.length) break;
    if (!chaos) {
      const set = await readSet();
      const pods = await snapshot();
      const atLatest = pods.filter((p) => imageOf(p) === latest).length;
      // A set whose first pods came at the latest template had no rollout: all of them are at it.
      const want = set.status?.currentRevision === set.status?.updateRevision ? replicas : replicas - partition;
      if (
        pods.length === replicas &&
        pods.every(isHealthy) &&
        atLatest === want &&
        set.status?.updatedReplicas === want &&
        set.status?.observedGeneration === set.metadata.generation
      )
        return { steps, inPlace, gated: gates };
    }
  }
  const pods = await snapshot();
  throw new Error(
    `seed ${seed} (replicas ${replicas}, ${policy}${inPlace ? ", in place" : ""}, ${JSON.stringify(spec)}): ${violations.length ? violations.join("; ") : "did not converge"}; pods: ${pods
      .map((p) => `${p.metadata!.name}:${imageOf(p)}:${JSON.stringify(p.metadata?.labels?.tier ?? "")}/${p.metadata?.labels?.prio ?? ""}:${isRunningAndReady(p) ? "ready" : "unready"}${isTerminating(p) ? ":terminating" : ""}`)
      .join(", ")}`,
  );
}

describe("priorityStrategy: random priorities, labels moving during the rollout, faults and crashes", () => {
  it(`${RUNS} seeded runs keep maxUnavailable, the order and the partition's count, and converge`, async () => {
    let steps = 0;
    let inPlace = 0;
    let gated = 0;
    for (const r of await forEachSeed("test/reconciler/priority-random-runs.test.ts", RUNS, runOnce)) {
      steps += r.steps;
      inPlace += r.inPlace ? 1 : 0;
      gated += r.gated;
    }
    console.log(`priority runs: ${RUNS} converged (${inPlace} in place, ${gated} in-place starts judged), ${steps} steps`);
    expect(steps).toBeGreaterThan(0);
    // The sample reaches both ways a pod is updated.
    if (RUNS >= 8) expect(gated).toBeGreaterThan(0);
  }, 600_000);
});
