import type { Pod, PodCondition } from "../api/k8s.ts";
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * A kubelet player: there is no kubelet here, so tests and the embedded simulation play it by
 * writing what a kubelet would: bind pods to a node, report them Running with containers ready,
 * compute Ready as the kubelet does (ContainersReady AND every readiness gate True), keep the
 * conditions it does not own, fail pods on request, and finish graceful deletions.
 */

export interface KubeletOptions {
  /** Node names pods are bound to (round-robin); nodes are created when missing. */
  nodes?: string[];
  namespace?: string;
  /** Chance (0..1) that a pod makes its next transition in a given step (1 = every step). */
  speed?: number;
  random?: () => number;
  now?: () => Date;
  /** Pods (by name) whose containers should fail on the next step. */
  failPods?: Set<string>;
  /** When false, graceful deletions are never finished (tests of waiting). Default true. */
  finishDeletions?: boolean;
}

export interface KubeletStepResult {
  bound: number;
  started: number;
  readiness: number;
  deleted: number;
  failed: number;
  conflicts: number;
}

const KUBELET_OWNED = new Set(["PodScheduled", "Initialized", "ContainersReady", "Ready"]);
const seconds = (d: Date) => d.toISOString().replace(/\.\d+Z$/, "Z");

/** desiredReady returns the Ready value a kubelet would report for the pod's conditions. */
export function desiredReady(pod: Pod, containersReady: boolean): boolean {
  const conds = pod.status?.conditions ?? [];
  return containersReady && (pod.spec?.readinessGates ?? []).every((g) => conds.some((c) => c.type === g.conditionType && c.status === "True"));
}

export class KubeletPlayer {
  private nodeIndex = 0;
  private nodesMade = false;
  constructor(
    private readonly client: KubeClient,
    private readonly o: KubeletOptions = {},
  ) {}

  private get nodes() {
    return this.o.nodes ?? ["sim-node-a", "sim-node-b", "sim-node-c"];
  }
  private roll() {
    return (this.o.random ?? Math.random)() < (this.o.speed ?? 1);
  }
  private now() {
    return (this.o.now ?? (() => new Date()))();
  }

  /** ensureNodes creates the Node objects pods are bound to. */
  async ensureNodes(): Promise<void> {
    if (this.nodesMade) return;
    for (const name of this.nodes) {
      try {
        await this.client.create(R.nodes, undefined, { apiVersion: "v1", kind: "Node", metadata: { name, labels: { "kubernetes.io/hostname": name } } });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    this.nodesMade = true;
  }

  /** step makes at most one transition per pod and returns what it did. */
  async step(): Promise<KubeletStepResult> {
    await this.ensureNodes();
    const r: KubeletStepResult = { bound: 0, started: 0, readiness: 0, deleted: 0, failed: 0, conflicts: 0 };
    const pods = await this.client.list<Pod>(R.pods, this.o.namespace);
    for (const pod of pods) {
      if (!this.roll()) continue;
      try {
        await this.transition(pod, r);
      } catch (e) {
        if (isConflict(e) || isNotFound(e)) r.conflicts++;
        else throw e;
      }
    }
    return r;
  }

  private async transition(pod: Pod, r: KubeletStepResult): Promise<void> {
    const name = pod.metadata!.name!;
    const ns = pod.metadata!.namespace!;
    if (pod.metadata?.deletionTimestamp) {
      if (this.o.finishDeletions === false) return;
      await this.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
      r.deleted++;
      return;
    }
    if (!pod.spec?.nodeName) {
      const node = this.nodes[this.nodeIndex++ % this.nodes.length];
      await this.client.createSubresource(R.pods, ns, name, "binding", {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name, namespace: ns },
        target: { apiVersion: "v1", kind: "Node", name: node },
      });
      r.bound++;
      return;
    }
    const phase = pod.status?.phase;
    if (phase === "Failed" || phase === "Succeeded") return;
    if (this.o.failPods?.has(name)) {
      this.o.failPods.delete(name);
      await this.writeStatus(pod, "Failed", false);
      r.failed++;
      return;
    }
    if (phase !== "Running") {
      await this.writeStatus(pod, "Running", true);
      r.started++;
      return;
    }
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    const imagesMatch = (pod.spec?.containers ?? []).every((c) => pod.status?.containerStatuses?.find((s) => s.name === c.name)?.image === c.image);
    if (desiredReady(pod, true) !== ready || !imagesMatch) {
      await this.writeStatus(pod, "Running", true);
      r.readiness++;
    }
  }

  /** writeStatus PUTs the pod's status as a kubelet would, keeping conditions it does not own. */
  private async writeStatus(pod: Pod, phase: "Running" | "Failed", containersReady: boolean): Promise<void> {
    const now = seconds(this.now());
    const prev = pod.status?.conditions ?? [];
    const keep = prev.filter((c) => !KUBELET_OWNED.has(c.type));
    const cond = (type: string, status: boolean): PodCondition => {
      const old = prev.find((c) => c.type === type);
      const s = status ? "True" : "False";
      return { type, status: s, lastTransitionTime: (old?.status === s ? old.lastTransitionTime : now) as unknown as Date };
    };
    const ready = desiredReady(pod, containersReady);
    const status = {
      ...pod.status,
      phase,
      hostIP: "10.0.0.1",
      podIP: `10.1.0.${(Math.abs(hashName(pod.metadata!.name!)) % 250) + 1}`,
      startTime: pod.status?.startTime ?? now,
      conditions: [cond("Initialized", true), cond("Ready", ready), cond("ContainersReady", containersReady), cond("PodScheduled", true), ...keep],
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: `sim://${c.image}`,
        ready: containersReady,
        started: phase === "Running",
        restartCount: 0,
        state: phase === "Running" ? { running: { startedAt: now } } : { terminated: { exitCode: 1, reason: "Error", startedAt: now, finishedAt: now } },
      })),
    };
    await this.client.update(R.pods, pod.metadata!.namespace, { ...pod, status } as unknown as Pod, "status");
  }
}

function hashName(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}
