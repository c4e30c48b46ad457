// Custom resources served the way apiextensions-apiserver serves a CRD: unstructured (no
// defaulting, times kept as written), generation bumped by any change outside metadata, updates
// require a resourceVersion, the status subresource keeps only status.

import type { FieldError } from '../errors.js';
import { objectAt, type Obj } from '../json.js';
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from '../validation.js';
import { defineResource, META_TIME_FIELDS, type ResourceDef, type ScalePaths } from './types.js';

/** CustomResourceSpec describes a CRD version the fake should serve. */
export interface CustomResourceSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  listKind?: string;
  namespaced?: boolean;
  /** status subresource (default true) */
  status?: boolean;
  /** scale subresource paths, dotted as in a CRD: `.spec.replicas` */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** schema defaulting, if the test wants it */
  defaults?(obj: Obj): void;
  /** schema validation, if the test wants it; field errors become a 422 */
  validate?(obj: Obj, old?: Obj): FieldError[];
}

const dotted = (p: string): string[] => p.replace(/^\./, '').split('.');

/** defineCustomResource turns a CRD description into a ResourceDef. */
export function defineCustomResource(spec: CustomResourceSpec): ResourceDef {
  const namespaced = spec.namespaced ?? true;
  let scale: ScalePaths | undefined;
  if (spec.scale) {
    scale = {
      specReplicas: dotted(spec.scale.specReplicasPath),
      statusReplicas: dotted(spec.scale.statusReplicasPath),
      labelSelector: spec.scale.labelSelectorPath ? dotted(spec.scale.labelSelectorPath) : undefined,
    };
  }
  return defineResource({
    group: spec.group,
    version: spec.version,
    resource: spec.plural,
    kind: spec.kind,
    listKind: spec.listKind ?? `${spec.kind}List`,
    namespaced,
    custom: true,
    status: spec.status ?? true,
    scale,
    allowUnconditionalUpdate: false,
    nameValidation: subdomainName,
    generationFields: 'all-but-metadata',
    timeFields: META_TIME_FIELDS,
    fieldSelectorError: 'label',
    defaults: spec.defaults,
    validate: (o) => [...validateObjectMeta(objectAt(o, 'metadata'), namespaced, subdomainName, false), ...(spec.validate?.(o) ?? [])],
    validateUpdate: (o, old) => [...validateObjectMetaUpdate(objectAt(o, 'metadata'), objectAt(old, 'metadata'), false), ...(spec.validate?.(o, old) ?? [])],
    validateStatusUpdate: (o, old) => validateObjectMetaUpdate(objectAt(o, 'metadata'), objectAt(old, 'metadata'), false),
  });
}

/** ORDINAL_CUSTOM_RESOURCES are the CRDs Ordinal installs. */
export const ORDINAL_CUSTOM_RESOURCES: readonly CustomResourceSpec[] = [
  {
    group: 'apps.ordinal.dev',
    version: 'v1',
    plural: 'statefulsets',
    kind: 'StatefulSet',
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
  },
  { group: 'apps.ordinal.dev', version: 'v1', plural: 'imagelists', kind: 'ImageList' },
];
