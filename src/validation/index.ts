/** Ordinal's pure validation: the apiserver's rules and messages, plus Ordinal's own. */
export {
  type FieldError,
  FieldPath,
  fieldPath,
  required,
  invalid,
  typeInvalid,
  notSupported,
  forbidden,
  duplicate,
  notFound,
  tooLong,
  tooMany,
  internalError,
  formatFieldError,
  formatBadValue,
  formatInvalid,
  aggregateMessage,
  qualifiedKind,
  toStatusCauses,
} from "./field-error.ts";
export { goQuote, sortedMap } from "./go-format.ts";
export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1035Label,
  isQualifiedName,
  isValidLabelValue,
  isCIdentifier,
  isEnvVarName,
  isRelaxedEnvVarName,
  isValidPortName,
  isValidPortNum,
  isValidPercent,
  isConfigMapKey,
  nameIsDNSSubdomain,
  nameIsDNSLabel,
} from "./names.ts";
export {
  type LabelSelector,
  validateLabelName,
  validateLabels,
  validateLabelSelector,
  labelSelectorAsRequirements,
  selectorMatches,
  selectorToString,
} from "./labels.ts";
export { validateAnnotations, validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";
export { parseQuantity, compareQuantities, quantityToString, quantityMilliValue } from "./quantity.ts";
export { normalizeImageReference, parseImageReference } from "./image-ref.ts";
export { validatePodCreate } from "./pod.ts";
export { validatePvcCreate } from "./pvc.ts";
export { validateStatefulSet } from "./statefulset.ts";
export { FORBIDDEN_UPDATE_MESSAGE } from "./statefulset-spec.ts";
export { validateImageList } from "./imagelist.ts";
