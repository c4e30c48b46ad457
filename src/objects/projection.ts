import type { ContainerStatus, ControllerRevision, PersistentVolumeClaim, Pod, PodCondition, Volume } from "../api/k8s.ts";
import {
  INPLACE_READY_CONDITION,
  INPLACE_STATE_ANNOTATION,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  PULLER_IMAGE_ANNOTATION,
  REVISION_LABEL,
  SWITCHOVER_REQUEST_ANNOTATION,
} from "./constants.ts";

/**
 * What a pass keeps of each object it lists: the fields the planner and the executor read, and
 * nothing a tenant can grow without bound (issue 35). Applied to each item as its list page
 * streams in (kube/list-stream.ts), so what is dropped never piles up in the heap:
 * - pods: identity (name, uid, resourceVersion, timestamps, owners, finalizers), the labels Ordinal
 *   reads (its own and those a set of the namespace selects on or hooks on: `LabelKeys`), its own
 *   annotations (values over MAX_ANNOTATION_CHARS read as unreadable: ""), hostname, subdomain,
 *   nodeName, the InPlaceUpdateReady readiness gate, claim-backed volumes (name and claim), each
 *   container's name and image, the phase, the kubelet's conditions and Ordinal's gate, and per
 *   container status its name, image, imageID, containerID, readiness and state times; every
 *   message cut to MAX_MESSAGE_CHARS. Env, command, args, probes, resources, other volumes,
 *   managedFields, other annotations and labels never reach the heap.
 * - claims: identity, the labels Ordinal reads, owners, storage class and requested storage, phase
 *   and capacity.
 * - revisions: identity, the labels Ordinal reads, owners, revision number, and `data` whole: it is
 *   the set's template as Ordinal wrote it (a pod may be created or rolled back from it), bounded
 *   by the apiserver's object size limit (1.5 MiB in etcd's default request size).
 * Writes never use a projection as a base: every write the executor sends is a patch of the
 * fields it names (container images by a strategic merge patch, one condition merged by type),
 * so what a projection drops is never written back.
 */

/** LabelKeys is true for a label key a pass must keep (objects/projection.ts: ownLabel or a set's). */
export type LabelKeys = (key: string) => boolean;

/** Messages (conditions, container states) are kept up to this many characters. */
export const MAX_MESSAGE_CHARS = 1024;

/** Ordinal's annotations are kept up to this many characters; a longer value reads as "" (unreadable). */
export const MAX_ANNOTATION_CHARS = 16 * 1024;

/** The pod annotations Ordinal reads. */
const OWN_ANNOTATIONS = [INPLACE_STATE_ANNOTATION, PULLER_IMAGE_ANNOTATION, LIFECYCLE_TIMESTAMP_ANNOTATION, SWITCHOVER_REQUEST_ANNOTATION];

/** The pod conditions Ordinal reads (the kubelet's and its own gate); others (custom readiness gates) are dropped. */
const KEPT_CONDITIONS = new Set(["Ready", "PodScheduled", "ContainersReady", "Initialized", INPLACE_READY_CONDITION]);

/** ownLabel is true for the labels Ordinal writes and reads on every object: `ordinal.dev/…`, the pod name and index, the revision hash. */
const ownLabel: LabelKeys = (key) => key.startsWith("ordinal.dev/") || key === POD_NAME_LABEL || key === POD_INDEX_LABEL || key === REVISION_LABEL;

/** allLabels keeps every label (a mirror that does not know the sets yet: kube/informer.ts budgets it by bytes). */
export const allLabels: LabelKeys = () => true;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const cut = (v: unknown): string | undefined => (typeof v === "string" ? (v.length > MAX_MESSAGE_CHARS ? v.slice(0, MAX_MESSAGE_CHARS) : v) : undefined);

/**
 * defined returns a copy of `o` without its undefined fields (projections compare equal to objects
 * that never had them). A copy, not `delete`: an object that lost a property is a slow dictionary
 * in V8, several times the size of one built field by field.
 */
function defined<T extends Obj>(o: T): T {
  const out: Obj = {};
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out as T;
}

/**
 * selectedLabelKeys returns the label keys a namespace's (unparsed) sets read on their objects
 * beyond Ordinal's own: those their selectors (matchLabels, matchExpressions), lifecycle hooks
 * (labelsHandler), update order (priorityStrategy: weightPriority's matchSelectors,
 * orderPriority's orderedKeys) and roles (labelKey) name.
 */
