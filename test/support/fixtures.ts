/**
 * The one builder of test fixtures: the "web" StatefulSet (as a user writes it, or parsed with
 * every default filled in), its pods in a given state and its claims, named as the product names
 * them. Web APIs only: test/workers imports it inside workerd.
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { newRevision } from "../../src/core/revisions.ts";

/** The instant the fixtures are observed at (pods were Ready an hour before). */
export const NOW = new Date("2026-11-21T12:00:00Z");

export interface SetOptions {
  /** metadata.name, also the app label, the selector and serviceName (default "web"). */
  name?: string;
  /** metadata.namespace (default "default"); null leaves it out, as a body POSTed to a namespaced URL may. */
  namespace?: string | null;
  /** spec.replicas (default 3). */
  replicas?: number;
  /** The one container's image (default "img:1") and name (default "c"). */
  image?: string;
  container?: string;
  /** Names of the volumeClaimTemplates, each ReadWriteOnce 1Gi (default none). */
  claims?: string[];
  /** spec.podManagementPolicy (default: left to the defaults, OrderedReady). */
  policy?: "OrderedReady" | "Parallel";
  /** Merged over metadata (uid, generation, labels...). */
  metadata?: Record<string, unknown>;
  /** Merged over spec last (updateStrategy, template, ordinals, persistentVolumeClaimRetentionPolicy...). */
  spec?: Record<string, unknown>;
}

/** A manifest as a user writes it: plain JSON, every field but the required ones left to the defaults. */
export interface SetManifest {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** claimTemplate returns a volumeClaimTemplate `name`: ReadWriteOnce, `storage` requested. */
export function claimTemplate(name: string, storage = "1Gi") {
  return { metadata: { name }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } } };
}

/** podTemplate returns the set's pod template: the app label and one container. */
function podTemplate(app: string, image = "img:1", container = "c") {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: container, image }] } };
}

/** setManifest returns the set as a user writes it (see SetOptions for the defaults). */
export function setManifest(o: SetOptions = {}): SetManifest {
  const name = o.name ?? "web";
  const metadata: SetManifest["metadata"] = { name, ...(o.namespace === null ? {} : { namespace: o.namespace ?? "default" }), ...o.metadata };
  return {
    apiVersion: "apps.ordinal.dev/v1",
    kind: "StatefulSet",
    metadata,
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: name,
      ...(o.policy ? { podManagementPolicy: o.policy } : {}),
      selector: { matchLabels: { app: name } },
      template: podTemplate(name, o.image, o.container),
      ...(o.claims ? { volumeClaimTemplates: o.claims.map((c) => claimTemplate(c)) } : {}),
      ...o.spec,
    },
  };
}

/** newSet returns the set parsed as the product reads it (every default filled in), with `status` if given. */
export function newSet(o: SetOptions = {}, status?: Record<string, unknown>): StatefulSet {
  return StatefulSetSchema.parse({ ...setManifest(o), status });
}

/** revisionOf returns the ControllerRevision number `n` of the set's current template, with a uid. */
export const revisionOf = (set: StatefulSet, n = 1): ControllerRevision => {
  const r = newRevision(set, n, 0);
  return { ...r, metadata: { ...r.metadata, uid: `rev-${n}` } };
};

export type PodState = "pending" | "running" | "ready" | "failed" | "terminating" | "readyTerminating";

/**
 * newPod returns the set's pod for `ordinal` at `revision` as the apiserver returns it after the
 * kubelet reported `state`: Ready since `readySince` when ready, deletionTimestamp set when terminating.
 */
export function newPod(set: StatefulSet, ordinal: number, revision: string, state: PodState = "ready", readySince = "2026-11-21T11:00:00Z"): Pod {
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

/** newClaim returns the claim of `template` for the pod `ordinal` (`<template>-<set>-<ordinal>`), with `extra` metadata. */
export function newClaim(set: StatefulSet, ordinal: number, template = "www", extra: Record<string, unknown> = {}): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: `${template}-${set.metadata.name}-${ordinal}`, namespace: set.metadata.namespace, uid: `pvc-${ordinal}`, ...extra },
    spec: {},
  };
}
