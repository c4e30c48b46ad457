import { GROUP } from "../api/statefulset.ts";
import type { Pod } from "../api/k8s.ts";
import { PULLER_LABEL, SET_NAME_LABEL } from "../objects/constants.ts";
import { isObject } from "../validation/json.ts";
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from "../validation/names.ts";
import { ordinalSetOf } from "./membership.ts";
import type { AnnouncedResource, AnnouncedWrite } from "../objects/announced-write.ts";
import type { Wake as BaseWake } from "../objects/wake.ts";
import type { AdmissionRequest } from "./types.ts";

/**
 * Wakes: what an admission Ordinal sees tells the reconciler. Every allowed, non-dry-run request
 * that changes something a set's plan reads (the set, its scale, its pods and their status, its
 * claims, the namespace's ImageLists and their puller pods) becomes a `Wake` naming the set; the
 * runtime (Node's scheduler, the Worker's shard object) turns it into a targeted pass soon. A
 * wake is only a hint: the reconciler stays level-triggered and its periodic full pass the safety
 * net, so a wake lost (webhook down, Ignore) costs latency, never correctness.
 *
 * A wake is also untrusted: with WEBHOOK_AUTH=none anyone who reaches the webhooks can send a
 * review, so a wake carries names only ("look at this set"), never anything of the request's
 * object that the reconciler would act on: everything it acts on is read from the apiserver.
 */

/** Why a set was woken: which kind of object changed. */
type WakeReason = "set" | "scale" | "pod" | "pod-status" | "claim" | "imagelist";

/** A wake an admission makes: the one wake type (objects/wake.ts), with why it was made. */
export interface Wake extends BaseWake {
  reason: WakeReason;
}

const labelsOf = (obj: unknown): Record<string, unknown> | undefined => {
  const labels: unknown = isObject(obj) && isObject(obj.metadata) ? obj.metadata.labels : undefined;
  return isObject(labels) ? labels : undefined;
};

const stringAt = (obj: unknown, key: "name" | "namespace"): string | undefined => {
  const v: unknown = isObject(obj) && isObject(obj.metadata) ? obj.metadata[key] : undefined;
  return typeof v === "string" && v !== "" ? v : undefined;
};

/** setLabelOf returns the object's `ordinal.dev/statefulset` label when it is a non-empty string. */
const setLabelOf = (obj: unknown): string | undefined => {
  const v = labelsOf(obj)?.[SET_NAME_LABEL];
  return typeof v === "string" && v !== "" ? v : undefined;
};

/**
 * Pod status fields no plan reads (addresses, QoS class, scheduling hints): a status write that
 * changes only these wakes nothing. Everything else (phase, conditions, container statuses,
 * startTime, reason, message, …) may change a plan or a status Ordinal reports.
 */
const STATUS_FIELDS_NO_PLAN_READS = new Set(["hostIP", "hostIPs", "podIP", "podIPs", "qosClass", "nominatedNodeName"]);

/** planRelevantStatus returns the pod's status without the fields no plan reads, as comparable JSON. */
function planRelevantStatus(pod: unknown): string {
  const status: unknown = isObject(pod) ? pod.status : undefined;
  if (!isObject(status)) return "";
  return JSON.stringify(Object.entries(status).filter(([k]) => !STATUS_FIELDS_NO_PLAN_READS.has(k)));
}

/**
 * statusWriteMatters is false for a pod status write that cannot change a plan: the new object's
 * metadata (labels, annotations, deletion) and plan-relevant status equal the old one's (a
 * kubelet rewriting the same status, an IP appearing).
 */
function statusWriteMatters(req: AdmissionRequest): boolean {
  const meta = (o: unknown) => (isObject(o) && isObject(o.metadata) ? JSON.stringify([o.metadata.labels, o.metadata.annotations, o.metadata.deletionTimestamp]) : "");
  return meta(req.oldObject) !== meta(req.object) || planRelevantStatus(req.oldObject) !== planRelevantStatus(req.object);
}

/**
 * wakeTarget returns the set (or, reason "imagelist", the namespace) a request concerns, before
 * its names are checked; undefined when nothing Ordinal plans from changed.
 */
