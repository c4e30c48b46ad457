// coordination.k8s.io/v1 leases and admissionregistration.k8s.io/v1 webhook configurations.

import { duplicate, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { isObject, metaOf as meta, objectAt, objectsIn, str, type Obj } from "../json.ts";
import { isDNS1123Subdomain, subdomainName, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { defineResource, META_TIME_FIELDS, type ResourceDef } from "./types.ts";


function validateLeaseSpec(o: Obj): FieldError[] {
  const spec = objectAt(o, "spec");
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (typeof spec.leaseTransitions === "number" && spec.leaseTransitions < 0) {
    errs.push(invalid("spec.leaseTransitions", spec.leaseTransitions, "must be greater than or equal to 0"));
  }
  return errs;
}

export const leases: ResourceDef = defineResource({
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  kind: "Lease",
  namespaced: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  microTimeFields: [["spec", "acquireTime"], ["spec", "renewTime"]],
  defaults: (o) => void objectAt(o, "spec"),
  validate: (o) => [...validateObjectMeta(meta(o), true, subdomainName, true), ...validateLeaseSpec(o)],
  validateUpdate: (o, old) => [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validateLeaseSpec(o)],
});

function defaultWebhook(w: Obj, mutating: boolean): void {
  w.failurePolicy ??= "Fail";
  w.matchPolicy ??= "Equivalent";
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= "Never";
  for (const r of objectsIn(w.rules)) r.scope ??= "*";
  const cc = objectAt(w, "clientConfig");
  if (isObject(cc.service)) cc.service.port ??= 443;
}

const URL_FORM = "; desired format: https://host[/path]";

function validateWebhookUrl(path: string, raw: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [invalid(path, raw, `must be a valid URL${URL_FORM}`)];
  }
  const errs: FieldError[] = [];
  if (u.protocol !== "https:") errs.push(invalid(path, u.protocol.replace(/:$/, ""), `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) errs.push(required(path, `host must be specified${URL_FORM}`));
  if (u.username || u.password) errs.push(invalid(path, `${u.username}:${u.password}`, `user information is not permitted in the URL${URL_FORM}`));
  if (u.hash) errs.push(invalid(path, u.hash.slice(1), `fragments are not permitted in the URL${URL_FORM}`));
  if (u.search) errs.push(invalid(path, u.search.slice(1), `query parameters are not permitted in the URL${URL_FORM}`));
  return errs;
}

/** validateWebhook is validateValidatingWebhook / validateMutatingWebhook (v1). */
function validateWebhook(w: Obj, p: string, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(w.name);
  if (!name) {
    errs.push(required(`${p}.name`));
  } else {
    const sub = isDNS1123Subdomain(name);
    if (sub.length > 0) errs.push(invalid(`${p}.name`, name, sub.join(",")));
    if (name.split(".").length < 3) errs.push(invalid(`${p}.name`, name, "should be a domain with at least three segments separated by dots"));
  }
  if (w.failurePolicy !== undefined && !["Fail", "Ignore"].includes(str(w.failurePolicy))) errs.push(notSupported(`${p}.failurePolicy`, w.failurePolicy, ["Fail", "Ignore"]));
  if (w.matchPolicy !== undefined && !["Equivalent", "Exact"].includes(str(w.matchPolicy))) errs.push(notSupported(`${p}.matchPolicy`, w.matchPolicy, ["Equivalent", "Exact"]));
  if (w.sideEffects === undefined || w.sideEffects === null) errs.push(required(`${p}.sideEffects`, "must specify one of None, NoneOnDryRun"));
  else if (w.sideEffects !== "None" && w.sideEffects !== "NoneOnDryRun") errs.push(notSupported(`${p}.sideEffects`, w.sideEffects, ["None", "NoneOnDryRun"]));
  if (typeof w.timeoutSeconds === "number" && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) {
    errs.push(invalid(`${p}.timeoutSeconds`, w.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"));
  }
  if (mutating && w.reinvocationPolicy !== undefined && !["Never", "IfNeeded"].includes(str(w.reinvocationPolicy))) {
    errs.push(notSupported(`${p}.reinvocationPolicy`, w.reinvocationPolicy, ["Never", "IfNeeded"]));
  }
  const cc = objectAt(w, "clientConfig");
  const hasUrl = cc.url !== undefined && cc.url !== null;
  const hasService = isObject(cc.service);
  if (hasUrl === hasService) errs.push(required(`${p}.clientConfig`, "exactly one of url or service is required"));
  else if (hasUrl) errs.push(...validateWebhookUrl(`${p}.clientConfig.url`, str(cc.url)));
  return errs;
}

function validateWebhooks(o: Obj, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objectsIn(o.webhooks).forEach((w, i) => {
    const p = `webhooks[${i}]`;
    const name = str(w.name);
    if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    names.add(name);
    errs.push(...validateWebhook(w, p, mutating));
    const versions = Array.isArray(w.admissionReviewVersions) ? w.admissionReviewVersions.map(str) : [];
    if (versions.length === 0) errs.push(required(`${p}.admissionReviewVersions`, "must specify one of v1, v1beta1"));
    else if (!versions.some((v) => v === "v1" || v === "v1beta1")) {
      errs.push(invalid(`${p}.admissionReviewVersions`, versions, "must include at least one of v1, v1beta1"));
    }
  });
  return errs;
}

function webhookConfiguration(resource: string, kind: string, mutating: boolean): ResourceDef {
  return defineResource({
    group: "admissionregistration.k8s.io",
    version: "v1",
    resource,
    kind,
    namespaced: false,
    allowUnconditionalUpdate: false,
    nameValidation: subdomainName,
    generationFields: ["webhooks"],
    timeFields: META_TIME_FIELDS,
    defaults(o) {
      for (const w of objectsIn(o.webhooks)) defaultWebhook(w, mutating);
    },
    validate: (o) => [...validateObjectMeta(meta(o), false, subdomainName, true), ...validateWebhooks(o, mutating)],
    validateUpdate: (o, old) => [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validateWebhooks(o, mutating)],
  });
}

export const mutatingWebhookConfigurations = webhookConfiguration("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", true);
export const validatingWebhookConfigurations = webhookConfiguration("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false);
