import type { ImageList } from "../api/imagelist.ts";
import type { OwnerReference, Pod } from "../api/k8s.ts";
import { API_VERSION } from "../api/statefulset.ts";
import { COMPONENT, PULLER_IMAGE_ANNOTATION, PULLER_LABEL } from "../objects/constants.ts";
import { fnv32a } from "./hash.ts";
import { timeMs } from "./inplace-state.ts";
import type { Toleration } from "./puller-target.ts";

/**
 * Puller pods: the way an ImageList's images reach its node without a privileged daemon. One
 * short-lived pod per node and image, bound to the node (`spec.nodeName`: no scheduler), whose
 * only container names the image with a command that cannot exist; the kubelet must pull the
 * image before it tries to start it, whatever the container runtime. Once the kubelet got that
 * far the image is on the node and the pod is deleted.
 */

/** activeDeadlineSeconds of a puller pod: the kubelet fails it after this (a pull that hangs). */
const PULLER_DEADLINE_SECONDS = 600;
/** A puller pod no kubelet reported on within the deadline plus this is counted failed (node gone, no kubelet). */
const PULLER_STALE_GRACE_SECONDS = 60;

/** Waiting reasons that need the image on the node: the pull worked, the container could not start (PULLER_COMMAND never can). */
const PRESENT_REASONS = new Set(["CreateContainerError", "RunContainerError", "StartError"]);
/** Waiting reasons of a pull that failed. */
const FAILED_REASONS = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName"]);

/** pullerPodName returns the puller pod's name: the ImageList's (cut to fit) and a hash of the image. */
export function pullerPodName(listName: string, image: string): string {
  const hash = fnv32a(image).toString(16).padStart(8, "0");
  const base = listName.slice(0, 253 - "-pull-".length - hash.length).replace(/[-.]+$/, "");
  return `${base}-pull-${hash}`;
}

/** newImageListRef returns the controller reference a puller pod of the ImageList carries. */
export function newImageListRef(list: ImageList): OwnerReference {
  return { apiVersion: API_VERSION, kind: "ImageList", name: list.metadata.name ?? "", uid: list.metadata.uid ?? "", controller: true };
}

/**
 * The puller container's command: a path no image can contain (/dev/null is a character device
 * the runtime mounts in every container, never a directory), so the container cannot start once
 * its image is on the node and no code from the image ever runs (issue 19.2). The kubelet reports
 * the start failure (StartError, RunContainerError or CreateContainerError), which pullOutcome
 * reads as present: the pull had to succeed first.
 */
const PULLER_COMMAND = "/dev/null/ordinal-image-puller";

/** What a puller pod carries beyond its image: the node's tolerations (puller-target.ts) and pull secrets. */
export interface PullerExtras {
  tolerations: readonly Toleration[];
  /** Names of Secrets in the ImageList's namespace. */
  imagePullSecrets: readonly string[];
}

/**
 * newPullerPod returns the puller pod of `image` for the ImageList (namespace and node from it):
 * restartPolicy Never, PULLER_COMMAND as the command (never runs), tiny requests and limits,
 * non-root without privileges (fits the restricted Pod Security level), no ServiceAccount token,
 * activeDeadlineSeconds, only the tolerations and pull secrets of `extras`, owned by the
 * ImageList (the garbage collector removes it with the list), Ordinal's labels.
 */
export function newPullerPod(list: ImageList, image: string, alwaysPull: boolean, extras: PullerExtras): Pod {
  const node = list.metadata.name ?? "";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: pullerPodName(node, image),
      namespace: list.metadata.namespace,
      labels: { [PULLER_LABEL]: "true", "app.kubernetes.io/managed-by": COMPONENT, "app.kubernetes.io/component": "image-puller" },
      annotations: { [PULLER_IMAGE_ANNOTATION]: image },
      ownerReferences: [newImageListRef(list)],
    },
    spec: {
      nodeName: node,
      restartPolicy: "Never",
      activeDeadlineSeconds: PULLER_DEADLINE_SECONDS,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(extras.tolerations.length ? { tolerations: [...extras.tolerations] } : {}),
      ...(extras.imagePullSecrets.length ? { imagePullSecrets: extras.imagePullSecrets.map((name) => ({ name })) } : {}),
      securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "pull",
          image,
          imagePullPolicy: alwaysPull ? "Always" : "IfNotPresent",
          command: [PULLER_COMMAND],
          resources: { requests: { cpu: "1m", memory: "4Mi" }, limits: { cpu: "10m", memory: "16Mi" } },
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  } as Pod;
}

export type PullOutcome = { state: "pulling" } | { state: "present"; message: string } | { state: "failed"; message: string };

/**
 * pullOutcome returns what a puller pod says about its image: present once the container
 * started or terminated, or could not start for a reason that needs the image
 * (CreateContainerError, RunContainerError, StartError); failed on ErrImagePull,
 * ImagePullBackOff, InvalidImageName, on a Failed pod without container news (deadline, eviction),
 * or when no kubelet reported within the deadline (plus grace) of its creation; pulling otherwise.
 */
export function pullOutcome(pod: Pod, now: Date): PullOutcome {
  const cs = pod.status?.containerStatuses?.[0];
  const st = cs?.state;
  if (st?.running) return { state: "present", message: "pulled (container started)" };
  if (st?.terminated) return { state: "present", message: `pulled (container ${st.terminated.reason ?? "terminated"})` };
  const reason = st?.waiting?.reason ?? "";
  const detail = st?.waiting?.message ? `: ${st.waiting.message}` : "";
  if (PRESENT_REASONS.has(reason)) return { state: "present", message: `pulled (container could not start: ${reason}${detail})` };
  if (FAILED_REASONS.has(reason)) return { state: "failed", message: `${reason}${detail}` };
  const phase = pod.status?.phase;
  if (phase === "Succeeded") return { state: "present", message: "pulled (container completed)" };
  if (phase === "Failed") return { state: "failed", message: `puller pod failed: ${pod.status?.reason ?? "Failed"}${pod.status?.message ? `: ${pod.status.message}` : ""}` };
  const created = timeMs(pod.metadata?.creationTimestamp);
  if (!cs && Number.isFinite(created) && now.getTime() - created > (PULLER_DEADLINE_SECONDS + PULLER_STALE_GRACE_SECONDS) * 1000)
    return { state: "failed", message: `no kubelet reported on the puller pod within ${PULLER_DEADLINE_SECONDS + PULLER_STALE_GRACE_SECONDS}s (is the node there?)` };
  return { state: "pulling" };
}