export function selectedLabelKeys(sets: readonly unknown[]): Set<string> {
  const keys = new Set<string>();
  const addKeysOf = (m: unknown) => {
    if (isObj(m)) for (const k of Object.keys(m)) keys.add(k);
  };
  const addSelector = (selector: unknown) => {
    if (!isObj(selector)) return;
    addKeysOf(selector.matchLabels);
    if (Array.isArray(selector.matchExpressions)) for (const e of selector.matchExpressions) if (isObj(e) && typeof e.key === "string") keys.add(e.key);
  };
  const items = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
  for (const s of sets) {
    const spec = isObj(s) ? s.spec : undefined;
    if (!isObj(spec)) continue;
    addSelector(spec.selector);
    const lifecycle = spec.lifecycle;
    if (isObj(lifecycle)) for (const hook of Object.values(lifecycle)) if (isObj(hook)) addKeysOf(hook.labelsHandler);
    const strategy = isObj(spec.updateStrategy) && isObj(spec.updateStrategy.rollingUpdate) ? spec.updateStrategy.rollingUpdate : {};
    const priority = isObj(strategy.unorderedUpdate) && isObj(strategy.unorderedUpdate.priorityStrategy) ? strategy.unorderedUpdate.priorityStrategy : {};
    for (const t of items(priority.weightPriority)) addSelector(t.matchSelector);
    for (const t of items(priority.orderPriority)) if (typeof t.orderedKey === "string") keys.add(t.orderedKey);
    if (isObj(spec.roles) && typeof spec.roles.labelKey === "string") keys.add(spec.roles.labelKey);
  }
  return keys;
}

/** selectorKeys returns the label keys a label selector string names (`k`, `!k`, `k=v`, `k!=v`, `k in (…)`, `k notin (…)`). */
export function selectorKeys(selector: string): Set<string> {
  const keys = new Set<string>();
  for (const term of selector.replace(/\([^)]*\)/g, "").split(",")) {
    const key = term.trim().replace(/^!/, "").split(/\s|!=|==|=/)[0];
    if (key) keys.add(key);
  }
  return keys;
}

/** labelKeys returns the LabelKeys that keep Ordinal's own labels and `keys`. */
export const labelKeys =
  (keys: ReadonlySet<string>): LabelKeys =>
  (key) =>
    ownLabel(key) || keys.has(key);

/** metadataOf returns the metadata fields every projection keeps, with the labels `labels` keeps. */
function metadataOf(m: unknown, labels: LabelKeys): Obj {
  if (!isObj(m)) return {};
  const kept: Record<string, string> = {};
  if (isObj(m.labels)) for (const [k, v] of Object.entries(m.labels)) if (typeof v === "string" && labels(k)) kept[k] = v;
  return defined({
    name: str(m.name),
    generateName: str(m.generateName),
    namespace: str(m.namespace),
    uid: str(m.uid),
    resourceVersion: str(m.resourceVersion),
    generation: typeof m.generation === "number" ? m.generation : undefined,
    creationTimestamp: m.creationTimestamp,
    deletionTimestamp: m.deletionTimestamp,
    deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
    labels: isObj(m.labels) ? kept : undefined,
    ownerReferences: Array.isArray(m.ownerReferences) ? structuredClone(m.ownerReferences) : undefined,
    finalizers: Array.isArray(m.finalizers) ? m.finalizers.filter((f): f is string => typeof f === "string") : undefined,
  });
}

/** ownAnnotations returns the pod annotations Ordinal reads (a value over MAX_ANNOTATION_CHARS as ""); undefined when there is none. */
function ownAnnotations(m: unknown): Record<string, string> | undefined {
  const a = isObj(m) && isObj(m.annotations) ? m.annotations : undefined;
  if (!a) return undefined;
  const out: Record<string, string> = {};
  for (const k of OWN_ANNOTATIONS) {
    const v = a[k];
    if (typeof v === "string") out[k] = v.length > MAX_ANNOTATION_CHARS ? "" : v;
  }
  return out;
}

/** containersOf returns each container's name and image. */
const containersOf = (list: unknown) => (Array.isArray(list) ? list.filter(isObj).map((c) => defined({ name: str(c.name) ?? "", image: str(c.image) })) : undefined);

/** claimVolumesOf returns the volumes backed by a claim (name and claim); others are not Ordinal's to read. */
function claimVolumesOf(list: unknown): Volume[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Volume[] = [];
  for (const v of list) if (isObj(v) && isObj(v.persistentVolumeClaim)) out.push({ name: str(v.name) ?? "", persistentVolumeClaim: defined({ claimName: str(v.persistentVolumeClaim.claimName) ?? "", readOnly: v.persistentVolumeClaim.readOnly as boolean | undefined }) });
  return out;
}

