import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { createApp, type AppDeps } from "../http/app.ts";
import { silentLogger } from "../log/log.ts";
import { newStatefulSetPod } from "../objects/pod.ts";
import { WEBHOOK_PATHS } from "../webhook-config/webhook-configs.ts";

/**
 * Warming the admission path before `ordinal serve` listens (issue 20: a new set's first pod).
 * A set's CREATE is rare: its validation (the set's rules, then its first pod and claims built and
 * validated as the apiserver would: src/validation/statefulset-pods.ts) ran cold in the bench at
 * 26 ms on the first call and 6–9 ms on the next few (1–2 ms warm), all of it inside the user's
 * `kubectl apply` and before the set's first pod. Running the webhooks a few rounds on sample
 * requests at start gives the first real call the compiled code (zod's generated parsers, V8's
 * tiers) instead.
 *
 * The samples go through an app of their own (the same handlers and routes): dry-run requests, a
 * silent log, no wakes, no remembered set and a lookup that answers the sample set, so a warm-up
 * writes nothing, reads nothing and logs nothing.
 */

/** Rounds of the samples; each round is one call per sample (about 1 ms warm, 10–20 ms for the first). */
const WARM_ROUNDS = 20;

const NAMESPACE = "ordinal-warm-up";

/** The sample set: one container, one claim template, as `kubectl apply` sends it (defaults are the CRD's). */
const sampleSet = {
  apiVersion: "apps.ordinal.dev/v1",
  kind: "StatefulSet",
  metadata: { name: "web", namespace: NAMESPACE, uid: "00000000-0000-4000-8000-000000000001", creationTimestamp: "2026-01-01T00:00:00Z" },
  spec: {
    replicas: 3,
    serviceName: "web",
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: "registry.example/app:1.0", ports: [{ containerPort: 8080, name: "http" }], volumeMounts: [{ name: "data", mountPath: "/data" }] }] },
    },
    volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
  },
};

interface Sample {
  path: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  name: string;
  object: unknown;
}

/** samples returns the warm-up's requests: the set's CREATE (mutating and validating hooks) and its first pod's CREATE (both pod hooks); `set` is sampleSet parsed. */
function samples(set: StatefulSet): Sample[] {
  const pod = newStatefulSetPod(set, 0);
  const setKind = { group: "apps.ordinal.dev", version: "v1", kind: "StatefulSet" };
  const setResource = { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" };
  const podKind = { group: "", version: "v1", kind: "Pod" };
  const podResource = { group: "", version: "v1", resource: "pods" };
  return [
    { path: WEBHOOK_PATHS.mutateStatefulSets, kind: setKind, resource: setResource, name: "web", object: sampleSet },
    { path: WEBHOOK_PATHS.validateStatefulSets, kind: setKind, resource: setResource, name: "web", object: sampleSet },
    { path: WEBHOOK_PATHS.mutatePods, kind: podKind, resource: podResource, name: "web-0", object: pod },
    { path: WEBHOOK_PATHS.validatePods, kind: podKind, resource: podResource, name: "web-0", object: pod },
  ];
}

/** What one sample's last call was answered: the HTTP status and whether the request was allowed. */
interface WarmAnswer {
  path: string;
  status: number;
  allowed: boolean | undefined;
}

/**
 * warmAdmission calls each webhook `rounds` times with its sample (dry-run CREATEs by the reconciler
 * user, no side effects: see above) and returns each sample's last answer; a warm-up that fails
 * throws nothing (the caller starts anyway, only colder).
 */
export async function warmAdmission(deps: Pick<AppDeps, "reconcilerUsername" | "validateAppsV1StatefulSets">, rounds = WARM_ROUNDS): Promise<WarmAnswer[]> {
  const answers: WarmAnswer[] = [];
  try {
    const set = StatefulSetSchema.parse(sampleSet);
    const app = createApp({
      auth: { unauthenticated: true },
      reconcilerUsername: deps.reconcilerUsername,
      validateAppsV1StatefulSets: deps.validateAppsV1StatefulSets,
      log: silentLogger,
      lookupStatefulSet: () => Promise.resolve(set),
    });
    const list = samples(set);
    for (let round = 0; round < rounds; round++) {
      answers.length = 0;
      for (const s of list) {
        const request = {
          uid: `warm-up-${round}`,
          kind: s.kind,
          resource: s.resource,
          requestKind: s.kind,
          requestResource: s.resource,
          name: s.name,
          namespace: NAMESPACE,
          operation: "CREATE",
          userInfo: { username: deps.reconcilerUsername },
          object: s.object,
          oldObject: null,
          dryRun: true,
          options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
        };
        const res = await app.fetch(
          new Request(`http://warm-up${s.path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request }) }),
        );
        const body = (await res.json().catch(() => ({}))) as { response?: { allowed?: boolean } };
        answers.push({ path: s.path, status: res.status, allowed: body.response?.allowed });
      }
    }
  } catch {
    // Only warmth is lost.
  }
  return answers;
}
