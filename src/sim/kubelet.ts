import type { ContainerStatus, Pod, PodCondition } from "../api/k8s.ts";
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { PULLER_LABEL } from "../objects/constants.ts";
import { normalizeImageReference } from "../validation/image-ref.ts";

/**
 * A kubelet player: there is no kubelet here, so tests and the embedded simulation play it by
 * writing what a kubelet would: bind pods to a node, report them Running with containers ready,
 * compute Ready as the kubelet does (ContainersReady AND every readiness gate True), keep the
 * conditions it does not own, restart only the container whose image changed in place (after a
 * pull delay, none when the node already has the image), fail pods on request, finish graceful
 * deletions, and run puller pods (pre-warm): slow pulls, failed pulls, images without a shell.
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
  /** Seconds (of `now`) an image pull takes when a container's image changes in place. Default 0. */
  pullSeconds?: number;
  /** Images whose containers run but never become ready (a broken release). */
  unreadyImages?: (image: string) => boolean;
  /** Images whose pull fails (ErrImagePull, then ImagePullBackOff). */
  pullFails?: (image: string) => boolean;
  /** Images without a shell or `true`: a puller pod's container fails to start (StartError) after the pull. */
  noShell?: (image: string) => boolean;
}

export interface KubeletStepResult {
  bound: number;
  started: number;
  readiness: number;
  /** Pods whose containers were killed or restarted for an image change. */
  restarted: number;
  deleted: number;
  failed: number;
  conflicts: number;
}

const KUBELET_OWNED = new Set(["PodScheduled", "Initialized", "ContainersReady", "Ready"]);
const seconds = (d: Date) => d.toISOString().replace(/\.\d+Z$/, "Z");

/** desiredReady returns the Ready value a kubelet would report for the pod's conditions. */
function desiredReady(pod: Pod, containersReady: boolean): boolean {
  const conds = pod.status?.conditions ?? [];
  return containersReady && (pod.spec?.readinessGates ?? []).every((g) => conds.some((c) => c.type === g.conditionType && c.status === "True"));
}

export class KubeletPlayer {
  private nodeIndex = 0;
  private nodesMade = false;
  /** When each container's image pull (after an in-place image change) ends, by pod UID and name. */
  private readonly pulls = new Map<string, number>();
  /** Images each node has (normalized): a pull of one of these takes no time. */
  private readonly nodeImages = new Map<string, Set<string>>();
  /** Pulls under way, by node and image: when they end. */
  private readonly nodePulls = new Map<string, number>();
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

  /** imagesOn returns the images (normalized) the node has pulled so far. */
  imagesOn(node: string): string[] {
    return [...(this.nodeImages.get(node) ?? [])].sort();
  }

  private hasImage(node: string | undefined, image: string): boolean {
    return !!node && !!this.nodeImages.get(node)?.has(normalized(image));
  }
  private addImage(node: string | undefined, image: string): void {
    if (!node) return;
    const set = this.nodeImages.get(node) ?? new Set<string>();
    set.add(normalized(image));
    this.nodeImages.set(node, set);
    this.nodePulls.delete(`${node}/${normalized(image)}`);
  }
  /**
   * pullDue returns when a pull of `image` on `node` that starts now ends: now when the node has
   * it, when the pull already under way there ends (the runtime shares it), else after pullSeconds.
   */
  private pullDue(node: string | undefined, image: string, now: Date): number {
    if (this.hasImage(node, image)) return now.getTime();
    const key = `${node}/${normalized(image)}`;
    const inFlight = this.nodePulls.get(key);
    if (inFlight !== undefined && inFlight > now.getTime()) return inFlight;
    const due = now.getTime() + (this.o.pullSeconds ?? 0) * 1000;
    this.nodePulls.set(key, due);
    return due;
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
    const r: KubeletStepResult = { bound: 0, started: 0, readiness: 0, restarted: 0, deleted: 0, failed: 0, conflicts: 0 };
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
    if (pod.metadata?.labels?.[PULLER_LABEL]) {
      if (await this.pullerStep(pod)) r.started++;
      return;
    }
    if (this.o.failPods?.has(name)) {
      this.o.failPods.delete(name);
      await this.writeStatus(pod, "Failed", false);
      r.failed++;
      return;
    }
    if (phase !== "Running") {
      const pulls = this.failedPulls(pod);
      if (pulls) {
        if (JSON.stringify(pulls.statuses) !== JSON.stringify(pod.status?.containerStatuses ?? [])) await this.writeStatus(pod, pulls.phase, false, pulls.statuses);
        return;
      }
      await this.writeStatus(pod, "Running", true);
      r.started++;
      return;
    }
    const containers = this.syncContainers(pod);
    const containersReady = containers.every((c) => c.ready);
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
    const changed = JSON.stringify(containers) !== JSON.stringify(pod.status?.containerStatuses ?? []);
    if (changed || desiredReady(pod, containersReady) !== ready) {
      await this.writeStatus(pod, "Running", containersReady, containers);
      if (changed) r.restarted++;
      else r.readiness++;
    }
  }

