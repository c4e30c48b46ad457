/**
 * The chaos run's StatefulSets: a seeded mix of OrderedReady and Parallel, recreate and in-place
 * updates, claim templates (some deleted on scale-in), maxUnavailable 1–2, lifecycle hooks
 * (preDelete, inPlaceUpdate) and a progress deadline with automatic rollback. One set per
 * namespace, so the sets fall on every shard.
 */
import type { Random } from "../../src/sim/fake-apiserver/random.ts";

/** The label a lifecycle hook holds a pod by; the person (person.ts) releases it. */
export const HOOK_LABEL = "chaos.ordinal.dev/hold";
/** Images with this in their tag never become ready (the kubelet player is told so): a broken release. */
export const BROKEN = "broken";

export interface ChaosSet {
  namespace: string;
  name: string;
  /** Whether a broken release is rolled back by the progress deadline (so the person may make one). */
  rollsBack: boolean;
  manifest: Record<string, unknown>;
}

/** image returns the image of release `n` of the chaos sets (`broken`: one that never gets ready). */
export const image = (n: number, broken = false) => `registry.example/chaos/app:${broken ? `${BROKEN}-` : ""}${n}`;

/** chaosSets returns `n` sets in namespaces `${prefix}-<i>`, their features drawn from `random`. */
export function chaosSets(n: number, prefix: string, random: Random): ChaosSet[] {
  return Array.from({ length: n }, (_, i) => {
    const namespace = `${prefix}-${i}`;
    const name = "app";
    const parallel = i % 2 === 1;
    const inPlace = random() < 0.5;
    const claims = random() < 0.6;
    const hook = random() < 0.4 ? (inPlace && random() < 0.5 ? "inPlaceUpdate" : "preDelete") : undefined;
    const rollsBack = random() < 0.5;
    const maxUnavailable = 1 + Math.floor(random() * 2);
    const labels: Record<string, string> = { app: name, ...(hook ? { [HOOK_LABEL]: "true" } : {}) };
    const spec: Record<string, unknown> = {
      replicas: 2 + Math.floor(random() * 2),
      serviceName: name,
      podManagementPolicy: parallel ? "Parallel" : "OrderedReady",
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels }, spec: { containers: [{ name: "app", image: image(1) }], terminationGracePeriodSeconds: 5 } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable, podUpdatePolicy: inPlace ? "InPlaceIfPossible" : "ReCreate", ...(rollsBack ? { rollbackOnFailure: true } : {}) } },
      ...(rollsBack ? { progressDeadlineSeconds: 60 } : {}),
      ...(claims
        ? {
            volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
            persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: random() < 0.5 ? "Delete" : "Retain" },
          }
        : {}),
      ...(parallel ? { scaleStrategy: { maxUnavailable } } : {}),
      ...(hook ? { lifecycle: { [hook]: { labelsHandler: { [HOOK_LABEL]: "true" } } } } : {}),
    };
    return { namespace, name, rollsBack, manifest: { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", metadata: { name, namespace }, spec } };
  });
}
