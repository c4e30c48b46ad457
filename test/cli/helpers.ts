/** A CLI context over the fake apiserver: output captured, a fake clock, and a `sleep` that plays one reconcile pass and one kubelet step, so `rollout status` follows a real (simulated) rollout. */
import type { CliContext } from "../../src/cli/main.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

export const webSet = (name = "web", replicas = 3) => setManifest({ name, replicas, container: "nginx", image: "nginx:1.25" });

export function cliWorld() {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  let t = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(t);
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  const out: string[] = [];
  const err: string[] = [];
  /** Whether `sleep` drives the cluster (false: time passes, nothing else happens). */
  const world = { drive: true };
  const step = async () => {
    await reconcilePass(client, { now, log: silentLogger });
    await kubelet.step();
  };
  const ctx: CliContext = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: {},
    client: async () => client,
    namespace: async (p) => (p.values.namespace as string | undefined) ?? "default",
    now,
    sleep: async (ms) => {
      t += ms;
      if (world.drive) await step();
    },
  };
  /** converge runs passes and kubelet steps until nothing is pending (at most 60). */
  const converge = async () => {
    for (let i = 0; i < 60; i++) {
      t += 1000;
      const r = await reconcilePass(client, { now, log: silentLogger });
      await kubelet.step();
      if (!r.pending && r.actionCount === 0) return;
    }
    throw new Error("did not converge");
  };
  return { fake, client, ctx, out, err, world, step, converge, kubelet, advance: (ms: number) => (t += ms) };
}
