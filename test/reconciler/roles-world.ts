/**
 * A world for spec.roles through whole passes: the fake apiserver, a kubelet player, and a tiny
 * stand-in operator (Patroni's part): it labels pods with their role (label spilo-role: one master,
 * the others replica) and answers a switchover request (annotation ordinal.dev/switchover-requested)
 * by moving master to a Ready pod at the newest revision, or never, or late. Every pod write of the
 * reconciler goes through `checked`, which records the timeline (update order, switchover) and a
 * violation for any touch of the pod that holds master at that moment: a deletion, an eviction, an
 * in-place image patch, or its InPlaceUpdateReady gate set False — and for any touch of a pod of a
 * later role while a pod of an earlier role still is at the old revision, and for a switchover
 * asked while another pod is not yet updated and Ready.
 */
import type { Pod } from "../../src/api/k8s.ts";
import { gateCondition } from "../../src/core/inplace-state.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { INPLACE_READY_CONDITION, INPLACE_STATE_ANNOTATION, SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";

export const ROLE = "spilo-role";
export const NS = "default";
const ordinalOf = (name: string) => Number(name.split("-").pop());

export interface RolesWorldOptions {
  /** When the operator answers a request: true at once, false never, or a chance per step. */
  answer: boolean | number;
  random?: () => number;
  speed?: number;
  start?: string;
  /** Called before each of the reconciler's writes (a failover at a random moment of a pass). */
  beforeWrite?: () => Promise<void>;
  /** spec.updateStrategy.rollingUpdate.maxUnavailable: a write that takes an available pod down beyond it is a violation. */
  maxUnavailable?: number;
}

