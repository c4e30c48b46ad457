// coordination.k8s.io/v1 leases and admissionregistration.k8s.io/v1 webhook configurations.

import { duplicate, invalid, notSupported, required, type FieldError } from '../errors.js';
import { isObject, objectAt, objectsIn, str, type Obj } from '../json.js';
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from '../validation.js';
import { defineResource, META_TIME_FIELDS, type ResourceDef } from './types.js';

const meta = (o: Obj): Obj => objectAt(o, 'metadata');

function validateLeaseSpec(o: Obj): FieldError[] {
  const spec = objectAt(o, 'spec');
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const leases: ResourceDef = defineResource({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  nameValidation: subdomainName,
  timeFields: META_TIME_FIELDS,
  microTimeFields: [['spec', 'acquireTime'], ['spec', 'renewTime']],
  defaults: (o) => void objectAt(o, 'spec'),
  validate: (o) => [...validateObjectMeta(meta(o), true, subdomainName, true), ...validateLeaseSpec(o)],
  validateUpdate: (o, old) => [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validateLeaseSpec(o)],
});

function defaultWebhook(w: Obj, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  for (const r of objectsIn(w.rules)) r.scope ??= '*';
  const cc = objectAt(w, 'clientConfig');
  if (isObject(cc.service)) cc.service.port ??= 443;
}

function validateWebhooks(o: Obj, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objectsIn(o.webhooks).forEach((w, i) => {
    const p = `webhooks[${i}]`;
    const name = str(w.name);
    if (!name) errs.push(required(`${p}.name`));
    else if (name.split('.').length < 3) errs.push(invalid(`${p}.name`, name, 'should be a domain with at least three segments separated by dots'));
    if (name && names.has(name)) errs.push(duplicate(`${p}.name`, name));
    names.add(name);
    const versions = Array.isArray(w.admissionReviewVersions) ? w.admissionReviewVersions.map(str) : [];
    if (versions.length === 0) errs.push(required(`${p}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
      errs.push(invalid(`${p}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
    }
    if (w.sideEffects === undefined || w.sideEffects === null) errs.push(required(`${p}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    else if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') errs.push(notSupported(`${p}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']));
    const cc = objectAt(w, 'clientConfig');
    const hasUrl = typeof cc.url === 'string' && cc.url !== '';
    const hasService = isObject(cc.service);
    if (hasUrl === hasService) errs.push(required(`${p}.clientConfig`, 'exactly one of url or service is required'));
    if (hasUrl && !str(cc.url).startsWith('https://')) errs.push(invalid(`${p}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme"));
    if (!['Fail', 'Ignore'].includes(str(w.failurePolicy))) errs.push(notSupported(`${p}.failurePolicy`, w.failurePolicy, ['Fail', 'Ignore']));
    if (!['Equivalent', 'Exact'].includes(str(w.matchPolicy))) errs.push(notSupported(`${p}.matchPolicy`, w.matchPolicy, ['Equivalent', 'Exact']));
    if (typeof w.timeoutSeconds === 'number' && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) {
      errs.push(invalid(`${p}.timeoutSeconds`, w.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
    }
    if (mutating && !['Never', 'IfNeeded'].includes(str(w.reinvocationPolicy))) {
      errs.push(notSupported(`${p}.reinvocationPolicy`, w.reinvocationPolicy, ['Never', 'IfNeeded']));
    }
  });
  return errs;
}

function webhookConfiguration(resource: string, kind: string, mutating: boolean): ResourceDef {
  return defineResource({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource,
    kind,
    namespaced: false,
    allowUnconditionalUpdate: false,
    nameValidation: subdomainName,
    generationFields: ['webhooks'],
    timeFields: META_TIME_FIELDS,
    defaults(o) {
      for (const w of objectsIn(o.webhooks)) defaultWebhook(w, mutating);
    },
    validate: (o) => [...validateObjectMeta(meta(o), false, subdomainName, true), ...validateWebhooks(o, mutating)],
    validateUpdate: (o, old) => [...validateObjectMetaUpdate(meta(o), meta(old), true), ...validateWebhooks(o, mutating)],
  });
}

export const mutatingWebhookConfigurations = webhookConfiguration('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', true);
export const validatingWebhookConfigurations = webhookConfiguration('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false);
