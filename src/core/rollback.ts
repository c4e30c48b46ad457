import type { PodTemplateSpec } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action, JsonPatchOp } from "./actions.ts";
import { FAILED_REVISIONS_ANNOTATION } from "../objects/constants.ts";
import { escapePathSegment } from "../objects/json-diff.ts";
import { canonicalJson } from "./hash.ts";
import { revisionTemplate, type SetRevisions } from "./revisions.ts";
import { updateStrategyOf } from "./update-strategy.ts";
import type { Blocker } from "./blocker.ts";

/**
 * Automatic rollback (spec.updateStrategy.rollingUpdate.rollbackOnFailure): once a rollout has
 * exceeded its progress deadline (progress-deadline.ts), the template of the last revision that
 * was fully available — status.currentRevision, which becomes the update revision only when every
 * pod was updated and Ready — is written back into spec.template, exactly as `ordinal rollout
 * undo` writes it (templatePatch), with the failed revision added to the set's
 * ordinal.dev/failed-revisions annotation in the same write. The write is guarded by the set's
 * resourceVersion: a person's change made since the pass read the set wins (the write fails and
 * the next pass sees their revision, with a fresh clock). The existing healing then replaces the
 * pods that never became Ready at the failed revision.
 */

/** At most this many failed revisions are remembered (oldest dropped). */
const MAX_FAILED_REVISIONS = 10;

/** failedRevisions returns the revisions the set was rolled back from (its annotation; bounded). */
export function failedRevisions(set: Pick<StatefulSet, "metadata">): string[] {
  const v = set.metadata.annotations?.[FAILED_REVISIONS_ANNOTATION] ?? "";
  return v
    .slice(0, 64 * 1024)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * templatePatch returns the JSON Patch that puts `template` into spec.template (a whole replace:
 * a merge patch would keep keys the template lacks), guarded by the set's resourceVersion, and sets
 * the given annotations. Shared by `ordinal rollout undo` and the automatic rollback.
 */
export function templatePatch(set: Pick<StatefulSet, "metadata">, template: PodTemplateSpec, annotations: Record<string, string> = {}): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [
    { op: "test", path: "/metadata/resourceVersion", value: set.metadata.resourceVersion },
    { op: "replace", path: "/spec/template", value: template },
  ];
  if (!Object.keys(annotations).length) return ops;
  if (!set.metadata.annotations) return [...ops, { op: "add", path: "/metadata/annotations", value: annotations }];
  for (const [k, v] of Object.entries(annotations)) ops.push({ op: "add", path: `/metadata/annotations/${escapePathSegment(k)}`, value: v });
  return ops;
}

/** What planRollback decided: the writes (the rollback), or why the set is not rolled back. */
export type RollbackDecision = { actions: Action[] } | { refused: string };

/**
 * planRollback returns the rollback of a set whose rollout exceeded its deadline, or why there is
 * none: rollbackOnFailure is not set, the strategy is OnDelete or paused, the set is at one
 * revision (nothing to go back to), what holds the rollout is not the new revision's own doing
 * (`blocker`, blocker.ts: a pod of an older revision that never gets Ready, a claim — never roll
 * back a release nothing says is bad), the failing revision was rolled back from before (a person
 * re-applied it: never twice), or the last fully available revision itself failed once.
 */
export function planRollback(set: StatefulSet, revisions: SetRevisions, blocker?: Blocker): RollbackDecision {
  const strategy = updateStrategyOf(set);
  if (!strategy.rollbackOnFailure || strategy.paused) return { refused: "" };
  const from = revisions.updateName;
  const to = revisions.currentName;
  const failed = failedRevisions(set);
  if (from === to) return { refused: `not rolled back: no earlier fully available revision than ${from}` };
  if (blocker && !blocker.release) return { refused: `not rolled back: what holds the rollout is not revision ${from}'s own pods` };
  if (failed.includes(from)) return { refused: `not rolled back: revision ${from} was rolled back from before (${FAILED_REVISIONS_ANNOTATION}) and was applied again` };
  if (failed.includes(to)) return { refused: `not rolled back: the last fully available revision ${to} failed before` };
  const template = revisionTemplate(revisions.current);
  if (canonicalJson(template) === canonicalJson(set.spec.template)) return { refused: `not rolled back: the template is already revision ${to}'s` };
  const annotation = [...failed, from].slice(-MAX_FAILED_REVISIONS).join(",");
  return { actions: [{ type: "rollbackTemplate", from, to, patch: templatePatch(set, template, { [FAILED_REVISIONS_ANNOTATION]: annotation }) }] };
}
