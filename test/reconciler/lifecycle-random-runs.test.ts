/**
 * Seeded randomized runs of the whole reconciler with lifecycle hooks (spec.lifecycle.preDelete and
 * inPlaceUpdate, labels and finalizers, markPodNotReady) against the fake apiserver, with injected
 * faults, lost responses and crashes between any two requests, a kubelet player, and "another
 * controller" that removes a held pod's hook labels and finalizers after a random delay and puts
 * an Updated pod's back. Random template changes (in place or not), scaling and pause. Asserted on
 * every request: no pod is deleted while it carries a preDelete hook's label or finalizer, no
 * pod's images change while it carries an inPlaceUpdate hook's, and with markPodNotReady a pod
 * enters PreparingDelete/PreparingUpdate only with its gate already False. Every run must
 * converge once the chaos stops (all pods at the update revision, Ready, state Normal).
 * Half the runs also have a short progress deadline with rollbackOnFailure (drawn from a stream of
 * their own, so the other seeds replay exactly): a held pod stops the clock, so the reconciler must
 * never roll the template back while a hook holds a pod (checked at each rollback write).
 * Runs 8 seeds by default and 40 under ORDINAL_THOROUGH=1; ORDINAL_RANDOM_RUNS / ORDINAL_RANDOM_SEED
 * pick the range; a failure prints its seed and how to rerun it.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { gateCondition } from "../../src/core/inplace-state.ts";
import { hookHolders } from "../../src/core/lifecycle.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { LIFECYCLE_STATE_LABEL } from "../../src/objects/constants.ts";
import { getOrdinal } from "../../src/objects/names.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { crashingReconciler, mulberry32 } from "./chaos.ts";
import { projectionDiffs } from "../support/projection-check.ts";

const RUNS = randomRuns(8, 40);
const NS = "default";
const LABEL = "example.io/drain";
const FINALIZER = "example.io/keep";

function runOnce(seed: number): Promise<{ steps: number; held: number; rollbacks: number; deadline: boolean }> {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const s = {
    replicas: 1 + Math.floor(rnd() * 4),
    policy: pick(["OrderedReady", "Parallel"] as const),
    update: pick(["ReCreate", "InPlaceIfPossible"] as const),
    maxUnavailable: pick([1, 2]),
    markPodNotReady: rnd() < 0.5,
    finalizers: rnd() < 0.5,
    deadline: mulberry32((seed ^ 0x5bd1e995) >>> 0)() < 0.5,
  };
  const hook = { labelsHandler: { [LABEL]: "true" }, ...(s.finalizers ? { finalizersHandler: [FINALIZER] } : {}), markPodNotReady: s.markPodNotReady };
  return run(seed, rnd, s, hook);
}

async function run(seed: number, rnd: () => number, s: { replicas: number; policy: "OrderedReady" | "Parallel"; update: string; maxUnavailable: number; deadline: boolean }, hook: { labelsHandler: Record<string, string>; finalizersHandler?: string[]; markPodNotReady: boolean }) {
  let clock = Date.parse("2026-11-21T00:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const podsNow = () => fake.list<Pod>(`/api/v1/namespaces/${NS}/pods`);
  const observer = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(observer, { namespace: NS, random: rnd, speed: 0.5 + rnd() * 0.5, now });
  const violations: string[] = [];
  let replicas = s.replicas;
  let held = 0;
  const template = (image: number, env: number) => ({
    metadata: { labels: { app: "web", [LABEL]: "true" } },
    spec: { containers: [{ name: "c", image: `img:${image}`, ...(env ? { env: [{ name: "GEN", value: String(env) }] } : {}) }] },
  });
  const manifest = setManifest({
    namespace: NS,
    replicas,
    policy: s.policy,
    spec: {
      template: template(1, 0),
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: s.maxUnavailable, podUpdatePolicy: s.update, ...(s.deadline ? { rollbackOnFailure: true } : {}) } },
      lifecycle: { preDelete: hook, inPlaceUpdate: hook },
      ...(s.deadline ? { progressDeadlineSeconds: 6 } : {}),
    },
  });
  // Pods are created with the hook's finalizer as well as its label (a template cannot carry finalizers).
  const addFinalizers = async () => {
    for (const p of podsNow()) {
      if (!hook.finalizersHandler || p.metadata?.annotations?.["test/finalized"] || p.metadata?.deletionTimestamp) continue;
      await observer.patch(R.pods, NS, p.metadata!.name!, { metadata: { finalizers: [...(p.metadata?.finalizers ?? []), FINALIZER], annotations: { "test/finalized": "1" } } }, "merge");
    }
  };

  let rollbacks = 0;
  // The reconciler's pod writes, checked against the pod just before each one; its rollbacks against every pod.
  const checked: FetchLike = async (input, init) => {
    const method = init?.method ?? "GET";
    if (method === "PATCH" && /\/statefulsets\/web$/.test(new URL(String(input)).pathname) && String(init?.body).includes('"/spec/template"')) {
      const heldNow = podsNow().filter((p) => /^Preparing/.test(p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] ?? "") && hookHolders(hook, p).length);
      const res = await fake.fetch(input, init);
      if (res.status < 300) rollbacks++;
      if (res.status < 300 && heldNow.length) violations.push(`rolled back while a hook held ${heldNow.map((p) => p.metadata!.name).join(", ")}`);
      return res;
    }
    const m = /\/namespaces\/default\/pods\/([^/]+)(\/status)?$/.exec(new URL(String(input)).pathname);
    if (!m || method === "GET") return fake.fetch(input, init);
    const target = podsNow().find((p) => p.metadata?.name === decodeURIComponent(m[1]));
    const res = await fake.fetch(input, init);
    if (res.status >= 300 || !target) return res;
    const name = target.metadata!.name!;
    const holders = hookHolders(hook, target);
    const body = init?.body ? (JSON.parse(String(init.body)) as { spec?: unknown; metadata?: { labels?: Record<string, string> } }) : undefined;
    if (method === "DELETE" && !target.metadata?.deletionTimestamp && target.status?.phase !== "Failed" && holders.length)
      violations.push(`deleted ${name} while it carried ${holders.join(", ")}`);
    if (method === "PATCH" && !m[2] && body?.spec && holders.length && target.metadata?.labels?.[LIFECYCLE_STATE_LABEL] !== "Updating")
      violations.push(`changed the images of ${name} while it carried ${holders.join(", ")}`);
    const entering = body?.metadata?.labels?.[LIFECYCLE_STATE_LABEL];
    if (hook.markPodNotReady && (entering === "PreparingDelete" || entering === "PreparingUpdate") && gateCondition(target)?.status !== "False")
      violations.push(`${name} entered ${entering} with its gate ${gateCondition(target)?.status}`);
    return res;
  };

  let chaos = true;
  const reconciler = crashingReconciler(checked, { random: rnd, chaos: () => chaos, leaseNamespace: NS, now });
  await observer.create(R.statefulSets, NS, manifest);
  let image = 1;
  let env = 0;
  for (let steps = 0; steps < 260; steps++) {
    await reconciler.invoke();
    await kubelet.step();
    // The pass plans from projected objects: the plan from the full ones must be the same (objects/projection.ts).
    expect(projectionDiffs(fake, NS, now())).toEqual([]);
    await addFinalizers();
    clock += 500 + Math.floor(rnd() * 2000);
    // The other controller: releases a held pod (or a terminating one) after a while; puts an Updated pod's hooks back.
    for (const p of podsNow()) {
      const state = p.metadata?.labels?.[LIFECYCLE_STATE_LABEL];
      const name = p.metadata!.name!;
      if ((state === "PreparingDelete" || state === "PreparingUpdate" || p.metadata?.deletionTimestamp) && hookHolders(hook, p).length && rnd() < 0.3) {
        held++;
        await observer.patch(R.pods, NS, name, { metadata: { labels: { [LABEL]: "false" }, finalizers: (p.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER) } }, "merge");
      } else if (state === "Updated" && rnd() < 0.3) {
        await observer.patch(R.pods, NS, name, { metadata: { labels: { [LABEL]: "true" }, finalizers: [...(p.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER), ...(hook.finalizersHandler ?? [])] } }, "merge");
      }
    }
    const r = rnd();
    if (steps < 60 && r < 0.05) {
      replicas = Math.floor(rnd() * 5);
      await observer.patch(R.statefulSets, NS, "web", { spec: { replicas } }, "merge");
    } else if (steps < 60 && r < 0.14) {
      image++;
      if (rnd() < 0.3) env++;
      await observer.patch(R.statefulSets, NS, "web", { spec: { template: template(image, env) } }, "merge");
    } else if (steps < 60 && r < 0.17) {
      await observer.patch(R.statefulSets, NS, "web", { spec: { updateStrategy: { rollingUpdate: { paused: rnd() < 0.5 } } } }, "merge");
    }
    if (steps === 60) {
      chaos = false;
      await observer.patch(R.statefulSets, NS, "web", { spec: { updateStrategy: { rollingUpdate: { paused: false } } } }, "merge");
    }
    if (violations.length) break;
    if (!chaos && steps > 62) {
      const set = StatefulSetSchema.parse(await observer.get(R.statefulSets, NS, "web"));
      const pods = podsNow();
      const st = set.status;
      const converged =
        pods.length === replicas &&
        pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp && getPodRevision(p) === st?.updateRevision && p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] === "Normal") &&
        st?.readyReplicas === replicas &&
        st.observedGeneration === set.metadata.generation &&
        st.conditions?.find((c) => c.type === "Progressing")?.reason === "RolloutComplete";
      if (converged) {
        // A rollback (deadline runs) put an earlier template back: the pods run the set's template.
        const want = s.deadline ? set.spec.template.spec.containers[0].image : `img:${image}`;
        expect(pods.every((p) => p.spec!.containers[0].image === want), `seed ${seed}: images`).toBe(true);
        return { steps, held, rollbacks, deadline: s.deadline };
      }
    }
  }
  const pods = podsNow();
  throw new Error(
    `seed ${seed} (${JSON.stringify({ ...s, hook })}, replicas ${replicas}): ${violations.length ? violations.join("; ") : "did not converge"}; pods: ${pods
      .map((p) => `${p.metadata!.name}:${p.status?.phase}:${isRunningAndReady(p) ? "ready" : "unready"}:gate=${gateCondition(p)?.status}/${gateCondition(p)?.reason}:${getPodRevision(p)}:${p.metadata?.labels?.[LIFECYCLE_STATE_LABEL]}:${hookHolders(hook, p).join("+")}${p.metadata?.deletionTimestamp ? ":terminating" : ""}:${getOrdinal(p.metadata!.name!)}`)
      .join(", ")}; status ${JSON.stringify(fake.get(`/apis/apps.ordinal.dev/v1/namespaces/${NS}/statefulsets/web`))}`,
  );
}

describe("randomized runs with lifecycle hooks, faults and crashes", () => {
  it(`${RUNS} seeded runs never delete or update a hooked pod and converge`, async () => {
    let steps = 0;
    let held = 0;
    let deadlines = 0;
    let rollbacks = 0;
    for (const r of await forEachSeed("test/reconciler/lifecycle-random-runs.test.ts", RUNS, runOnce)) {
      steps += r.steps;
      held += r.held;
      rollbacks += r.rollbacks;
      if (r.deadline) deadlines++;
    }
    console.log(`lifecycle random runs: ${RUNS} converged, ${steps} steps, ${held} hooks released, ${deadlines} with a progress deadline (${rollbacks} rollbacks)`);
    expect(held).toBeGreaterThan(RUNS);
  }, 600_000);
});
