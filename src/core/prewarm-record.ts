import type { ImageList } from "../api/imagelist.ts";
import { API_VERSION } from "../api/statefulset.ts";
import type { Action, ImageListPatch } from "./actions.ts";
import { PREWARM_ADDED_ANNOTATION, PREWARM_CREATED_ANNOTATION } from "../objects/constants.ts";
import { nameOf, resourceVersionOf } from "../objects/names.ts";
import { normalizeImageReference } from "../validation/image-ref.ts";
import { isObject } from "../validation/json.ts";

/**
 * Which ImageList entries Ordinal's rollouts added, and for which sets: the
 * `ordinal.dev/prewarm-added` annotation, `{ "<normalized image>": ["<set>", …] }`. An entry is
 * Ordinal's only while some set is recorded for it; an entry that was there before (a person's)
 * is never recorded, so it is never removed.
 */

export type PrewarmRecord = Map<string, Set<string>>;

/** A writeImageList action that merge-patches an existing ImageList (what releasing sets writes). */
export type ImageListPatchAction = Extract<Action, { type: "writeImageList" }> & { patch: ImageListPatch };

/** readPrewarmRecord returns the record of an ImageList; a value that does not parse reads as empty (nothing is Ordinal's). */
export function readPrewarmRecord(list: ImageList | undefined): PrewarmRecord {
  const out: PrewarmRecord = new Map();
  const raw = list?.metadata.annotations?.[PREWARM_ADDED_ANNOTATION];
  if (raw === undefined) return out;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    // Not JSON: v stays undefined and reads as empty below.
  }
  if (!isObject(v)) return out;
  for (const [ref, sets] of Object.entries(v)) {
    if (!Array.isArray(sets)) continue;
    const names = sets.filter((s): s is string => typeof s === "string");
    if (names.length) out.set(ref, new Set(names));
  }
  return out;
}

/**
 * writePrewarmRecord returns the annotation value (keys and names sorted), or null when the record
 * is empty. No set of a record is empty: reading skips empty lists and dropFromRecord removes an
 * image once its last set goes.
 */
function writePrewarmRecord(r: PrewarmRecord): string | null {
  if (!r.size) return null;
  return JSON.stringify(Object.fromEntries([...r].sort(([a], [b]) => (a < b ? -1 : 1)).map(([ref, s]) => [ref, [...s].sort()])));
}

/**
 * normalizedKeys maps the normalized form of each spec.images key to the key (keys that do not
 * parse are left out). Of two keys naming one image, the one spelled as Ordinal writes it (the
 * normalized form) wins, so that removing Ordinal's entry removes its own, not a person's.
 */
function normalizedKeys(list: ImageList | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of Object.keys(list?.spec.images ?? {})) {
    const n = normalizeImageReference(key);
    if (n.ok && (key === n.ref || !out.has(n.ref))) out.set(n.ref, key);
  }
  return out;
}

/**
 * imageListWrite returns the write that makes the ImageList `node` (in `namespace`) hold, for set
 * `setName`, exactly the Ordinal entries `want` plus those of `keep` it already holds (normalized
 * references), or undefined when nothing changes:
 * - a wanted image already listed stays as it is; if Ordinal added it (for another set), this set
 *   is recorded too; if a person listed it, it is not recorded (so never removed);
 * - a wanted image not listed is added (`alwaysPull: false`) and recorded for this set;
 * - an image recorded for this set but neither wanted nor kept loses this set; once no set is
 *   recorded for it the entry is removed.
 * A missing ImageList is created (only when something is wanted), marked as Ordinal's
 * (`ordinal.dev/prewarm-created`: isLeftEmpty removes it once empty). The patch carries the
 * observed resourceVersion: a concurrent change makes it fail, and the next pass plans again.
 */
export function imageListWrite(namespace: string, node: string, list: ImageList | undefined, setName: string, want: ReadonlySet<string>, keep: ReadonlySet<string>): Action | undefined {
  const record = readPrewarmRecord(list);
  const listed = normalizedKeys(list);
  const added: Record<string, { alwaysPull: boolean }> = {};
  const removed: ImageListPatch["spec"]["images"] = {};
  let changed = false;
  for (const ref of want) {
    const recorded = record.get(ref);
    if (listed.has(ref)) {
      if (recorded && !recorded.has(setName)) {
        recorded.add(setName);
        changed = true;
      }
      continue;
    }
    added[ref] = { alwaysPull: false };
    record.set(ref, new Set([setName]));
    changed = true;
  }
  if (dropFromRecord(record, listed, removed, (ref) => (want.has(ref) || keep.has(ref) ? [] : [setName]))) changed = true;
  if (!changed) return undefined;
  const annotation = writePrewarmRecord(record);
  if (!list) {
    const create: ImageList = {
      apiVersion: API_VERSION,
      kind: "ImageList",
      metadata: { name: node, namespace, annotations: { [PREWARM_CREATED_ANNOTATION]: "true", ...(annotation ? { [PREWARM_ADDED_ANNOTATION]: annotation } : {}) } },
      spec: { images: added },
    };
    return { type: "writeImageList", node, create };
  }
  const patch: ImageListPatch = {
    metadata: { resourceVersion: resourceVersionOf(list), annotations: { [PREWARM_ADDED_ANNOTATION]: annotation } },
    spec: { images: { ...removed, ...added } },
  };
  return { type: "writeImageList", node, patch };
}

/**
 * dropFromRecord removes, per recorded image, the sets `drop(ref)` names from the record; an
 * image no set is recorded for any more leaves the record and its spec entry is removed (null in
 * `images`). Returns true when the record changed.
 */
function dropFromRecord(record: PrewarmRecord, listed: ReadonlyMap<string, string>, images: ImageListPatch["spec"]["images"], drop: (ref: string) => Iterable<string>): boolean {
  let changed = false;
  for (const [ref, sets] of record) {
    for (const n of drop(ref)) if (sets.delete(n)) changed = true;
    if (sets.size) continue;
    record.delete(ref);
    const key = listed.get(ref);
    if (key !== undefined) images[key] = null;
  }
  return changed;
}

/**
 * releaseSets returns the patch that drops the sets `names` from the ImageList's record, removing
 * the entries no set is recorded for any more; undefined when none of them is recorded.
 */
export function releaseSets(list: ImageList, names: ReadonlySet<string>): ImageListPatchAction | undefined {
  const record = readPrewarmRecord(list);
  const images: ImageListPatch["spec"]["images"] = {};
  if (!dropFromRecord(record, normalizedKeys(list), images, () => names)) return undefined;
  return {
    type: "writeImageList",
    node: nameOf(list),
    patch: { metadata: { resourceVersion: resourceVersionOf(list), annotations: { [PREWARM_ADDED_ANNOTATION]: writePrewarmRecord(record) } }, spec: { images } },
  };
}

/**
 * isLeftEmpty is true for an ImageList Ordinal created (`ordinal.dev/prewarm-created: "true"`)
 * that lists no image and records no set any more: nothing is left to pull, the list is deleted
 * (issue 21). A list a person wrote, or one a person added images to, is never.
 */
export function isLeftEmpty(list: ImageList): boolean {
  return list.metadata.annotations?.[PREWARM_CREATED_ANNOTATION] === "true" && Object.keys(list.spec.images ?? {}).length === 0 && readPrewarmRecord(list).size === 0;
}