function wakeTarget(req: AdmissionRequest): { name: string | undefined; reason: WakeReason } | undefined {
  const { group, resource } = req.resource;
  const sub = req.subResource ?? "";
  const objects = [req.oldObject, req.object];
  if (group === GROUP && resource === "statefulsets") {
    // status is the reconciler's own write (and nobody else's business).
    if (sub === "scale") return { name: req.name, reason: "scale" };
    return sub === "" ? { name: req.name || stringAt(req.object, "name") || stringAt(req.oldObject, "name"), reason: "set" } : undefined;
  }
  if (group === GROUP && resource === "imagelists") return sub === "" ? { name: "", reason: "imagelist" } : undefined;
  if (group !== "") return undefined;
  if (resource === "pods") {
    if (sub !== "" && sub !== "status") return undefined; // bindings, ephemeral containers: a status write follows
    if (objects.some((o) => labelsOf(o)?.[PULLER_LABEL] === "true")) return { name: "", reason: "imagelist" };
    const name = ordinalSetOf(req.oldObject as Pod | undefined) ?? ordinalSetOf(req.object as Pod | undefined);
    if (name === undefined || (sub === "status" && req.operation === "UPDATE" && !statusWriteMatters(req))) return undefined;
    return { name, reason: sub === "status" ? "pod-status" : "pod" };
  }
  if (resource === "persistentvolumeclaims" && sub === "") {
    const name = setLabelOf(req.oldObject) ?? setLabelOf(req.object);
    return name === undefined ? undefined : { name, reason: "claim" };
  }
  return undefined;
}

export interface WakeOptions {
  /** The reconciler's own writes wake nothing: the pass that made them already goes on. */
  reconcilerUsername: string;
}

/**
 * wakeOf returns the wake an admission request causes, or undefined: for a request that changes
 * nothing (dry run, CONNECT, a denied request, the reconciler's own write), that concerns nothing
 * Ordinal plans from, or whose names are not valid object names (hostile callers: a wake's names
 * end up in field and label selectors, so they must be plain names). The namespace is the
 * object's, else the request's, else "default".
 */
export function wakeOf(req: AdmissionRequest, allowed: boolean, o: WakeOptions): Wake | undefined {
  if (!allowed || req.dryRun || req.operation === "CONNECT") return undefined;
  if (req.userInfo.username === o.reconcilerUsername) return undefined;
  const target = wakeTarget(req);
  if (!target || target.name === undefined) return undefined;
  const namespace = stringAt(req.object, "namespace") ?? stringAt(req.oldObject, "namespace") ?? (req.namespace || "default");
  const { name, reason } = target;
  if (!isWakeOf(namespace, name)) return undefined;
  const write = name === "" ? undefined : announcedWrite(req);
  return { namespace, name, reason, ...(write ? { write } : {}) };
}

/**
 * isWakeOf is true when a wake's names are plain: the namespace a DNS label, the set name "" or an
 * object name that is also a label value (a wake's names end up in field and label selectors).
 */
export const isWakeOf = (namespace: string, name: string): boolean =>
  isDNS1123Label(namespace).length === 0 && (name === "" || (isDNS1123Subdomain(name).length === 0 && isValidLabelValue(name).length === 0));

/** isAnnouncedWrite is true for a well-formed announced write (a forwarded wake's is checked again). */
export function isAnnouncedWrite(w: unknown): w is AnnouncedWrite {
  if (!isObject(w)) return false;
  const { resource, name, operation, resourceVersion } = w;
  return (
    typeof resource === "string" &&
    ANNOUNCED[resource] === resource &&
    typeof name === "string" &&
    isDNS1123Subdomain(name).length === 0 &&
    (operation === "CREATE" || operation === "UPDATE" || operation === "DELETE") &&
    (resourceVersion === undefined || (typeof resourceVersion === "string" && RESOURCE_VERSION.test(resourceVersion)))
  );
}

const RESOURCE_VERSION = /^[0-9A-Za-z._-]{1,64}$/;

const ANNOUNCED: Record<string, AnnouncedResource | undefined> = { pods: "pods", persistentvolumeclaims: "persistentvolumeclaims", statefulsets: "statefulsets" };

/**
 * announcedWrite returns the write a wake's request makes (the object by name, the operation and,
 * for updates and deletes, the resourceVersion before it), or undefined when its name or version
 * is not a plain one (hostile callers: the pass only compares them, but they stay small).
 */
function announcedWrite(req: AdmissionRequest): AnnouncedWrite | undefined {
  const resource = ANNOUNCED[req.resource.resource];
  const operation = req.operation;
  const name = req.name || stringAt(req.object, "name") || stringAt(req.oldObject, "name");
  if (!resource || !name || isDNS1123Subdomain(name).length > 0 || (operation !== "CREATE" && operation !== "UPDATE" && operation !== "DELETE")) return undefined;
  if (operation === "CREATE") return { resource, name, operation };
  const rv: unknown = isObject(req.oldObject) && isObject(req.oldObject.metadata) ? req.oldObject.metadata.resourceVersion : undefined;
  return typeof rv === "string" && RESOURCE_VERSION.test(rv) ? { resource, name, operation, resourceVersion: rv } : { resource, name, operation };
}
