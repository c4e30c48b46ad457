/**
 * Seeded randomized runs of the whole reconciler with spec.roles and a switchover against the fake
 * apiserver, with injected faults, lost responses and crashes between any two requests, a kubelet
 * player and a stand-in operator (roles-world.ts) that answers switchover requests late or not for
 * a while, and fails leadership over to a random Ready pod at random moments — between passes and
 * between any two of the reconciler's writes. Random template changes (in place or not) and scaling.
 * Asserted at every write of the reconciler (roles-world.ts): it never touches (deletes, evicts,
 * updates in place, takes out of traffic) the pod that holds master at that moment, never a pod of
 * a later role while one of an earlier role is at an old revision, never asks for a switchover
 * while another pod is not yet updated and Ready, and never takes an available replica down beyond
 * maxUnavailable. Every run must converge once the chaos stops. Runs 6 seeds by default and 30 under
 * ORDINAL_THOROUGH=1; ORDINAL_RANDOM_RUNS / ORDINAL_RANDOM_SEED pick the range; a failure prints its
 * seed and how to rerun it.
 */
import { describe, expect, it } from "vitest";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { setManifest } from "../support/fixtures.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { crashingReconciler, mulberry32 } from "./chaos.ts";
import { NS, ROLE, rolesWorld } from "./roles-world.ts";

const RUNS = randomRuns(6, 30);

async function runOnce(seed: number): Promise<{ steps: number; failovers: number; switchovers: number }> {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const s = {
    replicas: 2 + Math.floor(rnd() * 3),
    policy: pick(["OrderedReady", "Parallel"] as const),
    update: pick(["ReCreate", "InPlaceIfPossible"] as const),
    maxUnavailable: pick([1, 2, 3]),
    answer: 0.2 + rnd() * 0.8,
    timeoutSeconds: pick([5, 30, 300]),
  };
  let failovers = 0;
  let chaos = true;
  const w = rolesWorld({ answer: s.answer, random: rnd, speed: 0.5 + rnd() * 0.5, maxUnavailable: s.maxUnavailable, beforeWrite: async () => void (chaos && rnd() < 0.02 && (await failover())) });
  /** failover moves master to a random Ready pod (what Patroni does when it loses its leader lock). */
  const failover = async () => {
    const ready = w.pods().filter((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp);
    const master = ready.find((p) => w.roleOf(p) === "master");
    const to = pick(ready.filter((p) => p !== master));
    if (!master || !to) return;
    failovers++;
    await w.moveLeader(master.metadata!.name!, to.metadata!.name!, "failover");
  };
  const template = (image: number, env: number) => ({
    metadata: { labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: `img:${image}`, ...(env ? { env: [{ name: "GEN", value: String(env) }] } : {}) }] },
  });
  let replicas = s.replicas;
  await w.observer.create(
    R.statefulSets,
    NS,
    setManifest({
      replicas,
      policy: s.policy,
      spec: {
        template: template(1, 0),
        roles: { labelKey: ROLE, updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: s.timeoutSeconds } },
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: s.update, maxUnavailable: s.maxUnavailable } },
      },
    }),
  );
  const reconciler = crashingReconciler(w.checked, { random: rnd, chaos: () => chaos, leaseNamespace: NS, now: w.now });
  let image = 1;
  let env = 0;
  for (let steps = 0; steps < 300; steps++) {
    await reconciler.invoke();
    await w.kubelet.step();
    await w.operator(chaos ? s.answer : true);
    w.tick(500 + Math.floor(rnd() * 1500));
    if (w.violations.length) break;
    const r = rnd();
    if (chaos && steps > 10 && r < 0.03) await failover();
    else if (steps < 80 && r < 0.1) {
      image++;
      if (rnd() < 0.3) env++;
      await w.observer.patch(R.statefulSets, NS, "web", { spec: { template: template(image, env) } }, "merge");
    } else if (steps < 80 && r < 0.13) {
      replicas = 2 + Math.floor(rnd() * 3);
      await w.observer.patch(R.statefulSets, NS, "web", { spec: { replicas } }, "merge");
    }
    if (steps === 100) chaos = false;
    if (!chaos && steps > 102) {
      const st = w.set()?.status;
      const pods = w.pods();
      const converged =
        pods.length === replicas &&
        pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp && getPodRevision(p) === st?.updateRevision && p.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION] === undefined) &&
        pods.filter((p) => w.roleOf(p) === "master").length === 1 &&
        st?.conditions?.find((c) => c.type === "Progressing")?.reason === "RolloutComplete";
      if (converged) {
        expect(pods.every((p) => p.spec!.containers[0].image === `img:${image}`), `seed ${seed}: images`).toBe(true);
        return { steps, failovers, switchovers: w.timeline.filter((l) => l.includes("switchover: master")).length };
      }
    }
  }
  throw new Error(
    `seed ${seed} (${JSON.stringify(s)}, replicas ${replicas}): ${w.violations.length ? w.violations.join("; ") : "did not converge"}; pods: ${w
      .pods()
      .map((p) => `${p.metadata!.name}:${w.roleOf(p)}:${isRunningAndReady(p) ? "ready" : "unready"}:${getPodRevision(p)}${p.metadata?.deletionTimestamp ? ":terminating" : ""}${p.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION] ? ":requested" : ""}`)
      .join(", ")}; status ${JSON.stringify(w.set()?.status)}; timeline tail:\n${w.timeline.slice(-15).join("\n")}`,
  );
}

describe("randomized runs with roles, a switchover, failovers at random moments, faults and crashes", () => {
  it(`${RUNS} seeded runs never touch the leader, keep the role order and maxUnavailable, and converge`, async () => {
    let steps = 0;
    let failovers = 0;
    let switchovers = 0;
    for (const r of await forEachSeed("test/reconciler/roles-random-runs.test.ts", RUNS, runOnce)) {
      steps += r.steps;
      failovers += r.failovers;
      switchovers += r.switchovers;
    }
    console.log(`roles random runs: ${RUNS} converged, ${steps} steps, ${failovers} failovers at random moments, ${switchovers} switchovers answered`);
    expect(switchovers).toBeGreaterThan(RUNS / 2);
    expect(failovers).toBeGreaterThan(0);
  }, 600_000);
});
