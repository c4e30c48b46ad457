/** What both shells of the schedule model (Node's scheduler, the Worker's shard runner) do alike around it: probes, and reading a pass's result into a report. */
import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { writeLanded, type AnnouncedResource, type AnnouncedWrite } from "../objects/announced-write.ts";
import type { PassResult } from "../reconciler/pass.ts";
import type { FullReport, SetReport } from "./model.ts";

/** The resource each kind of announced write is read from. */
const PROBED: Record<AnnouncedResource, (typeof R)[keyof typeof R]> = { pods: R.pods, persistentvolumeclaims: R.pvcs, statefulsets: R.statefulSets };

/**
 * anyLanded returns true when one of the awaited writes shows on its object, read by name (the
 * schedule model's "probe": one GET each instead of a pass); a failed read counts as landed (the
 * pass then looks).
 */
export async function anyLanded(client: KubeClient, namespace: string, writes: readonly AnnouncedWrite[]): Promise<boolean> {
  for (const write of writes) {
    try {
      if (writeLanded(write, await client.get(PROBED[write.resource], namespace, write.name))) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** setReportOf returns what the schedule model reads of a targeted pass of `setName` ("": a namespace's ImageLists); `stopped`: the shell stopped it early. */
export function setReportOf(r: PassResult, setName: string, stopped = false): SetReport {
  return {
    actionCount: r.actionCount,
    pending: r.pending,
    requeueAfterMs: r.requeueAfterMs,
    unseenWrites: r.unseenWrites,
    found: setName === "" || r.sets.length > 0,
    stopped,
    imageListCount: r.imageListCount,
    seenSet: r.seenSet,
  };
}

/** fullReportOf returns what the schedule model reads of a full pass: each set's outcome, and where it stopped. */
export function fullReportOf(r: PassResult): FullReport {
  const sets = r.sets.map((x) => ({ key: x.set, actionCount: x.actions.length, pending: x.waiting || x.error !== undefined, requeueAfterMs: x.requeueAfterMs }));
  return r.cursor === undefined ? { sets } : { sets, cursor: r.cursor };
}
