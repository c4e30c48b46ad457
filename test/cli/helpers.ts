/** A CLI context over the fake apiserver: output captured, a fake clock, and a `sleep` that plays one reconcile pass and one kubelet step, so `rollout status` follows a real (simulated) rollout. */
import type { CommandIO } from "../../src/cli/io.ts";
import type { CliContext } from "../../src/cli/command.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

export const webSet = (name = "web", replicas = 3) => setManifest({ name, replicas, container: "nginx", image: "nginx:1.25" });

/** cliWorld returns a context over a fresh fake apiserver; `files` are what the commands can read (ctx.io); `unreadyImages` never become Ready (a broken release). */
export function cliWorld(files: Record<string, string> = {}, o: { unreadyImages?: (image: string) => boolean } = {}) {
  let t = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(t);
  // The apiserver's clock is the reconciler's and the kubelet's (a cluster's machines keep one time).
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"], now });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now, unreadyImages: o.unreadyImages });
  const out: string[] = [];
  const err: string[] = [];
  const io = memoryIO(files);
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
    io,
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
  return { fake, client, ctx, io, out, err, world, step, converge, kubelet, advance: (ms: number) => (t += ms) };
}

/** memoryIO is a file system in a Map, for the commands. */
function memoryIO(files: Record<string, string> = {}): CommandIO & { files: Map<string, { data: string; mode?: number }> } {
  const map = new Map<string, { data: string; mode?: number }>(Object.entries(files).map(([k, data]) => [k, { data }]));
  return {
    files: map,
    readFile: async (path) => {
      const f = map.get(path);
      if (!f) throw new Error(`ENOENT: ${path}`);
      return f.data;
    },
    writeFile: async (path, data, opts) => void map.set(path, { data, mode: opts?.mode }),
    mkdir: async () => {},
    rename: async (from, to) => {
      const f = map.get(from);
      if (!f) throw new Error(`ENOENT: ${from}`);
      map.delete(from);
      map.set(to, f);
    },
  };
}