  /**
   * syncContainers returns the container statuses a kubelet would report next for a running pod.
   * A container whose spec image changed is killed (waiting, image pulling, no imageID) and, once
   * the pull delay has passed, started again: restartCount + 1, new startedAt, the new imageID.
   * Other containers keep their status untouched; the pod keeps its UID, node and IP.
   */
  private syncContainers(pod: Pod): ContainerStatus[] {
    const now = this.now();
    const old = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
    return (pod.spec?.containers ?? []).map((c) => {
      const s = old.get(c.name);
      if (!s) return this.runningStatus(pod, c.name, c.image ?? "", 0, now);
      const key = `${pod.metadata?.uid}/${c.name}`;
      if (s.state?.running && s.image !== c.image) {
        this.pulls.set(key, this.pullDue(pod.spec?.nodeName, c.image ?? "", now));
        return {
          name: c.name,
          image: c.image ?? "",
          imageID: "",
          ready: false,
          started: false,
          restartCount: s.restartCount,
          state: { waiting: { reason: "ContainerCreating" } },
          lastState: { terminated: { exitCode: 0, reason: "Completed", startedAt: s.state.running.startedAt, finishedAt: seconds(now) as unknown as Date } },
        } as ContainerStatus;
      }
      if (s.state?.waiting) {
        if (this.o.pullFails?.(c.image ?? "")) return pullFailure(c.name, c.image ?? "", s);
        if (s.image !== c.image) {
          this.pulls.set(key, this.pullDue(pod.spec?.nodeName, c.image ?? "", now));
          return { ...s, image: c.image ?? "" };
        }
        const due = this.pulls.get(key);
        if (due === undefined) this.pulls.set(key, this.pullDue(pod.spec?.nodeName, c.image ?? "", now));
        if (due === undefined || now.getTime() < due) return s;
        this.pulls.delete(key);
        this.addImage(pod.spec?.nodeName, c.image ?? "");
        return { ...this.runningStatus(pod, c.name, c.image ?? "", s.restartCount + 1, now), lastState: s.lastState };
      }
      // Running the spec's image: readiness follows the image (a broken image never gets ready).
      const ready = !!s.state?.running && !this.unready(c.image ?? "");
      return s.ready === ready ? s : { ...s, ready };
    });
  }

  /**
   * pullerStep plays a puller pod (pre-warm, restartPolicy Never): the image is pulled (taking
   * pullSeconds unless the node has it and the policy is not Always), then the container runs
   * `true` and the pod Succeeds — or, for an image without a shell, fails to start (StartError,
   * pod Failed). A pull that fails reports ErrImagePull, then ImagePullBackOff. Returns true when
   * it wrote a status.
   */
  private async pullerStep(pod: Pod): Promise<boolean> {
    const c = pod.spec?.containers?.[0];
    const image = c?.image ?? "";
    const node = pod.spec?.nodeName;
    const now = this.now();
    const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting?.reason;
    if (this.o.pullFails?.(image)) {
      const reason = waiting === "ErrImagePull" || waiting === "ImagePullBackOff" ? "ImagePullBackOff" : "ErrImagePull";
      if (waiting === reason) return false;
      const message = reason === "ErrImagePull" ? `rpc error: pull access denied for ${image}` : `Back-off pulling image "${image}"`;
      await this.writePuller(pod, "Pending", { waiting: { reason, message } }, "");
      return true;
    }
    const key = `${pod.metadata?.uid}/pull`;
    let due = this.pulls.get(key);
    if (due === undefined) {
      due = c?.imagePullPolicy === "Always" ? now.getTime() + (this.o.pullSeconds ?? 0) * 1000 : this.pullDue(node, image, now);
      this.pulls.set(key, due);
    }
    if (now.getTime() < due) {
      if (waiting === "ContainerCreating") return false;
      await this.writePuller(pod, "Pending", { waiting: { reason: "ContainerCreating" } }, "");
      return true;
    }
    this.pulls.delete(key);
    this.addImage(node, image);
    const at = seconds(now);
    const command = c?.command?.[0];
    // A path under /dev/null cannot exist (a puller's command, issue 19.2): runc's start error, as containerd reports it.
    if (command?.startsWith("/dev/null/"))
      await this.writePuller(pod, "Failed", { terminated: { exitCode: 128, reason: "StartError", message: `exec: "${command}": stat ${command}: not a directory`, startedAt: at, finishedAt: at } }, `sim://${image}`);
    else if (this.o.noShell?.(image))
      await this.writePuller(pod, "Failed", { terminated: { exitCode: 128, reason: "StartError", message: 'exec: "true": executable file not found in $PATH', startedAt: at, finishedAt: at } }, `sim://${image}`);
    else await this.writePuller(pod, "Succeeded", { terminated: { exitCode: 0, reason: "Completed", startedAt: at, finishedAt: at } }, `sim://${image}`);
    return true;
  }

