/**
 * Small helpers the kubectl-like commands share: naming a set on the command line, reading it,
 * and the pods and ControllerRevisions it controls.
 */
import type { ControllerRevision, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { UsageError } from "./args.ts";

/** The resource as kubectl names it in messages. */
export const SET_RESOURCE = "statefulset.apps.ordinal.dev";

/**
 * setNameArg returns the set's name from `web`, `osts/web`, `statefulset/web` or
 * `statefulsets.apps.ordinal.dev/web`; other kinds are a UsageError.
 */
export function setNameArg(arg: string): string {
  const slash = arg.indexOf("/");
  if (slash < 0) return arg;
  const kind = arg.slice(0, slash).toLowerCase();
  const ok = ["osts", "statefulset", "statefulsets", "statefulset.apps.ordinal.dev", "statefulsets.apps.ordinal.dev"];
  if (!ok.includes(kind)) throw new UsageError(`"${arg}": only Ordinal StatefulSets (osts/NAME) are handled here; for apps/v1 use kubectl`);
  return arg.slice(slash + 1);
}

/** getSet returns the set, or throws the message kubectl prints for a missing object. */
export async function getSet(client: KubeClient, namespace: string, name: string): Promise<StatefulSet> {
  const set = await client.get<StatefulSet>(R.statefulSets, namespace, name);
  if (!set) throw new Error(`statefulsets.apps.ordinal.dev "${name}" not found in namespace ${namespace}`);
  return set;
}

const controlledBy = (set: StatefulSet) => (o: { metadata?: { ownerReferences?: { uid: string; controller?: boolean }[] } }) =>
  (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === set.metadata.uid);

/** podsOf returns the pods the set controls, sorted by name. */
export async function podsOf(client: KubeClient, set: StatefulSet): Promise<Pod[]> {
  const pods = await client.list<Pod>(R.pods, set.metadata.namespace, { labelSelector: `${SET_NAME_LABEL}=${set.metadata.name}` });
  return pods.filter(controlledBy(set)).sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "", undefined, { numeric: true }));
}

/** revisionsOf returns the ControllerRevisions the set controls, oldest first (as kubectl's history does). */
export async function revisionsOf(client: KubeClient, set: StatefulSet): Promise<ControllerRevision[]> {
  // Imported here: the commands that name a set load this file to list themselves (ordinal --help).
  const { selectorToString } = await import("../validation/labels.ts");
  const revs = await client.list<ControllerRevision>(R.controllerRevisions, set.metadata.namespace, { labelSelector: selectorToString(set.spec.selector) });
  return revs.filter(controlledBy(set)).sort((a, b) => a.revision - b.revision);
}
