import { GROUP } from "../api/statefulset.ts";
import type { Pod } from "../api/k8s.ts";
import { PULLER_LABEL, SET_NAME_LABEL } from "../objects/constants.ts";
import { isObject } from "../validation/json.ts";
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from "../validation/names.ts";
import { ordinalSetOf } from "./membership.ts";
import type { AdmissionRequest } from "./types.ts";

/**
 * Wakes: what an admission Ordinal sees tells the reconciler. Every allowed, non-dry-run request
 * that changes something a set's plan reads (the set, its scale, its pods and their status, its
 * claims, the namespace's ImageLists and their puller pods) becomes a `Wake` naming the set; the
 * runtime (Node's scheduler, the Worker's shard object) turns it into a targeted pass soon. A
 * wake is only a hint: the reconciler stays level-triggered and its periodic full pass the safety
 * net, so a wake lost (webhook down, Ignore) costs latency, never correctness.
 */

/** Why a set was woken: which kind of object changed. */
type WakeReason = "set" | "scale" | "pod" | "pod-status" | "claim" | "imagelist";

export interface Wake {
  namespace: string;
  /** The set's name; "" for a wake of the namespace's ImageLists (an ImageList or a puller pod changed). */
  name: string;
  reason: WakeReason;
}

/** wakeKey returns `namespace/name`, the key wakes are coalesced and rate-limited by. */
export const wakeKey = (w: Pick<Wake, "namespace" | "name">): string => `${w.namespace}/${w.name}`;

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
    return name === undefined ? undefined : { name, reason: sub === "status" ? "pod-status" : "pod" };
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
  if (isDNS1123Label(namespace).length > 0) return undefined;
  const { name, reason } = target;
  if (name !== "" && (isDNS1123Subdomain(name).length > 0 || isValidLabelValue(name).length > 0)) return undefined;
  return { namespace, name, reason };
}
