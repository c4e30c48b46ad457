/**
 * `ordinal get [NAME]`: Ordinal sets as kubectl prints them, with the columns of the CRD
 * (DESIRED CURRENT UPDATED READY AVAILABLE PAUSED AGE; CONTAINERS, IMAGES, ORDER (the update
 * order of a set with a priorityStrategy or roles) and ROLES (spec.roles.updateOrder) with -o wide), or as YAML/JSON.
 * `kubectl get osts` shows the same columns; `kubectl get sts` shows apps/v1 sets only.
 */
import type { StatefulSet } from "../api/statefulset.ts";
import { R } from "../kube/resources.ts";
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";
import { updateStrategyOf } from "../core/update-strategy.ts";
import { getSet, setNameArg } from "./sets.ts";

/** age returns kubectl's short age ("5s", "3m", "2h", "4d"). */
function age(created: string | undefined, now: Date): string {
  if (!created) return "<unknown>";
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(created)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** setRows returns the table (header first) for the sets. */
function setRows(sets: StatefulSet[], now: Date, o: { wide?: boolean; allNamespaces?: boolean } = {}): string[][] {
  const head = [...(o.allNamespaces ? ["NAMESPACE"] : []), "NAME", "DESIRED", "CURRENT", "UPDATED", "READY", "AVAILABLE", "PAUSED", "AGE", ...(o.wide ? ["CONTAINERS", "IMAGES", "ORDER", "ROLES"] : [])];
  const rows = sets.map((s) => {
    const containers = ((s.spec.template.spec as { containers?: { name: string; image?: string }[] }).containers ?? []);
    return [
      ...(o.allNamespaces ? [s.metadata.namespace ?? ""] : []),
      s.metadata.name ?? "",
      String(s.spec.replicas),
      String(s.status?.replicas ?? 0),
      String(s.status?.updatedReplicas ?? 0),
      String(s.status?.readyReplicas ?? 0),
      String(s.status?.availableReplicas ?? 0),
      String(updateStrategyOf(s).paused),
      age((s.metadata as { creationTimestamp?: string }).creationTimestamp, now),
      ...(o.wide ? [containers.map((c) => c.name).join(","), containers.map((c) => c.image ?? "").join(","), s.status?.updateOrder ?? "<none>", s.spec.roles ? JSON.stringify(s.spec.roles.updateOrder) : "<none>"] : []),
    ];
  });
  return [head, ...rows];
}

/** withoutManagedFields returns the set without metadata.managedFields (kubectl get -o yaml hides them too, since 1.21). */
function withoutManagedFields(s: StatefulSet): StatefulSet {
  const { managedFields: _hidden, ...metadata } = s.metadata as StatefulSet["metadata"] & { managedFields?: unknown };
  return { ...s, metadata } as StatefulSet;
}

/** formatTable aligns columns with three spaces, as kubectl does. */
function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 3))).join("")).join("\n");
}

export const getCmd: Command = {
  name: "get",
  summary: "list Ordinal StatefulSets with kubectl-like columns (kubectl get osts shows the same)",
  synopsis: "[NAME] [-n NS | -A] [-o wide|name|yaml|json]",
  options: {
    namespace: { type: "string", short: "n", value: "NS", help: "namespace (default: the kubeconfig context's, else default)" },
    "all-namespaces": { type: "boolean", short: "A", help: "every namespace" },
    output: { type: "string", short: "o", value: "FORMAT", help: "wide, name, yaml or json" },
  },
  positionals: { max: 1, names: "at most one NAME" },
  async run(p, ctx) {
    const fmt = (p.values.output as string | undefined) ?? "";
    if (!["", "wide", "name", "yaml", "json"].includes(fmt)) throw new UsageError(`-o must be wide, name, yaml or json, got ${fmt}`);
    const all = p.values["all-namespaces"] === true;
    if (all && p.positionals.length) throw new UsageError("a NAME cannot be combined with -A");
    const client = await ctx.client();
    const ns = all ? undefined : await ctx.namespace(p);
    const sets = (
      p.positionals.length
        ? [await getSet(client, ns!, setNameArg(p.positionals[0]))]
        : (await client.list<StatefulSet>(R.statefulSets, ns)).sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))
    ).map(withoutManagedFields);
    if (fmt === "name") for (const s of sets) ctx.out(`statefulset.apps.ordinal.dev/${s.metadata.name}`);
    else if (fmt === "yaml") {
      const { stringify } = await import("./yaml.ts");
      ctx.out(sets.map((s) => stringify(s)).join("---\n").trimEnd());
    }
    else if (fmt === "json") ctx.out(JSON.stringify(p.positionals.length ? sets[0] : { apiVersion: "v1", kind: "List", items: sets }, null, 2));
    else if (!sets.length) ctx.err(`No resources found${ns ? ` in ${ns} namespace` : ""}.`);
    else ctx.out(formatTable(setRows(sets, ctx.now(), { wide: fmt === "wide", allNamespaces: all })));
    return 0;
  },
};
