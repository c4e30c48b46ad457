/** Ordinal's admission webhooks: pure handlers, registration, tokens. The HTTP app is src/http/app.ts. */
export * from "./types.ts";
export { mutatePod, withOrdinalIdentity, identityPatch, type LookupStatefulSet, type MutatePodOptions } from "./mutate-pods.ts";
export { validatePodUpdate, changedSpecPointers, IDENTITY_LABELS, RECONCILER_ANNOTATIONS, type ValidatePodOptions } from "./validate-pods.ts";
export { validateStatefulSetRequest, type ValidateStatefulSetOptions } from "./validate-statefulsets.ts";
export { validateImageListRequest } from "./validate-imagelists.ts";
export { ordinalSetOf, isOrdinalSetRef } from "./membership.ts";
export { lookupStatefulSetWith } from "./lookup.ts";
export { diff, encodePatch, decodePatch, type PatchOperation } from "./patch.ts";
export * from "./token-command.ts";