export function rolesWorld(o: RolesWorldOptions) {
  let clock = Date.parse(o.start ?? "2026-12-05T01:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const observer = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const random = o.random ?? Math.random;
  const kubelet = new KubeletPlayer(observer, { namespace: NS, now, random, speed: o.speed ?? 1 });
  const pods = () => fake.list<Pod>(`/api/v1/namespaces/${NS}/pods`).filter((p) => p.metadata?.labels?.app === "web");
  const podNamed = (name: string) => pods().find((p) => p.metadata?.name === name);
  const set = () => fake.get<{ status?: { updateRevision?: string; currentRevision?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] } }>(`/apis/apps.ordinal.dev/v1/namespaces/${NS}/statefulsets/web`);
  const roleOf = (p: Pod | undefined) => p?.metadata?.labels?.[ROLE];
  const timeline: string[] = [];
  const violations: string[] = [];
  const order = ["replica", "master"];
  let step = 0;
  /** The pods the reconciler updated, in order (a deletion or an in-place image patch). */
  const updated: string[] = [];

  /** touched checks one reconciler write that moves pod `target` (as it was just before the write). */
  const touched = (target: Pod, what: string) => {
    const name = target.metadata!.name!;
    if (target.metadata?.deletionTimestamp) return;
    const role = roleOf(target);
    timeline.push(`step ${step}: ${what} ${name} (${role ?? "no role"}, revision ${getPodRevision(target)})`);
    if (role === "master") violations.push(`step ${step}: ${what} ${name} while it held master`);
    const update = set()?.status?.updateRevision;
    const rank = Math.max(0, order.indexOf(role ?? ""));
    const behind = pods().filter((p) => p.metadata?.name !== name && !p.metadata?.deletionTimestamp && Math.max(0, order.indexOf(roleOf(p) ?? "")) < rank && update && getPodRevision(p) !== update);
    const down = (p: Pod) => !!p.metadata?.deletionTimestamp || !isRunningAndReady(p);
    const replicas = (set() as { spec?: { replicas?: number } } | undefined)?.spec?.replicas ?? 0;
    // The rolling update's budget is over the replicas (ordinals below spec.replicas); a scale-down is not counted against it.
    const ordinal = (p: Pod) => ordinalOf(p.metadata!.name!);
    // The others as they are once the write is done (the target's own state is `target`, before it).
    const replicaPods = pods().filter((p) => ordinal(p) < replicas);
    const unavailable = replicaPods.filter((p) => p.metadata?.name !== name && down(p)).length + Math.max(0, replicas - replicaPods.length);
    if (o.maxUnavailable !== undefined && ordinal(target) < replicas && what !== "update in place" && !down(target) && unavailable >= o.maxUnavailable)
      violations.push(`step ${step}: ${what} ${name} while ${unavailable} pods are unavailable (maxUnavailable ${o.maxUnavailable})`);
    if (behind.length) violations.push(`step ${step}: ${what} ${name} (${role}) while ${behind.map((p) => p.metadata!.name).join(", ")} of an earlier role are at an old revision`);
  };

  const checked: FetchLike = async (input, init) => {
    const method = init?.method ?? "GET";
    const m = /\/namespaces\/default\/pods\/([^/]+)(\/status|\/eviction)?$/.exec(new URL(String(input)).pathname);
    if (!m || method === "GET") return fake.fetch(input, init);
    const name = decodeURIComponent(m[1]);
    await o.beforeWrite?.();
    const body = init?.body ? (JSON.parse(String(init.body)) as { spec?: unknown; metadata?: { annotations?: Record<string, string | null> }; status?: { conditions?: { type: string; status: string }[] } }) : undefined;
    const before = podNamed(name);
    const gateFalse = body?.status?.conditions?.some((c) => c.type === INPLACE_READY_CONDITION && c.status === "False") && gateCondition(before ?? {})?.status !== "False";
    const request = body?.metadata?.annotations && SWITCHOVER_REQUEST_ANNOTATION in body.metadata.annotations ? body.metadata.annotations[SWITCHOVER_REQUEST_ANNOTATION] : undefined;
    const res = await fake.fetch(input, init);
    if (res.status >= 300) return res;
    const move = method === "DELETE" ? "delete" : m[2] === "/eviction" ? "evict" : method === "PATCH" && !m[2] && body?.spec ? "update in place" : gateFalse ? "gate False" : undefined;
    if (move && before && !before.metadata?.deletionTimestamp) {
      touched(before, move);
      if (move !== "gate False") updated.push(name);
    }
    const replicas = (set() as { spec?: { replicas?: number } } | undefined)?.spec?.replicas ?? 0;
    const underWay = gateCondition(before ?? {})?.status === "False" || before?.metadata?.annotations?.[INPLACE_STATE_ANNOTATION] !== undefined;
    if (typeof request === "string" && ordinalOf(name) < replicas && !underWay) {
      // A replica leader's turn comes only once every other replica is updated and Ready (roles.ts: rankGate); a scale-down asks at
      // once, and so does an in-place update begun while the pod was a follower (its gate False, or its state annotation) when
      // leadership moved to it.
      const update = set()?.status?.updateRevision;
      const notDone = pods().filter((p) => p.metadata?.name !== name && ordinalOf(p.metadata!.name!) < replicas && (getPodRevision(p) !== update || !isRunningAndReady(p) || p.metadata?.deletionTimestamp));
      if (notDone.length) violations.push(`step ${step}: switchover asked of ${name} while ${notDone.map((p) => p.metadata!.name).join(", ")} not updated and Ready`);
    }
    if (request !== undefined) timeline.push(`step ${step}: ${request === null ? "request removed from" : `switchover requested (${request}) on`} ${name} (${roleOf(before)})`);
    return res;
  };
  const client = createKubeClient({ baseUrl: "https://fake", fetch: checked, sleep: async () => {} });

  /** operator labels new Ready pods replica (the first one master) and answers switchover requests. */
  const operator = async (answer: boolean | number = o.answer) => {
    const all = pods().filter((p) => !p.metadata?.deletionTimestamp);
    const update = set()?.status?.updateRevision;
    let hasMaster = all.some((p) => roleOf(p) === "master");
    for (const p of all) {
      if (roleOf(p) !== undefined || !isRunningAndReady(p)) continue;
      const role = hasMaster ? "replica" : "master";
      hasMaster = true;
      await observer.patch(R.pods, NS, p.metadata!.name!, { metadata: { labels: { [ROLE]: role } } }, "merge");
    }
    for (const p of all) {
      if (p.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION] === undefined || roleOf(p) !== "master") continue;
      if (answer === false || (typeof answer === "number" && random() >= answer)) continue;
      const ready = all.filter((q) => q !== p && isRunningAndReady(q));
      const to = ready.find((q) => getPodRevision(q) === update) ?? ready[0];
      if (!to) continue;
      await moveLeader(p.metadata!.name!, to.metadata!.name!, "switchover");
    }
  };

  /** moveLeader moves master from `from` to `to` (the operator's switchover, or a failover at a random moment). */
  const moveLeader = async (from: string, to: string, why: string) => {
    await observer.patch(R.pods, NS, to, { metadata: { labels: { [ROLE]: "master" } } }, "merge");
    await observer.patch(R.pods, NS, from, { metadata: { labels: { [ROLE]: "replica" } } }, "merge");
    timeline.push(`step ${step}: ${why}: master ${from} → ${to}`);
  };

  return {
    fake,
    observer,
    client,
    checked,
    kubelet,
    now,
    pods,
    podNamed,
    set,
    roleOf,
    timeline,
    violations,
    updated,
    operator,
    moveLeader,
    tick: (ms = 1000) => {
      clock += ms;
      step++;
    },
    unavailable: () => pods().filter((p) => p.metadata?.deletionTimestamp || !isRunningAndReady(p)).length,
  };
}
