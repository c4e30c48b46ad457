import type { ImageList } from "../api/imagelist.ts";
import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { readPrewarmRecord } from "../core/prewarm-record.ts";
import type { SetPullSources } from "../core/puller-target.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * The pull secrets of the sets whose rollouts added entries to an ImageList (issue 21): each set's
 * template imagePullSecrets and its ServiceAccount's, the secrets its own pods pull with. Sets come
 * from the pass when it read them, else one GET each; ServiceAccounts one GET each (RBAC: get
 * serviceaccounts); both cached for one actuator run and read only when a puller pod is created.
 */

type Secrets = { name?: string }[] | undefined;
const names = (s: Secrets): string[] => (s ?? []).map((x) => x.name ?? "").filter((n) => n !== "");

export class PullSources {
  private readonly sets = new Map<string, Promise<StatefulSet | undefined>>();
  private readonly accounts = new Map<string, Promise<string[]>>();

  constructor(
    private readonly client: KubeClient,
    /** The sets the pass read, by `namespace/name`. */
    known: ReadonlyMap<string, StatefulSet> = new Map(),
  ) {
    for (const [id, set] of known) this.sets.set(id, Promise.resolve(set));
  }

  /** forList returns the pull sources of every set recorded on the ImageList (sets that no longer exist are left out). */
  async forList(list: ImageList): Promise<SetPullSources[]> {
    const ns = list.metadata.namespace ?? "";
    const recorded = new Set<string>();
    for (const sets of readPrewarmRecord(list).values()) for (const s of sets) recorded.add(s);
    const out: SetPullSources[] = [];
    for (const name of [...recorded].sort()) {
      const set = await this.set(ns, name);
      if (!set) continue;
      const spec = set.spec.template.spec as { imagePullSecrets?: Secrets; serviceAccountName?: string; serviceAccount?: string } | undefined;
      const account = spec?.serviceAccountName || spec?.serviceAccount || "default";
      out.push({ templateSecrets: names(spec?.imagePullSecrets), serviceAccountSecrets: await this.account(ns, account) });
    }
    return out;
  }

  /** set returns the set `namespace/name` (undefined when gone or unreadable as a set). */
  private set(ns: string, name: string): Promise<StatefulSet | undefined> {
    const id = `${ns}/${name}`;
    let p = this.sets.get(id);
    if (!p) {
      p = this.client.get<KubeObject>(R.statefulSets, ns, name).then((raw) => {
        const parsed = raw && StatefulSetSchema.safeParse(raw);
        return parsed && parsed.success ? parsed.data : undefined;
      });
      this.sets.set(id, p);
    }
    return p;
  }

  /** account returns the imagePullSecrets of the ServiceAccount `namespace/name` (none when it does not exist). */
  private account(ns: string, name: string): Promise<string[]> {
    const id = `${ns}/${name}`;
    let p = this.accounts.get(id);
    if (!p) {
      p = this.client.get<{ imagePullSecrets?: Secrets }>(R.serviceAccounts, ns, name).then((sa) => names(sa?.imagePullSecrets));
      this.accounts.set(id, p);
    }
    return p;
  }
}
