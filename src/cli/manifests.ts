/**
 * `ordinal manifests`: prints what `kubectl apply -k deploy/` installs, for given options (image,
 * replicas, namespace, the cluster's Kubernetes version), as one YAML stream: CRDs, namespace,
 * ServiceAccount, RBAC, the server, the webhook configurations. `ordinal manifests | kubectl apply
 * -f -` is the other install path; `--kube-version 1.20` is the path for clusters older than 1.21.
 */
import { INSTALL_NAMESPACE } from "../deploy/identity.ts";
import type { ServerOptions } from "../deploy/manifests.ts";
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";

/**
 * allManifests returns every object deploy/ holds, in apply order (for a cluster older than 1.21:
 * its PDB version, and kube-system's opt-out label). What builds them is imported here, when the
 * command runs.
 */
async function allManifests(o: ServerOptions = {}): Promise<Record<string, unknown>[]> {
  const [{ imageListCrd, statefulSetCrd }, { kubeSystemOptOut, namespaceManifests, serverManifests, webhookManifests }, { rbacManifests }] = await Promise.all([
    import("../api/crd.ts"),
    import("../deploy/manifests.ts"),
    import("../deploy/rbac.ts"),
  ]);
  const ns = o.namespace ?? INSTALL_NAMESPACE;
  return [
    statefulSetCrd(),
    imageListCrd(),
    ...namespaceManifests(ns),
    ...kubeSystemOptOut(o.kubeMinor),
    ...rbacManifests(ns),
    ...serverManifests({ ...o, namespace: ns }),
    ...webhookManifests(ns),
  ];
}

/** The oldest Kubernetes the install is tested on (test/cluster runs 1.20). */
const OLDEST_MINOR = 20;

/** kubeMinorFrom returns the minor version of `--kube-version 1.N` (or v1.N.P), or throws a UsageError saying what is accepted. */
function kubeMinorFrom(raw: string): number {
  const m = /^v?1\.(\d{1,3})(\.\d+)?$/.exec(raw);
  if (!m) throw new UsageError(`--kube-version must be 1.MINOR (e.g. 1.20, as kubectl version prints it), got ${JSON.stringify(raw)}`);
  const minor = Number(m[1]);
  if (minor < OLDEST_MINOR) throw new UsageError(`--kube-version ${raw}: Ordinal needs Kubernetes 1.${OLDEST_MINOR} or later`);
  return minor;
}

export const manifestsCmd: Command = {
  name: "manifests",
  summary: "print the install manifests (what kubectl apply -k deploy/ applies) for given options",
  synopsis: "[--image REF] [--replicas N] [--namespace NS] [--kube-version 1.N]",
  details:
    "--kube-version 1.20 (any cluster older than 1.21) prints the PodDisruptionBudget as policy/v1beta1\n" +
    "and labels kube-system ordinal.dev/webhooks=disabled (1.20 has no kubernetes.io/metadata.name\n" +
    "label for the webhooks to exclude it by); applying that only adds the label.",
  options: {
    image: { type: "string", value: "REF", help: "the server image (default: ordinal, mapped by deploy/kustomization.yaml)" },
    replicas: { type: "string", value: "N", help: "server replicas (default 2)" },
    namespace: { type: "string", value: "NS", help: "install namespace (default ordinal-system)" },
    "kube-version": { type: "string", value: "1.N", help: "the cluster's Kubernetes version (default: 1.21 or later)" },
  },
  positionals: { max: 0 },
  async run(p, ctx) {
    const replicas = p.values.replicas === undefined ? undefined : Number(p.values.replicas);
    if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1)) throw new UsageError(`--replicas must be a whole number ≥ 1, got ${p.values.replicas}`);
    const kubeVersion = p.values["kube-version"] as string | undefined;
    const kubeMinor = kubeVersion === undefined ? undefined : kubeMinorFrom(kubeVersion);
    const docs = await allManifests({ image: p.values.image as string | undefined, replicas, namespace: p.values.namespace as string | undefined, kubeMinor });
    const { stringify } = await import("./yaml.ts");
    ctx.out(docs.map((d) => stringify(d, { lineWidth: 0 })).join("---\n").trimEnd());
    return 0;
  },
};
