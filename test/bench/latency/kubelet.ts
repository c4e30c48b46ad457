/**
 * The kubelet both controllers get: src/sim's KubeletPlayer (binds pods, starts them with an
 * imageID per image, computes Ready as the kubelet does — ContainersReady AND every readiness gate
 * True —, restarts a container whose image changed in place, finishes graceful deletions), one
 * step every 100 ms over one namespace. Each step makes at most one transition per pod.
 */
import type { KubeClient } from "../../../src/kube/client.ts";
import { KubeletPlayer } from "../../../src/sim/kubelet.ts";

const KUBELET_PERIOD_MS = 100;

export interface RunningKubelet {
  /** Errors the player met (other than conflicts and not-found), in order. */
  errors: string[];
  stop: () => Promise<void>;
}

/** runKubelet plays the kubelet for `namespace` every KUBELET_PERIOD_MS until stopped. */
export function runKubelet(client: KubeClient, namespace: string): RunningKubelet {
  const player = new KubeletPlayer(client, { namespace, nodes: ["bench-node-a", "bench-node-b", "bench-node-c"] });
  const errors: string[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        await player.step();
      } catch (e) {
        errors.push(e instanceof Error ? e.message : String(e));
      }
      await new Promise((r) => setTimeout(r, Math.max(0, KUBELET_PERIOD_MS - (Date.now() - started))));
    }
  })();
  return {
    errors,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
