/**
 * The scripted person of a chaos run and the cluster's other actors: a person who scales and
 * re-images the sets at seeded moments (a broken release now and then where a progress deadline
 * rolls it back), the controller that releases lifecycle hooks (and arms them again), and the
 * kubelet, played as in test/e2e by src/sim/kubelet.ts for every namespace.
 */
import type { Pod } from "../../src/api/k8s.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { LIFECYCLE_STATE_LABEL } from "../../src/objects/constants.ts";
import type { Random } from "../../src/sim/fake-apiserver/random.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { BROKEN, HOOK_LABEL, image, type ChaosSet } from "./sets.ts";

/** What the person did and how often the apiserver (or a webhook) refused. */
export interface PersonCounts {
  scales: number;
  reimages: number;
  broken: number;
  applies: number;
  refused: number;
  released: number;
  /** Broken releases with nothing to roll back to replaced by a good one after the last fault (repair). */
  repairs: number;
}

export class Person {
  readonly counts: PersonCounts = { scales: 0, reimages: 0, broken: 0, applies: 0, refused: 0, released: 0, repairs: 0 };
  private readonly release = new Map<string, number>();
  private readonly kubelets: Map<string, KubeletPlayer>;
  constructor(
    private readonly admin: KubeClient,
    private readonly sets: ChaosSet[],
    private readonly random: Random,
    kubeletRandom: Random,
  ) {
    this.kubelets = new Map(sets.map((s) => [s.namespace, new KubeletPlayer(admin, { namespace: s.namespace, unreadyImages: (i) => i.includes(BROKEN), random: kubeletRandom, speed: 0.8 })]));
  }

  /** apply creates the set (or applies it again: the person's `kubectl apply` of an unchanged manifest). */
  async apply(s: ChaosSet): Promise<boolean> {
    this.counts.applies++;
    try {
      const existing = await this.admin.get(R.statefulSets, s.namespace, s.name);
      if (existing) await this.admin.patch(R.statefulSets, s.namespace, s.name, { spec: (s.manifest as { spec: unknown }).spec }, "merge");
      else await this.admin.create(R.statefulSets, s.namespace, s.manifest);
      return true;
    } catch {
      this.counts.refused++;
      return false;
    }
  }

  /** scale sets the set's replicas to `n` (a scale-up makes the apiserver create pods). */
  async scale(s: ChaosSet, n: number): Promise<void> {
    this.counts.scales++;
    try {
      await this.admin.patch(R.statefulSets, s.namespace, s.name, { spec: { replicas: n } }, "merge");
    } catch {
      this.counts.refused++;
    }
  }

  /** act makes one change to a random set: scale it, or roll out a new (sometimes broken) release. */
  async act(): Promise<void> {
    const s = this.sets[Math.floor(this.random() * this.sets.length)];
    const r = this.random();
    let spec: Record<string, unknown>;
    if (r < 0.5) {
      spec = { replicas: Math.floor(this.random() * 5) };
      this.counts.scales++;
    } else {
      const n = (this.release.get(s.namespace) ?? 1) + 1;
      this.release.set(s.namespace, n);
      const broken = s.rollsBack && this.random() < 0.2;
      if (broken) this.counts.broken++;
      else this.counts.reimages++;
      spec = { template: { spec: { containers: [{ name: "app", image: image(n, broken) }] } } };
    }
    try {
      await this.admin.patch(R.statefulSets, s.namespace, s.name, { spec }, "merge");
    } catch {
      this.counts.refused++;
    }
  }

  /** hooks releases pods a lifecycle hook holds (now and then) and, when `arm`, arms released pods again. */
  async hooks(arm: boolean): Promise<void> {
    for (const s of this.sets) {
      let pods: Pod[];
      try {
        pods = await this.admin.list<Pod>(R.pods, s.namespace);
      } catch {
        return;
      }
      for (const p of pods) {
        const held = p.metadata?.labels?.[HOOK_LABEL];
        const state = p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] ?? "Normal";
        let to: string | undefined;
        if (held === "true" && state.startsWith("Preparing") && this.random() < 0.5) to = "false";
        else if (arm && held === "false" && (state === "Normal" || state === "Updated") && !p.metadata?.deletionTimestamp && this.random() < 0.2) to = "true";
        if (!to) continue;
        try {
          await this.admin.patch(R.pods, s.namespace, p.metadata!.name!, { metadata: { labels: { [HOOK_LABEL]: to } } }, "merge");
          if (to === "false") this.counts.released++;
        } catch {
          /* gone, or the apiserver is down: next round */
        }
      }
    }
  }

  /**
   * repair is what a person does after the last fault about a broken release that completed while
   * the set had no pods (scaled to 0 before its deadline): it is the set's only revision, with
   * nothing to roll back to, so the person rolls out a good release. Ordinal does the rest: the
   * pods made at the broken revision by a later scale-up, never Ready at a current revision no pod
   * was ever Ready at, are healed by that rollout (src/core/healing.ts, issue 36). A set with an
   * earlier revision is left to Ordinal's rollback.
   */
  async repair(): Promise<void> {
    for (const s of this.sets) {
      try {
        const set = await this.admin.get<{ metadata?: { generation?: number }; spec?: { template?: { spec?: { containers?: { image?: string }[] } } }; status?: { observedGeneration?: number; currentRevision?: string; updateRevision?: string } }>(R.statefulSets, s.namespace, s.name);
        const broken = set?.spec?.template?.spec?.containers?.[0]?.image?.includes(BROKEN);
        const st = set?.status;
        if (st?.observedGeneration !== set?.metadata?.generation || !st?.updateRevision) continue;
        if (broken && st.currentRevision === st.updateRevision) {
          const n = (this.release.get(s.namespace) ?? 1) + 1;
          this.release.set(s.namespace, n);
          await this.admin.patch(R.statefulSets, s.namespace, s.name, { spec: { template: { spec: { containers: [{ name: "app", image: image(n) }] } } } }, "merge");
          this.counts.repairs++;
        }
      } catch {
        /* next round */
      }
    }
  }

  /** releaseAll lets every held pod go (the quiet phase: nothing holds the sets from converging). */
  async releaseAll(): Promise<void> {
    for (const s of this.sets) {
      try {
        for (const p of await this.admin.list<Pod>(R.pods, s.namespace, { labelSelector: `${HOOK_LABEL}=true` })) {
          await this.admin.patch(R.pods, s.namespace, p.metadata!.name!, { metadata: { labels: { [HOOK_LABEL]: "false" } } }, "merge");
        }
      } catch {
        /* next round */
      }
    }
  }

  /** kubelet plays one kubelet step in every namespace. */
  async kubelet(): Promise<void> {
    await Promise.all(
      [...this.kubelets.values()].map((k) =>
        k.step().catch(() => {
          /* the apiserver is down: next step */
        }),
      ),
    );
  }
}
