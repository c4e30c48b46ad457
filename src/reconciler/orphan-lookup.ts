import type { ControllerRevision, Pod } from "../api/k8s.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { labelKeys, projectPod, projectRevision, selectorKeys } from "../objects/projection.ts";

/** A set's orphan lookup: the lists a pass sends before a new set's first plan, or an early one the scheduler started (src/schedule/orphan-lookups.ts). */
export interface OrphanLookup {
  /** The label selector the lists used (the pass compares it with the set's). */
  selector: string;
  /** The pods and revisions of the namespace that the selector matches (a copy of its own for each pass that takes a shared early lookup). */
  found: Promise<{ pods: (Pod & KubeObject)[]; revisions: (ControllerRevision & KubeObject)[] }>;
}

/** The pass's page size (pass-reads.ts LIST_PAGE_SIZE). */
const PAGE_SIZE = 5000;

/** listSelected returns the namespace's pods and revisions that `selector` matches (two lists, at once): the orphan lookup, early or the pass's own. */
export async function listSelected(client: KubeClient, namespace: string | undefined, selector: string): Promise<Awaited<OrphanLookup["found"]>> {
  // Projected as they stream in (objects/projection.ts): what adoption reads, with the selector's label keys.
  const labels = labelKeys(selectorKeys(selector));
  const page = (project: (o: unknown) => unknown) => ({ labelSelector: selector, limit: PAGE_SIZE, project: (o: KubeObject) => project(o) as KubeObject });
  const [pods, revisions] = await Promise.all([
    client.list<Pod & KubeObject>(R.pods, namespace, page((o) => projectPod(o, labels))),
    client.list<ControllerRevision & KubeObject>(R.controllerRevisions, namespace, page((o) => projectRevision(o, labels))),
  ]);
  return { pods, revisions };
}