/** stateOf returns a container state with its times, reasons, exit code and messages (cut). */
function stateOf(s: unknown): ContainerStatus["state"] {
  if (!isObj(s)) return undefined;
  const { running, waiting, terminated } = s;
  return defined({
    running: isObj(running) ? defined({ startedAt: running.startedAt as Date | undefined }) : undefined,
    waiting: isObj(waiting) ? defined({ reason: str(waiting.reason), message: cut(waiting.message) }) : undefined,
    terminated: isObj(terminated)
      ? defined({ exitCode: terminated.exitCode as number, reason: str(terminated.reason), message: cut(terminated.message), startedAt: terminated.startedAt as Date | undefined, finishedAt: terminated.finishedAt as Date | undefined, containerID: str(terminated.containerID) })
      : undefined,
  });
}

/** containerStatusesOf returns what Ordinal reads of each container status. */
function containerStatusesOf(list: unknown): ContainerStatus[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.filter(isObj).map((c) =>
    defined({
      name: str(c.name) ?? "",
      image: str(c.image) ?? "",
      imageID: str(c.imageID) ?? "",
      containerID: str(c.containerID),
      ready: c.ready === true,
      started: typeof c.started === "boolean" ? c.started : undefined,
      restartCount: typeof c.restartCount === "number" ? c.restartCount : 0,
      state: stateOf(c.state),
    }),
  );
}

/** conditionsOf returns the conditions Ordinal reads (KEPT_CONDITIONS), messages cut. */
function conditionsOf(list: unknown): PodCondition[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list
    .filter((c): c is Obj => isObj(c) && typeof c.type === "string" && KEPT_CONDITIONS.has(c.type))
    .map((c) => defined({ type: c.type as string, status: str(c.status) ?? "", reason: str(c.reason), message: cut(c.message), lastTransitionTime: c.lastTransitionTime as Date | undefined }));
}

/** projectPod returns what a pass keeps of a pod (see above). */
export function projectPod(pod: unknown, labels: LabelKeys): Pod {
  const p = isObj(pod) ? pod : {};
  const spec = isObj(p.spec) ? p.spec : undefined;
  const status = isObj(p.status) ? p.status : undefined;
  const metadata = metadataOf(p.metadata, labels);
  const annotations = ownAnnotations(p.metadata);
  if (annotations) metadata.annotations = annotations;
  return defined({
    apiVersion: str(p.apiVersion),
    kind: str(p.kind),
    metadata,
    spec: spec
      ? defined({
          containers: containersOf(spec.containers) ?? [],
          initContainers: containersOf(spec.initContainers),
          hostname: str(spec.hostname),
          subdomain: str(spec.subdomain),
          nodeName: str(spec.nodeName),
          readinessGates: Array.isArray(spec.readinessGates) ? spec.readinessGates.filter((g) => isObj(g) && g.conditionType === INPLACE_READY_CONDITION).map(() => ({ conditionType: INPLACE_READY_CONDITION })) : undefined,
          volumes: claimVolumesOf(spec.volumes),
        })
      : undefined,
    status: status
      ? defined({
          phase: str(status.phase),
          reason: str(status.reason),
          message: cut(status.message),
          startTime: status.startTime as Date | undefined,
          conditions: conditionsOf(status.conditions),
          containerStatuses: containerStatusesOf(status.containerStatuses),
          initContainerStatuses: containerStatusesOf(status.initContainerStatuses),
        })
      : undefined,
  }) as Pod;
}

/** projectClaim returns what a pass keeps of a PVC (see above). */
export function projectClaim(claim: unknown, labels: LabelKeys): PersistentVolumeClaim {
  const c = isObj(claim) ? claim : {};
  const spec = isObj(c.spec) ? c.spec : undefined;
  const status = isObj(c.status) ? c.status : undefined;
  const requests = spec && isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : undefined;
  const capacity = status && isObj(status.capacity) ? status.capacity : undefined;
  return defined({
    apiVersion: str(c.apiVersion),
    kind: str(c.kind),
    metadata: metadataOf(c.metadata, labels),
    spec: spec ? defined({ storageClassName: str(spec.storageClassName), volumeName: str(spec.volumeName), resources: requests ? { requests: defined({ storage: requests.storage }) } : undefined }) : undefined,
    status: status ? defined({ phase: str(status.phase), capacity: capacity ? defined({ storage: capacity.storage }) : undefined }) : undefined,
  }) as PersistentVolumeClaim;
}

/** projectRevision returns what a pass keeps of a ControllerRevision (see above: `data` whole). */
export function projectRevision(revision: unknown, labels: LabelKeys): ControllerRevision {
  const r = isObj(revision) ? revision : {};
  return defined({
    apiVersion: str(r.apiVersion),
    kind: str(r.kind),
    metadata: metadataOf(r.metadata, labels),
    revision: typeof r.revision === "number" ? r.revision : 0,
    data: r.data,
  }) as ControllerRevision;
}
