import type { StatefulSet } from "../api/statefulset.ts";
import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { COMPONENT } from "../core/constants.ts";

let seq = Math.floor(Math.random() * 1000);

/**
 * recordEvent writes a core/v1 Event about the set, like upstream's recorder. Best effort: an
 * event that cannot be written is logged by the caller and never fails the pass.
 */
export async function recordEvent(
  client: KubeClient,
  set: StatefulSet,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
  now: Date,
): Promise<void> {
  const ts = now.toISOString().replace(/\.\d+Z$/, "Z");
  await client.create(R.events, set.metadata.namespace, {
    apiVersion: "v1",
    kind: "Event",
    // Named like upstream's recorder: `<object>.<hex time>` (plus a counter: one pass may record several).
    metadata: { name: `${set.metadata.name}.${(now.getTime() * 1000 + seq++ % 1000).toString(16)}`, namespace: set.metadata.namespace },
    involvedObject: {
      apiVersion: set.apiVersion,
      kind: set.kind,
      name: set.metadata.name,
      namespace: set.metadata.namespace,
      uid: set.metadata.uid,
      resourceVersion: set.metadata.resourceVersion,
    },
    reason,
    message: message.slice(0, 1024),
    type,
    source: { component: COMPONENT },
    reportingComponent: COMPONENT,
    reportingInstance: COMPONENT,
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
  });
}
