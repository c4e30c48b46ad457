/**
 * Seeded randomized runs of the whole reconciler against the fake apiserver with injected
 * 409/429/500/network faults, lost responses and crashes between any two requests, while a
 * kubelet player moves pods at random speeds and the test changes the set. Upstream's
 * invariants are asserted on every request; every run must converge once the chaos stops.
 * Some runs have a progress deadline with rollbackOnFailure and get bad images (never Ready): the
 * reconciler must roll them back by itself, never twice for one revision and never to a bad one.
 * Runs 60 seeds by default and 500 under ORDINAL_THOROUGH=1 (.ci/run); ORDINAL_RANDOM_RUNS sets
 * the number of runs, ORDINAL_RANDOM_SEED the first seed; a failure prints its seed and the
 * command that reruns it (test/support/random.ts).
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import { wasNeverReady } from "../../src/core/healing.ts";
import { getOrdinal } from "../../src/objects/names.ts";
import { isHealthy, isRunningAndReady } from "../../src/core/pod-state.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { convergedTo, crashingReconciler, mulberry32 } from "./chaos.ts";
import { setManifest } from "../support/fixtures.ts";

const RUNS = randomRuns(60, 500);
/** Runs through the watch cache (a mirror that may be stale), seeds after the others'. */
const CACHED_RUNS = randomRuns(8, 200);
const NS = "default";

interface Scenario {
  replicas: number;
  policy: "OrderedReady" | "Parallel";
  claims: number;
  strategy: "RollingUpdate" | "OnDelete";
  partition: number;
  whenScaled: "Retain" | "Delete";
  /** progressDeadlineSeconds 20 with rollbackOnFailure (RollingUpdate only); bad images are then applied too. */
  deadline: boolean;
}

/** Images of this form run but never become Ready (the kubelet player's unreadyImages). */
const isBad = (image: string) => image.startsWith("img:bad");

function scenario(rnd: () => number): Scenario {
  const s = baseScenario(rnd);
  // Drawn after the base scenario, so the other runs' seeds keep their scenarios.
  s.deadline = s.strategy === "RollingUpdate" && rnd() < 0.4;
  return s;
}

function baseScenario(rnd: () => number): Scenario {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const replicas = 1 + Math.floor(rnd() * 4);
  return {
    replicas,
    policy: pick(["OrderedReady", "OrderedReady", "Parallel"] as const),
    claims: pick([0, 1, 1, 2]),
    strategy: pick(["RollingUpdate", "RollingUpdate", "RollingUpdate", "OnDelete"] as const),
    partition: rnd() < 0.25 ? Math.floor(rnd() * replicas) : 0,
    whenScaled: pick(["Retain", "Delete"] as const),
    deadline: false,
  };
}

function setObject(s: Scenario, replicas: number, image: string) {
  return setManifest({
    namespace: NS,
    replicas,
    policy: s.policy,
    image,
    claims: Array.from({ length: s.claims }, (_, i) => `data${i}`),
    spec: {
      updateStrategy: s.strategy === "OnDelete" ? { type: "OnDelete" } : { type: "RollingUpdate", rollingUpdate: { partition: s.partition, ...(s.deadline ? { rollbackOnFailure: true } : {}) } },
      ...(s.deadline ? { progressDeadlineSeconds: 20 } : {}),
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: s.whenScaled },
    },
  });
}

