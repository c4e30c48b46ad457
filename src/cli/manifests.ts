/**
 * `ordinal manifests`: prints what `kubectl apply -k deploy/` installs, for given options (image,
 * replicas, namespace), as one YAML stream: CRDs, namespace, ServiceAccount, RBAC, the server,
 * the webhook configurations. `ordinal manifests | kubectl apply -f -` is the other install path.
 */
import { stringify } from "yaml";
import { imageListCrd, statefulSetCrd } from "../api/crd.ts";
import { namespaceManifests, serverManifests, webhookManifests } from "../deploy/manifests.ts";
import { rbacManifests } from "../deploy/rbac.ts";
import { INSTALL_NAMESPACE } from "../deploy/identity.ts";
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";

/** allManifests returns every object deploy/ holds, in apply order. */
function allManifests(o: { image?: string; replicas?: number; namespace?: string } = {}): Record<string, unknown>[] {
  const ns = o.namespace ?? INSTALL_NAMESPACE;
  return [statefulSetCrd(), imageListCrd(), ...namespaceManifests(ns), ...rbacManifests(ns), ...serverManifests({ ...o, namespace: ns }), ...webhookManifests(ns)];
}

export const manifestsCmd: Command = {
  name: "manifests",
  summary: "print the install manifests (what kubectl apply -k deploy/ applies) for given options",
  synopsis: "[--image REF] [--replicas N] [--namespace NS]",
  options: {
    image: { type: "string", value: "REF", help: "the server image (default: ordinal, mapped by deploy/kustomization.yaml)" },
    replicas: { type: "string", value: "N", help: "server replicas (default 2)" },
    namespace: { type: "string", value: "NS", help: "install namespace (default ordinal-system)" },
  },
  positionals: { max: 0 },
  async run(p, ctx) {
    const replicas = p.values.replicas === undefined ? undefined : Number(p.values.replicas);
    if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1)) throw new UsageError(`--replicas must be a whole number ≥ 1, got ${p.values.replicas}`);
    const docs = allManifests({ image: p.values.image as string | undefined, replicas, namespace: p.values.namespace as string | undefined });
    ctx.out(docs.map((d) => stringify(d, { lineWidth: 0 })).join("---\n").trimEnd());
    return 0;
  },
};
