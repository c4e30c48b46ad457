/**
 * `ordinal set image NAME CONTAINER=IMAGE…`: kubectl set image for Ordinal sets. Writes only the
 * images of the pod template (a JSON Patch with a `test` of each old image, so a concurrent edit
 * fails instead of being overwritten); `*=IMAGE` sets every container and init container.
 */
import type { StatefulSet } from "../api/statefulset.ts";
import { R } from "../kube/resources.ts";
import { UsageError, type OptionSpec } from "./args.ts";
import type { Command } from "./command.ts";
import { getSet, SET_RESOURCE, setNameArg } from "./sets.ts";

interface Container {
  name: string;
  image?: string;
}

/** imagePatch returns the JSON Patch setting the images, or throws naming an unknown container. */
function imagePatch(set: StatefulSet, images: Record<string, string>): { op: string; path: string; value?: string }[] {
  const spec = set.spec.template.spec as { containers?: Container[]; initContainers?: Container[] };
  const ops: { op: string; path: string; value?: string }[] = [];
  const seen = new Set<string>();
  for (const field of ["initContainers", "containers"] as const) {
    (spec[field] ?? []).forEach((c, i) => {
      const image = images[c.name] ?? images["*"];
      if (image === undefined) return;
      seen.add(c.name);
      if (c.image === image) return;
      const path = `/spec/template/spec/${field}/${i}/image`;
      ops.push(c.image === undefined ? { op: "add", path, value: image } : { op: "test", path, value: c.image }, ...(c.image === undefined ? [] : [{ op: "replace", path, value: image }]));
    });
  }
  for (const name of Object.keys(images)) if (name !== "*" && !seen.has(name)) throw new Error(`unable to find container named "${name}" in ${SET_RESOURCE}/${set.metadata.name}`);
  return ops;
}

export const setImageCmd = (ns: Record<string, OptionSpec>): Command => ({
  name: "set image",
  summary: "update container images of a set's pod template (starts a rollout)",
  synopsis: "NAME CONTAINER=IMAGE [CONTAINER=IMAGE…] [-n NS]",
  options: ns,
  positionals: { min: 2, names: "NAME and at least one CONTAINER=IMAGE" },
  async run(p, ctx) {
    const [nameArg, ...pairs] = p.positionals;
    const images: Record<string, string> = {};
    for (const pair of pairs) {
      const m = /^([^=]+)=(\S+)$/.exec(pair);
      if (!m) throw new UsageError(`"${pair}" is not CONTAINER=IMAGE`);
      images[m[1]] = m[2];
    }
    const client = await ctx.client();
    const ns2 = await ctx.namespace(p);
    const name = setNameArg(nameArg);
    const set = await getSet(client, ns2, name);
    const ops = imagePatch(set, images);
    if (!ops.length) {
      ctx.out(`${SET_RESOURCE}/${name} image unchanged`);
      return 0;
    }
    await client.patch(R.statefulSets, ns2, name, ops, "json");
    ctx.out(`${SET_RESOURCE}/${name} image updated`);
    return 0;
  },
});