async function runOnce(seed: number, cached = false): Promise<{ steps: number; faults: Record<string, number>; rollbacks: number }> {
  const rnd = mulberry32(seed);
  const s = scenario(rnd);
  let clock = Date.parse("2026-11-21T00:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const observer = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const failPods = new Set<string>();
  const kubelet = new KubeletPlayer(observer, { namespace: NS, random: rnd, speed: 0.3 + rnd() * 0.7, now, failPods, unreadyImages: isBad });
  let replicas = s.replicas;
  let chaos = true;
  const condemnedEver = new Set<string>();
  const violations: string[] = [];
  const snapshot = () => observer.list<Pod>(R.pods, NS);

  const observe = async (method: string, path: string, code: number, body: unknown) => {
    if (code >= 300) return;
    const podCreate = method === "POST" && /\/namespaces\/default\/pods$/.test(path);
    const podDelete = method === "DELETE" && /\/pods\/[^/]+$/.test(path);
    if (method === "DELETE" && /persistentvolumeclaims/.test(path)) violations.push(`reconciler deleted a PVC: ${path}`);
    if (!podCreate && !podDelete) return;
    const pods = await snapshot();
    const byOrdinal = new Map<number, number>();
    for (const p of pods) byOrdinal.set(getOrdinal(p.metadata!.name!), (byOrdinal.get(getOrdinal(p.metadata!.name!)) ?? 0) + 1);
    for (const [ord, n] of byOrdinal) if (n > 1) violations.push(`two pods for ordinal ${ord}`);
    if (podCreate && s.policy === "OrderedReady") {
      const ord = getOrdinal((body as Pod).metadata!.name!);
      for (let j = 0; j < ord; j++) {
        const lower = pods.find((p) => getOrdinal(p.metadata!.name!) === j);
        if (!lower || !isRunningAndReady(lower) || lower.metadata?.deletionTimestamp) violations.push(`pod ${ord} created while ordinal ${j} not Running+Ready`);
      }
    }
    if (podDelete) {
      const name = decodeURIComponent(path.split("/").pop()!);
      const target = pods.find((p) => p.metadata!.name === name);
      const ord = getOrdinal(name);
      const failed = target?.status?.phase === "Failed";
      // Healing (src/core/healing.ts) replaces a pod never Ready at an abandoned revision at once.
      const healed = target && !isRunningAndReady(target) && wasNeverReady(target);
      if (ord < replicas && target && !failed && !healed && s.strategy === "RollingUpdate") {
        // An update deletion: every other replica must be healthy (one unavailable at a time).
        const others = pods.filter((p) => p.metadata!.name !== name && getOrdinal(p.metadata!.name!) < replicas);
        if (s.policy === "OrderedReady" && others.some((p) => !isHealthy(p))) violations.push(`update deleted ${name} while another replica was unhealthy`);
        // Both policies: a rolling update goes down from the highest ordinal, each one healthy first.
        if (others.some((p) => getOrdinal(p.metadata!.name!) > ord && !isHealthy(p))) violations.push(`update deleted ${name} while a higher replica was unhealthy`);
        if (others.length < Math.min(replicas - 1, replicas) && s.policy === "OrderedReady") violations.push(`update deleted ${name} while a replica was missing`);
      }
    }
  };

  const reconciler = crashingReconciler(fake.fetch, { random: rnd, chaos: () => chaos, leaseNamespace: NS, now, observe, cached });
  try {
    return await steer();
  } finally {
    await reconciler.stop();
  }

  async function steer(): Promise<{ steps: number; faults: Record<string, number>; rollbacks: number }> {
  await observer.create(R.statefulSets, NS, setObject(s, replicas, "img:1"));

  const claimsNow = async () => new Set((await observer.list<PersistentVolumeClaim>(R.pvcs, NS)).map((c) => c.metadata!.name!));
  let claimsSeen = await claimsNow();
  let image = 1;
  /** The template's image as the test last wrote it; any other is a rollback's. */
  let written = "img:1";
  let rollbacks = 0;
  const rolledBackFrom = new Set<string>();
  const setTemplate = async (img: string) => {
    written = img;
    await observer.patch(R.statefulSets, NS, "web", { spec: { template: setObject(s, replicas, img).spec.template } }, "merge");
  };
  let steps = 0;
  for (; steps < 120; steps++) {
    await reconciler.invoke();
    await kubelet.step();
    clock += 1000 + Math.floor(rnd() * 4000);
    const r = rnd();
    if (steps < 60 && r < 0.08) {
      replicas = Math.floor(rnd() * 5);
      for (let i = replicas; i < 6; i++) condemnedEver.add(String(i));
      await observer.patch(R.statefulSets, NS, "web", { spec: { replicas } }, "merge");
    } else if (steps < 60 && r < 0.14) {
      image++;
      await setTemplate(`img:${image}`);
    } else if (steps < 60 && r < 0.17) {
      const pods = await snapshot();
      if (pods.length) {
        const victim = pods[Math.floor(rnd() * pods.length)];
        if (rnd() < 0.5) failPods.add(victim.metadata!.name!);
        else await observer.delete(R.pods, NS, victim.metadata!.name!);
      }
    } else if (steps < 60 && r < 0.21 && s.deadline) {
      image++;
      await setTemplate(`img:bad${image}`);
    }
    if (steps === 60) chaos = false;
    if (s.deadline) {
      const set = StatefulSetSchema.parse(await observer.get(R.statefulSets, NS, "web"));
      const now = set.spec.template.spec.containers[0].image ?? "";
      const failed = (set.metadata.annotations?.["ordinal.dev/failed-revisions"] ?? "").split(",").filter(Boolean);
      if (new Set(failed).size !== failed.length) violations.push(`rolled back twice from one revision: ${failed.join(",")}`);
      if (now !== written) {
        // The reconciler wrote the template: a rollback, never to an image it rolled back from.
        if (rolledBackFrom.has(now)) violations.push(`rolled back to ${now}, which was rolled back from before`);
        rolledBackFrom.add(written);
        rollbacks++;
        written = now;
      }
      if (steps === 60) {
        // Chaos over: a person turns the deadline off and fixes a bad template; the run must converge.
        // A bad revision made current by a scale to zero also comes back below the partition (pods
        // there are created at the current revision), so the person rolls every pod forward
        // (partition 0), as upstream's manual recovery does.
        await observer.patch(R.statefulSets, NS, "web", { spec: { progressDeadlineSeconds: null, updateStrategy: { rollingUpdate: { rollbackOnFailure: null, partition: 0 } } } }, "merge");
        if (isBad(now)) await setTemplate(`img:${++image}`);
        // A scale to zero made a bad revision current (every one of no pods was updated and Ready,
        // as upstream counts): healing replaces pods only at abandoned revisions, so the person also
        // deletes the pods left at bad images, upstream's documented manual step.
        for (const p of await snapshot()) if (isBad(p.spec?.containers[0].image ?? "")) await observer.delete(R.pods, NS, p.metadata!.name!);
      }
    }
    const claims = await claimsNow();
    for (const c of claimsSeen) {
      if (claims.has(c)) continue;
      const ord = c.split("-").pop()!;
      if (s.whenScaled !== "Delete" || !condemnedEver.has(ord)) violations.push(`PVC ${c} deleted without a retention policy saying so`);
    }
    claimsSeen = claims;
    if (violations.length) break;
    if (!chaos && steps > 62) {
      const set: StatefulSet = StatefulSetSchema.parse(await observer.get(R.statefulSets, NS, "web"));
      if (set.spec.replicas === replicas && convergedTo(set, await snapshot())) {
        return { steps, faults: reconciler.faults, rollbacks };
      }
    }
  }
  const pods = await snapshot();
  throw new Error(
    `seed ${seed} (${JSON.stringify(s)}, replicas ${replicas}): ${violations.length ? violations.join("; ") : "did not converge"}; pods: ${pods
      .map((p) => `${p.metadata!.name}:${p.status?.phase}:${isRunningAndReady(p) ? "ready" : "unready"}:${p.metadata?.deletionTimestamp ? "terminating" : ""}`)
      .join(", ")}`,
  );
}
}

describe("randomized reconcile runs with faults and crashes", () => {
  it(`${RUNS} seeded runs keep upstream's invariants and converge`, async () => {
    const totals: Record<string, number> = {};
    let steps = 0;
    let rollbacks = 0;
    for (const r of await forEachSeed("test/reconciler/random-runs.test.ts", RUNS, runOnce)) {
      steps += r.steps;
      rollbacks += r.rollbacks;
      for (const [k, v] of Object.entries(r.faults)) totals[k] = (totals[k] ?? 0) + v;
    }
    console.log(`random runs: ${RUNS} converged, ${steps} steps, ${rollbacks} deadline rollbacks, faults injected: ${JSON.stringify(totals)}`);
    if (RUNS >= 20) expect(rollbacks).toBeGreaterThan(0);
    expect(totals.crash ?? 0).toBeGreaterThan(0);
    expect(totals.lost ?? 0).toBeGreaterThan(0);
  }, 600_000);

  it(`${CACHED_RUNS} seeded runs through the watch cache (reads from a mirror that may be stale) keep them too`, async () => {
    const totals: Record<string, number> = {};
    let steps = 0;
    for (const r of await forEachSeed("test/reconciler/random-runs.test.ts", CACHED_RUNS, (seed) => runOnce(seed + 100_000, true))) {
      steps += r.steps;
      for (const [k, v] of Object.entries(r.faults)) totals[k] = (totals[k] ?? 0) + v;
    }
    console.log(`random runs through the watch cache: ${CACHED_RUNS} converged, ${steps} steps, faults injected: ${JSON.stringify(totals)}`);
    expect(totals.crash ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
