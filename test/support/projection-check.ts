/**
 * projectionDiffs: the guard on objects/projection.ts (issue 35). The pass plans from projected
 * objects; this plans every set of a namespace of the fake twice, from the full objects the fake
 * holds and from their projections (with the label keys the namespace's sets read), indexed as
 * the pass indexes them, and returns where the two plans differ. Called on every step of the
 * seeded random runs (random-runs, inplace-random-runs, lifecycle-random-runs): a planner that
 * starts reading a field the projection drops makes them fail, with the seed.
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { plan } from "../../src/core/planner.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { labelKeys, projectClaim, projectPod, projectRevision, selectedLabelKeys } from "../../src/objects/projection.ts";
import { indexObjects } from "../../src/reconciler/pass-index.ts";
import type { FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

/** projectionDiffs returns, per set of `namespace` whose two plans differ, the set's name and both plans (none: the projection keeps what the planner reads). */
export function projectionDiffs(fake: FakeApiServer, namespace: string, now: Date): string[] {
  const sets = fake.list(`/apis/apps.ordinal.dev/v1/namespaces/${namespace}/statefulsets`);
  const selected = { labelSelector: SET_NAME_LABEL };
  const pods = fake.list<Pod>(`/api/v1/namespaces/${namespace}/pods`, selected);
  const claims = fake.list<PersistentVolumeClaim>(`/api/v1/namespaces/${namespace}/persistentvolumeclaims`, selected);
  const revisions = fake.list<ControllerRevision>(`/apis/apps/v1/namespaces/${namespace}/controllerrevisions`, selected);
  const labels = labelKeys(selectedLabelKeys(sets));
  const full = indexObjects(pods, claims, revisions, []);
  const projected = indexObjects(
    pods.map((p) => projectPod(p, labels)),
    claims.map((c) => projectClaim(c, labels)),
    revisions.map((r) => projectRevision(r, labels)),
    [],
  );
  const diffs: string[] = [];
  for (const raw of sets) {
    const parsed = StatefulSetSchema.safeParse(raw);
    if (!parsed.success) continue;
    const set = parsed.data;
    const a = JSON.stringify(plan({ set, ...full.objectsFor(set), now }));
    const b = JSON.stringify(plan({ set, ...projected.objectsFor(set), now }));
    if (a !== b) diffs.push(`${set.metadata.name}:\n full:      ${a}\n projected: ${b}`);
  }
  return diffs;
}