  private async writePuller(pod: Pod, phase: "Pending" | "Succeeded" | "Failed", state: Record<string, unknown>, imageID: string): Promise<void> {
    const c = pod.spec?.containers?.[0];
    const status = {
      ...pod.status,
      phase,
      hostIP: "10.0.0.1",
      startTime: pod.status?.startTime ?? seconds(this.now()),
      containerStatuses: [{ name: c?.name ?? "pull", image: c?.image ?? "", imageID, ready: false, started: false, restartCount: 0, state }],
    };
    await this.client.update(R.pods, pod.metadata!.namespace, { ...pod, status } as unknown as Pod, "status");
  }

  /**
   * failedPulls returns the statuses of a pod not yet running one of whose images cannot be pulled
   * (pullFails): those containers wait with ErrImagePull, then ImagePullBackOff, and never run; the
   * pod stays Pending unless another container runs. Undefined when every image can be pulled.
   */
  private failedPulls(pod: Pod): { phase: "Pending" | "Running"; statuses: ContainerStatus[] } | undefined {
    const containers = pod.spec?.containers ?? [];
    if (!containers.some((c) => this.o.pullFails?.(c.image ?? ""))) return undefined;
    const old = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
    const statuses = containers.map((c) => {
      const prev = old.get(c.name);
      if (this.o.pullFails?.(c.image ?? "")) return pullFailure(c.name, c.image ?? "", prev);
      return prev ?? this.runningStatus(pod, c.name, c.image ?? "", 0, this.now());
    });
    return { phase: statuses.some((s) => s.state?.running) ? "Running" : "Pending", statuses };
  }

  private unready(image: string): boolean {
    return this.o.unreadyImages?.(image) ?? false;
  }

  /**
   * runningStatus is a container's status once started: a container ID of its own (new for each
   * pod, container and start, as a runtime's), the image, ready unless the image is a broken one.
   */
  private runningStatus(pod: Pod, name: string, image: string, restartCount: number, now: Date): ContainerStatus {
    return {
      name,
      containerID: `sim://${pod.metadata?.uid ?? pod.metadata?.name ?? ""}/${name}/${restartCount}`,
      image,
      imageID: `sim://${image}`,
      ready: !this.unready(image),
      started: true,
      restartCount,
      state: { running: { startedAt: seconds(now) as unknown as Date } },
    };
  }

  /** writeStatus PUTs the pod's status as a kubelet would, keeping conditions it does not own. */
  private async writeStatus(pod: Pod, phase: "Pending" | "Running" | "Failed", containersReady: boolean, containers?: ContainerStatus[]): Promise<void> {
    const now = seconds(this.now());
    const prev = pod.status?.conditions ?? [];
    const keep = prev.filter((c) => !KUBELET_OWNED.has(c.type));
    const cond = (type: string, status: boolean): PodCondition => {
      const old = prev.find((c) => c.type === type);
      const s = status ? "True" : "False";
      return { type, status: s, lastTransitionTime: (old?.status === s ? old.lastTransitionTime : now) as unknown as Date };
    };
    const statuses =
      containers ??
      (pod.spec?.containers ?? []).map((c) =>
        phase === "Running"
          ? this.runningStatus(pod, c.name, c.image ?? "", 0, this.now())
          : ({
              name: c.name,
              image: c.image ?? "",
              imageID: `sim://${c.image}`,
              ready: false,
              started: false,
              restartCount: 0,
              state: { terminated: { exitCode: 1, reason: "Error", startedAt: now, finishedAt: now } },
            } as unknown as ContainerStatus),
      );
    if (phase === "Running") for (const c of statuses) this.addImage(pod.spec?.nodeName, c.image);
    const ready = phase === "Running" && containersReady && statuses.every((c) => c.ready);
    const status = {
      ...pod.status,
      phase,
      hostIP: "10.0.0.1",
      podIP: pod.status?.podIP ?? `10.1.0.${(Math.abs(hashName(pod.metadata!.name!)) % 250) + 1}`,
      startTime: pod.status?.startTime ?? now,
      conditions: [cond("Initialized", true), cond("Ready", desiredReady(pod, ready)), cond("ContainersReady", ready), cond("PodScheduled", true), ...keep],
      containerStatuses: statuses,
    };
    await this.client.update(R.pods, pod.metadata!.namespace, { ...pod, status } as unknown as Pod, "status");
  }
}

/**
 * pullFailure returns a container's status while its image cannot be pulled: waiting with
 * ErrImagePull, then ImagePullBackOff (as a kubelet alternates them), not ready, no imageID.
 */
function pullFailure(name: string, image: string, prev: ContainerStatus | undefined): ContainerStatus {
  const first = prev?.image !== image || !["ErrImagePull", "ImagePullBackOff"].includes(prev?.state?.waiting?.reason ?? "");
  const reason = first ? "ErrImagePull" : "ImagePullBackOff";
  const message = first ? `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": not found` : `Back-off pulling image "${image}"`;
  return { name, image, imageID: "", ready: false, started: false, restartCount: prev?.restartCount ?? 0, state: { waiting: { reason, message } } } as ContainerStatus;
}

function normalized(image: string): string {
  const n = normalizeImageReference(image);
  return n.ok ? n.ref : image;
}

function hashName(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}
