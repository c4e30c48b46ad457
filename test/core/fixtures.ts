/** Builders for planner tests: a parsed set and pods in given states, as the apiserver returns them. */
import type { ControllerRevision, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import { newStatefulSetPod } from "../../src/core/pod.ts";
import { newRevision } from "../../src/core/revisions.ts";

export const NOW = new Date("2026-11-21T12:00:00Z");

export function makeSet(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, status?: Record<string, unknown>): StatefulSet {
  return StatefulSetSchema.parse({
    metadata: { name: "web", namespace: "ns", uid: "set-uid", generation: 1, ...meta },
    spec: {
      replicas: 3,
      serviceName: "web",
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:1" }] } },
      volumeClaimTemplates: [{ metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
      ...spec,
    },
    status,
  });
}

/** The revision the set's current template hashes to (revision number 1). */
export const revisionOf = (set: StatefulSet, n = 1): ControllerRevision => ({ ...newRevision(set, n, 0), metadata: { ...newRevision(set, n, 0).metadata, uid: `rev-${n}` } });

export type PodState = "pending" | "running" | "ready" | "failed" | "terminating" | "readyTerminating";

/** pod returns the set's pod for `ordinal` at `revision` in the given state, created by the apiserver. */
export function pod(set: StatefulSet, ordinal: number, revision: string, state: PodState = "ready", readySince = "2026-11-21T11:00:00Z"): Pod {
  const p = newStatefulSetPod(set, ordinal, revision);
  p.metadata!.uid = `pod-${ordinal}-${revision}`;
  p.metadata!.resourceVersion = "1";
  const ready = state === "ready" || state === "readyTerminating";
  p.status = {
    phase: state === "pending" ? "Pending" : state === "failed" ? "Failed" : "Running",
    conditions: [
      { type: "Ready", status: ready ? "True" : "False", lastTransitionTime: readySince as unknown as Date },
      { type: "InPlaceUpdateReady", status: "True" },
    ],
  };
  if (state === "terminating" || state === "readyTerminating") p.metadata!.deletionTimestamp = "2026-11-21T11:59:00Z" as unknown as Date;
  return p;
}

export const claimFor = (set: StatefulSet, ordinal: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: `www-${set.metadata.name}-${ordinal}`, namespace: "ns", uid: `pvc-${ordinal}`, ...extra },
  spec: {},
});
