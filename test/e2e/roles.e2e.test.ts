/**
 * spec.roles and the switchover (src/core/roles.ts, src/core/switchover.ts) against the real
 * kube-apiserver: the reconciler (its least-privilege identity) drives a 3-pod set, the test plays
 * the kubelet and a tiny stand-in operator that labels the pods (spilo-role: one master, the others
 * replica) and, when asked (annotation ordinal.dev/switchover-requested), moves master to a Ready pod
 * at the new revision. Recreate and in place: the followers are updated first, the switchover is
 * asked once, leadership moves, the old leader is updated last, never more than maxUnavailable (1)
 * pods down. A switchover never answered: the leader is not touched, the condition and the Warning
 * event say why, `ordinal rollout status` exits 1. Each run prints its update order and switchover
 * timeline.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, env, kubectl, kubeletFor, listPods, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const ROLE = "spilo-role";
const template = (image: string) => ({ metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image }] } });
const roleOf = (p: Pod | undefined) => p?.metadata?.labels?.[ROLE];
const requestOf = (p: Pod | undefined) => p?.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION];
const setOf = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;

/** rolloutStatus runs `ordinal rollout status --no-watch` as the admin: its exit code and what it printed. */
function rolloutStatus(ns: string): { code: number | null; out: string } {
  const r = spawnSync("node", ["src/cli/bin.mjs", "rollout", "status", "web", "-n", ns, "--no-watch"], {
    env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
    encoding: "utf8",
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/**
 * A rollout watched step by step: each step is one reconcile pass, one kubelet step and one turn of
 * the stand-in operator. Between two steps it records what changed (a pod deleted, its image
 * changed, a request written or removed, master moved) and a violation when the pass touched the
 * pod that held master before it, or left more than `maxUnavailable` replicas down.
 */
class Watched {
  readonly timeline: string[] = [];
  readonly violations: string[] = [];
  readonly updated: string[] = [];
  private step = 0;
  /** at returns the wall-clock time (UTC, seconds) of a timeline line. */
  private at = () => new Date().toISOString().slice(11, 19);
  private rolling = false;
  constructor(
    private readonly ns: string,
    private readonly kubelet: KubeletPlayer,
    private readonly answer: () => boolean,
  ) {}

  async run(steps: number, done: (pods: Pod[]) => boolean = () => false): Promise<Pod[]> {
    for (let i = 0; i < steps; i++) {
      const before = await listPods(this.ns);
      await reconcileInProcess(this.ns);
      const afterPass = await listPods(this.ns);
      this.record(before, afterPass);
      await this.kubelet.step();
      await this.operator();
      const pods = await listPods(this.ns);
      if (this.rolling) {
        const down = 3 - pods.filter((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp).length;
        if (down > 1) this.violations.push(`${this.at()} step ${this.step}: ${down} pods down (maxUnavailable 1)`);
      }
      this.step++;
      if (done(pods)) return pods;
      await sleep(100);
    }
    return listPods(this.ns);
  }

  /** note adds a line to the timeline. */
  note(what: string) {
    this.timeline.push(`${this.at()} step ${this.step}: ${what}`);
  }

  /** startRollout writes the new template; from now on maxUnavailable is checked. */
  async startRollout(image: string) {
    this.rolling = true;
    this.timeline.push(`${this.at()} step ${this.step}: template image → ${image}`);
    await admin.patch(R.statefulSets, this.ns, "web", { spec: { template: template(image) } }, "merge");
  }

  /** record compares the pods before and after one pass: what the reconciler did to each. */
  private record(before: Pod[], after: Pod[]) {
    for (const b of before) {
      const name = b.metadata!.name!;
      const a = after.find((p) => p.metadata?.name === name);
      const deleted = !a || a.metadata?.uid !== b.metadata?.uid || (!!a.metadata?.deletionTimestamp && !b.metadata?.deletionTimestamp);
      const inPlace = !deleted && a!.spec?.containers[0].image !== b.spec?.containers[0].image;
      const what = deleted ? "recreate" : inPlace ? `update in place (${a!.spec?.containers[0].image})` : undefined;
      if (what && !b.metadata?.deletionTimestamp) {
        this.updated.push(name);
        this.timeline.push(`${this.at()} step ${this.step}: ${what} ${name} (${roleOf(b) ?? "no role"})`);
        if (roleOf(b) === "master") this.violations.push(`${this.at()} step ${this.step}: ${what} ${name} while it held master`);
      }
      if (requestOf(a) !== requestOf(b)) this.timeline.push(`${this.at()} step ${this.step}: ${requestOf(a) ? `switchover requested on ${name} (${roleOf(b)}) at ${requestOf(a)}` : `request removed from ${name} (now ${roleOf(a)})`}`);
    }
  }

  /** operator is Patroni's part: labels Ready pods (the first master), answers a request by moving master to a Ready pod at the newest revision. */
  private async operator() {
    const pods = (await listPods(this.ns)).filter((p) => !p.metadata?.deletionTimestamp);
    let hasMaster = pods.some((p) => roleOf(p) === "master");
    for (const p of pods) {
      if (roleOf(p) !== undefined || !isRunningAndReady(p)) continue;
      await admin.patch(R.pods, this.ns, p.metadata!.name!, { metadata: { labels: { [ROLE]: hasMaster ? "replica" : "master" } } }, "merge");
      hasMaster = true;
    }
    const update = (await setOf(this.ns)).status?.updateRevision;
    for (const p of pods) {
      if (!requestOf(p) || roleOf(p) !== "master" || !this.answer()) continue;
      const ready = pods.filter((q) => q !== p && isRunningAndReady(q));
      const to = ready.find((q) => getPodRevision(q) === update) ?? ready[0];
      if (!to) continue;
      await admin.patch(R.pods, this.ns, to.metadata!.name!, { metadata: { labels: { [ROLE]: "master" } } }, "merge");
      await admin.patch(R.pods, this.ns, p.metadata!.name!, { metadata: { labels: { [ROLE]: "replica" } } }, "merge");
      this.timeline.push(`${this.at()} step ${this.step}: operator switchover: master ${p.metadata!.name} → ${to.metadata!.name}`);
    }
  }
}

const allReady = (pods: Pod[]) => pods.length === 3 && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp && roleOf(p) !== undefined);

/** started returns a 3-pod set with roles, all Ready and labelled, master on web-2 (the highest ordinal: first to go without roles). */
async function started(prefix: string, policy: string, timeoutSeconds: number, answer: () => boolean) {
  const ns = await newNamespace(prefix);
  const kubelet = kubeletFor(ns);
  const set = setManifest({
    namespace: ns,
    replicas: 3,
    spec: {
      template: template("nginx:1.25"),
      roles: { labelKey: ROLE, updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: policy, maxUnavailable: 1 } },
    },
  });
  await admin.create(R.statefulSets, ns, set);
  const w = new Watched(ns, kubelet, answer);
  const pods = await w.run(60, allReady);
  expect(allReady(pods)).toBe(true);
  const master = pods.find((p) => roleOf(p) === "master")!.metadata!.name!;
  if (master !== "web-2") {
    await admin.patch(R.pods, ns, "web-2", { metadata: { labels: { [ROLE]: "master" } } }, "merge");
    await admin.patch(R.pods, ns, master, { metadata: { labels: { [ROLE]: "replica" } } }, "merge");
  }
  return { ns, w };
}

beforeAll(setupCluster);

describe.each([["ReCreate"], ["InPlaceIfPossible"]])("a rollout with roles (%s)", (policy) => {
  it("updates the followers first, asks for one switchover, updates the old leader last, never beyond maxUnavailable", async () => {
    const { ns, w } = await started(`roles-${policy.toLowerCase()}`, policy, 300, () => true);
    await w.startRollout("nginx:1.26");
    const done = await w.run(80, (pods) => allReady(pods) && pods.every((p) => p.spec?.containers[0].image === "nginx:1.26" && !requestOf(p)));
    console.log(`roles e2e (${policy}) update order ${w.updated.join(", ")}; timeline:\n  ${w.timeline.join("\n  ")}`);
    expect(w.violations).toEqual([]);
    expect(done.every((p) => p.spec?.containers[0].image === "nginx:1.26")).toBe(true);
    expect(w.updated).toEqual(["web-1", "web-0", "web-2"]);
    expect(w.timeline.filter((l) => l.includes("switchover requested"))).toHaveLength(1);
    expect(w.timeline.filter((l) => l.includes("operator switchover: master web-2 →"))).toHaveLength(1);
    expect(done.filter((p) => roleOf(p) === "master")).toHaveLength(1);
    const events = await admin.list<{ reason?: string }>(R.events, ns);
    expect(events.filter((e) => e.reason === "SwitchoverRequested")).toHaveLength(1);
  });
});

describe("a switchover never answered", () => {
  it("leaves the leader alone; the condition and a Warning event say why; rollout status exits 1", async () => {
    const { ns, w } = await started("roles-unanswered", "ReCreate", 5, () => false);
    await w.startRollout("nginx:1.26");
    const stuck = async () => (await setOf(ns)).status?.conditions?.find((c) => c.type === "SwitchoverTimedOut" && c.status === "True");
    let pods: Pod[] = [];
    for (let i = 0; i < 80 && !(await stuck()); i++) pods = await w.run(1);
    w.note(`condition SwitchoverTimedOut True; rollout status exits ${rolloutStatus(ns).code}`);
    console.log(`roles e2e (never answered) update order ${w.updated.join(", ")}; timeline:\n  ${w.timeline.join("\n  ")}`);
    expect(w.violations).toEqual([]);
    expect(w.updated).toEqual(["web-1", "web-0"]);
    const web2 = pods.find((p) => p.metadata?.name === "web-2")!;
    expect(web2.spec?.containers[0].image).toBe("nginx:1.25");
    expect(roleOf(web2)).toBe("master");
    expect(await stuck()).toMatchObject({ reason: "NotAnswered", message: expect.stringContaining("pod web-2 holds role master: switchover requested at") });
    const progressing = (await setOf(ns)).status?.conditions?.find((c) => c.type === "Progressing");
    expect(progressing).toMatchObject({ status: "False", reason: "SwitchoverTimedOut" });
    const events = await admin.list<{ reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }>(R.events, ns);
    expect(events.filter((e) => e.reason === "SwitchoverTimedOut").map((e) => [e.type, e.involvedObject?.name])).toEqual([["Warning", "web"]]);
    expect(events.find((e) => e.reason === "SwitchoverTimedOut")?.message).toContain("was not answered within 5s");
    const status = rolloutStatus(ns);
    expect(status.code).toBe(1);
    expect(status.out).toContain("roles spilo-role: replica web-0, web-1 → master web-2; switchover: pod web-2 holds role master");
    expect(status.out).toMatch(/rollout of web is stuck: Progressing SwitchoverTimedOut/);
    // More passes change nothing: the leader stays untouched.
    await w.run(5);
    expect(w.violations).toEqual([]);
    expect((await listPods(ns)).find((p) => p.metadata?.name === "web-2")?.metadata?.uid).toBe(web2.metadata?.uid);
  });
});

// Last: kubectl's discovery has seen the CRD by now.
describe("the CRD", () => {
  it("kubectl explain describes spec.roles and the switchover", () => {
    expect(kubectl(["explain", "osts.spec.roles", "--api-version=apps.ordinal.dev/v1"])).toMatch(/followers first/);
    expect(kubectl(["explain", "osts.spec.roles.switchover.timeoutSeconds", "--api-version=apps.ordinal.dev/v1"])).toMatch(/SwitchoverTimedOut/);
  });
});
