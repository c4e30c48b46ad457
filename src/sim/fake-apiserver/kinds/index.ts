// The set of resources one fake apiserver serves, looked up by group and plural name or by kind.

import { controllerRevisions, statefulSets } from "./apps.ts";
import { configMaps, events, namespaces, nodes, secrets, serviceAccounts, services, storageClasses } from "./core.ts";
import { defineCustomResource, ordinalCustomResources, type CustomResourceSpec } from "./custom.ts";
import { leases, mutatingWebhookConfigurations, validatingWebhookConfigurations } from "./misc.ts";
import { pods } from "./pods.ts";
import { podDisruptionBudgets, subjectAccessReviews } from "./policy.ts";
import { persistentVolumeClaims } from "./pvcs.ts";
import { apiVersionOf, type ResourceDef } from "./types.ts";

const BUILTIN_RESOURCES: readonly ResourceDef[] = [
  pods,
  persistentVolumeClaims,
  events,
  configMaps,
  secrets,
  serviceAccounts,
  services,
  nodes,
  namespaces,
  storageClasses,
  controllerRevisions,
  statefulSets,
  leases,
  mutatingWebhookConfigurations,
  validatingWebhookConfigurations,
  podDisruptionBudgets,
  subjectAccessReviews,
];

/** Registry finds resource definitions. */
export class Registry {
  readonly all: ResourceDef[];
  private readonly byPath = new Map<string, ResourceDef>();
  private readonly byKind = new Map<string, ResourceDef>();

  constructor(custom: readonly CustomResourceSpec[] = ordinalCustomResources()) {
    this.all = [...BUILTIN_RESOURCES, ...custom.map(defineCustomResource)];
    for (const d of this.all) {
      this.byPath.set(`${d.group}/${d.version}/${d.resource}`, d);
      this.byKind.set(`${apiVersionOf(d)}/${d.kind}`, d);
    }
  }

  /** lookup finds a resource from its URL parts; undefined when not served. */
  lookup(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** byGroupResource finds a resource by group and plural (any version). */
  byGroupResource(group: string, resource: string): ResourceDef | undefined {
    return this.all.find((d) => d.group === group && d.resource === resource);
  }

  /** forKind finds the resource an ownerReference (apiVersion + kind) points at. */
  forKind(apiVersion: string, kind: string): ResourceDef | undefined {
    return this.byKind.get(`${apiVersion}/${kind}`);
  }
}
