/**
 * The kubectl-like commands against the fake apiserver with the reconciler and a kubelet player
 * running between polls: rollout status follows a real rollout to the end; set image, pause,
 * resume, restart and undo write exactly what kubectl writes; get prints Kruise's columns.
 */
import { describe, expect, it } from "vitest";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { main } from "../../src/cli/main.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { cliWorld, webSet } from "./helpers.ts";

const getWeb = async (w: ReturnType<typeof cliWorld>) => (await w.client.get<StatefulSet>(R.statefulSets, "default", "web"))!;

describe("ordinal rollout status", () => {
  it("waits for the spec to be observed, follows the rollout and exits 0 only when converged", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    expect(await main(["rollout", "status", "web"], w.ctx)).toBe(0);
    expect(w.out[0]).toBe("Waiting for statefulset spec update to be observed...");
    // Each wait names the pod it waits on and why (core/blocker.ts).
    expect(w.out).toContain("Waiting for 3 pods to be ready (pod web-0 was never Ready (Pending))...");
    expect(w.out).toContain("Waiting for 2 pods to be ready (pod web-2 is not created yet: Ordinal creates it next)...");
    expect(w.out.at(-1)).toMatch(/^statefulset rolling update complete 3 pods at revision web-\w+\.\.\.$/);
    const set = await getWeb(w);
    expect(set.status!.readyReplicas).toBe(3);
    expect(set.status!.observedGeneration).toBe(set.metadata.generation);
  });

  it("after set image: prints the rolling update and ends at the new revision", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    const before = (await getWeb(w)).status!.currentRevision;
    expect(await main(["set", "image", "osts/web", "nginx=nginx:1.26"], w.ctx)).toBe(0);
    expect(w.out.at(-1)).toBe("statefulset.apps.ordinal.dev/web image updated");
    w.out.length = 0;
    expect(await main(["rollout", "status", "web", "--timeout", "10m"], w.ctx)).toBe(0);
    expect(w.out[0]).toBe("Waiting for statefulset spec update to be observed...");
    expect(w.out.some((l) => l.startsWith("waiting for statefulset rolling update to complete"))).toBe(true);
    const set = await getWeb(w);
    expect(set.status!.currentRevision).not.toBe(before);
    expect(w.out.at(-1)).toBe(`statefulset rolling update complete 3 pods at revision ${set.status!.currentRevision}...`);
  });

  it("times out with exit 1 when nothing moves", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    w.world.drive = false;
    expect(await main(["rollout", "status", "web", "--timeout", "30s"], w.ctx)).toBe(1);
    expect(w.err.join("\n")).toMatch(/timed out waiting for the rollout of web/);
  });

  /** lease returns the Lease a reconciler leaves, renewed at `renewTime`. */
  const lease = (renewTime: string) => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler", namespace: "ordinal-system" }, spec: { leaseDurationSeconds: 30, renewTime } });

  it("says at the first poll that no reconciler has ever renewed a Lease, and keeps waiting", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    w.world.drive = false;
    expect(await main(["rollout", "status", "web", "--timeout", "30s"], w.ctx)).toBe(1);
    expect(w.err[0]).toMatch(/^warning: no reconciler has renewed a Lease in namespace ordinal-system: is `ordinal serve` .* or the Worker's cron running/);
    expect(w.err.filter((l) => l.startsWith("warning:"))).toHaveLength(1);
    expect(w.err.at(-1)).toMatch(/timed out waiting for the rollout of web/);
  });

  it("names a Lease last renewed long ago, and says nothing while a reconciler renews it", async () => {
    const stale = cliWorld();
    await stale.fake.seed(webSet());
    await stale.fake.seed(lease("2026-11-21T11:50:00.000000Z"));
    stale.world.drive = false;
    expect(await main(["rollout", "status", "web", "--timeout", "5s"], stale.ctx)).toBe(1);
    expect(stale.err[0]).toMatch(/^warning: no reconciler has renewed its Lease for 10m \(ordinal-system\/ordinal-reconciler\)/);

    const live = cliWorld();
    await live.fake.seed(webSet());
    await live.fake.seed(lease("2026-11-21T11:59:50.000000Z"));
    expect(await main(["rollout", "status", "web"], live.ctx)).toBe(0);
    expect(live.err).toEqual([]);
  });

  /** deadlineWorld returns a converged set with a 20 s progress deadline and rollbackOnFailure, whose `nginx:bad` images never become Ready. */
  const deadlineWorld = async () => {
    const w = cliWorld({}, { unreadyImages: (image) => image === "nginx:bad" });
    const set = webSet();
    set.spec = { ...set.spec, progressDeadlineSeconds: 20, updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true } } };
    await w.fake.seed(set);
    await w.converge();
    return w;
  };

  it("exits 1 when the revision it follows is rolled back (progress deadline, rollbackOnFailure), naming both revisions", async () => {
    const w = await deadlineWorld();
    const good = (await getWeb(w)).status!.currentRevision;
    expect(await main(["set", "image", "web", "nginx=nginx:bad"], w.ctx)).toBe(0);
    w.out.length = 0;
    // Kubectl's rollout status of a Deployment past its deadline: exit 1, "exceeded its progress deadline".
    expect(await main(["rollout", "status", "web", "--timeout", "10m"], w.ctx)).toBe(1);
    const set = await getWeb(w);
    const failed = set.metadata.annotations!["ordinal.dev/failed-revisions"];
    expect(failed).toMatch(/^web-\w+$/);
    expect(w.err.at(-1)).toBe(
      `error: statefulset.apps.ordinal.dev "web" exceeded its progress deadline: revision ${failed} was rolled back to revision ${good} (rollbackOnFailure; recorded in ordinal.dev/failed-revisions)`,
    );
    expect(w.out.some((l) => l.startsWith("statefulset rolling update complete"))).toBe(false);
  });

  it("started between the rollback's write and its first pass, still names the rollback; a later rollout of a good image exits 0", async () => {
    const w = await deadlineWorld();
    const good = (await getWeb(w)).status!.currentRevision;
    expect(await main(["set", "image", "web", "nginx=nginx:bad"], w.ctx)).toBe(0);
    // Passes until the reconciler wrote the rollback (the template is the good one again), not one more.
    for (let i = 0; i < 40 && !(await getWeb(w)).metadata.annotations?.["ordinal.dev/failed-revisions"]; i++) {
      w.advance(1000);
      await w.step();
    }
    const set = await getWeb(w);
    expect(set.metadata.generation).toBeGreaterThan(set.status!.observedGeneration!);
    expect(await main(["rollout", "status", "web", "--no-watch"], w.ctx)).toBe(1);
    expect(w.err.at(-1)).toMatch(new RegExp(`exceeded its progress deadline: revision web-\\w+ was rolled back to revision ${good} `));
    // The rollback converges; a new good release is followed to the end.
    await w.converge();
    expect(await main(["set", "image", "web", "nginx=nginx:1.27"], w.ctx)).toBe(0);
    expect(await main(["rollout", "status", "web", "--timeout", "10m"], w.ctx)).toBe(0);
  });

  it("started before its change was observed, and not polling again until the rollback was observed, still names the rollback (never the old revision's completion)", async () => {
    const w = await deadlineWorld();
    const good = (await getWeb(w)).status!.currentRevision;
    expect(await main(["set", "image", "web", "nginx=nginx:bad"], w.ctx)).toBe(0);
    // The first read finds the new generation unobserved (status.updateRevision still the good one);
    // the follower then sleeps through the whole failed rollout and its rollback (a slow poll, a
    // suspended laptop), and reads next when the rollback's template is observed.
    const sleep = w.ctx.sleep;
    let first = true;
    w.ctx.sleep = async (ms) => {
      if (!first) return sleep(ms);
      first = false;
      for (let i = 0; i < 60; i++) {
        w.advance(1000);
        await w.step();
        const s = await getWeb(w);
        if (s.metadata.annotations?.["ordinal.dev/failed-revisions"] && s.status?.observedGeneration === s.metadata.generation) return;
      }
    };
    expect(await main(["rollout", "status", "web", "--timeout", "10m"], w.ctx)).toBe(1);
    expect(w.out).not.toContainEqual(expect.stringMatching(/^statefulset rolling update complete/));
    const failed = (await getWeb(w)).metadata.annotations!["ordinal.dev/failed-revisions"];
    expect(w.err.at(-1)).toBe(
      `error: statefulset.apps.ordinal.dev "web" exceeded its progress deadline: revision ${failed} was rolled back to revision ${good} (rollbackOnFailure; recorded in ordinal.dev/failed-revisions)`,
    );
  });

  it("a missing set is exit 1 with kubectl's message", async () => {
    const w = cliWorld();
    expect(await main(["rollout", "status", "nope"], w.ctx)).toBe(1);
    expect(w.err.join("\n")).toMatch(/statefulsets.apps.ordinal.dev "nope" not found/);
  });
});

describe("ordinal rollout pause|resume|restart|undo|history", () => {
  it("pause and resume write only rollingUpdate.paused, and refuse to repeat", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    const before = await getWeb(w);
    expect(await main(["rollout", "pause", "web"], w.ctx)).toBe(0);
    const paused = await getWeb(w);
    expect(paused.spec.updateStrategy.rollingUpdate?.paused).toBe(true);
    expect(paused.spec.template).toEqual(before.spec.template);
    expect(await main(["rollout", "pause", "web"], w.ctx)).toBe(1);
    expect(w.err.at(-1)).toMatch(/already paused/);
    expect(await main(["rollout", "status", "web", "--no-watch"], w.ctx)).toBe(1); // the pause is a spec change not yet observed
    await w.converge();
    expect(await main(["rollout", "status", "web", "--no-watch"], w.ctx)).toBe(0); // nothing to roll: complete even when paused
    expect(await main(["rollout", "resume", "web"], w.ctx)).toBe(0);
    expect((await getWeb(w)).spec.updateStrategy.rollingUpdate?.paused).toBe(false);
    expect(await main(["rollout", "resume", "web"], w.ctx)).toBe(1);
  });

  it("restart sets the restartedAt template annotation, as kubectl does", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    expect(await main(["rollout", "restart", "web"], w.ctx)).toBe(0);
    expect((await getWeb(w)).spec.template.metadata?.annotations).toEqual({ "kubectl.kubernetes.io/restartedAt": "2026-11-21T12:00:00Z" });
  });

  it("undo puts back the previous revision's template; --to-revision picks one; history lists them", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    await main(["set", "image", "web", "nginx=nginx:1.26"], w.ctx);
    await w.converge();
    await main(["set", "image", "web", "*=nginx:1.27"], w.ctx);
    await w.converge();
    w.out.length = 0;
    expect(await main(["rollout", "history", "web"], w.ctx)).toBe(0);
    expect(w.out.slice(1)).toEqual(["REVISION  CHANGE-CAUSE", "1         <none>", "2         <none>", "3         <none>"]);
    expect(await main(["rollout", "undo", "web"], w.ctx)).toBe(0);
    expect((await getWeb(w)).spec.template.spec).toMatchObject({ containers: [{ name: "nginx", image: "nginx:1.26" }] });
    expect(await main(["rollout", "undo", "web", "--to-revision", "1"], w.ctx)).toBe(0);
    expect((await getWeb(w)).spec.template.spec).toMatchObject({ containers: [{ name: "nginx", image: "nginx:1.25" }] });
    expect(await main(["rollout", "undo", "web", "--to-revision", "9"], w.ctx)).toBe(1);
    expect(w.err.at(-1)).toMatch(/unable to find specified revision 9/);
  });
  it("undo --dry-run=client prints the template it would write and changes nothing; =server asks the apiserver and stores nothing", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    await main(["set", "image", "web", "nginx=nginx:1.26"], w.ctx);
    await w.converge();
    const before = (await getWeb(w)).metadata.resourceVersion;
    for (const mode of ["client", "server"]) {
      w.out.length = 0;
      expect(await main(["rollout", "undo", "web", `--dry-run=${mode}`], w.ctx)).toBe(0);
      expect(w.out.join("\n")).toMatch(/rolled back to revision 1 \((server )?dry run\)[\s\S]*image: nginx:1\.25/);
      expect((await getWeb(w)).spec.template.spec).toMatchObject({ containers: [{ name: "nginx", image: "nginx:1.26" }] });
      expect((await getWeb(w)).metadata.resourceVersion).toBe(before);
    }
    expect(await main(["rollout", "undo", "web", "--dry-run=maybe"], w.ctx)).toBe(2);
    expect(w.err.join("\n")).toMatch(/--dry-run must be one of none, client, server/);
  });

  it("undo reads again and retries when the set changed between its read and its patch (a status write)", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    await main(["set", "image", "web", "nginx=nginx:1.26"], w.ctx);
    await w.converge();
    const client = await w.ctx.client();
    let raced = 0;
    const racing: KubeClient = Object.assign(Object.create(client) as KubeClient, {
      patch: async (...args: Parameters<KubeClient["patch"]>) => {
        if (raced++ === 0) await client.patch(R.statefulSets, "default", "web", { metadata: { annotations: { bumped: "1" } } }, "merge");
        return client.patch(...args);
      },
    });
    const ctx = { ...w.ctx, client: async () => racing };
    expect(await main(["rollout", "undo", "web"], ctx)).toBe(0);
    expect(raced).toBe(2);
    expect((await getWeb(w)).spec.template.spec).toMatchObject({ containers: [{ name: "nginx", image: "nginx:1.25" }] });
  });
});

describe("ordinal set image and get", () => {
  it("set image names an unknown container", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    expect(await main(["set", "image", "web", "nope=x:1"], w.ctx)).toBe(1);
    expect(w.err.at(-1)).toMatch(/unable to find container named "nope"/);
    expect(await main(["set", "image", "web", "nginx"], w.ctx)).toBe(2);
  });
  it("get prints Kruise's columns; -o wide adds containers and images", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    expect(await main(["get"], w.ctx)).toBe(0);
    const [head, row] = w.out.at(-1)!.split("\n");
    expect(head.split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "UPDATED", "READY", "AVAILABLE", "PAUSED", "AGE"]);
    expect(row.split(/\s+/).slice(0, 7)).toEqual(["web", "3", "3", "3", "3", "3", "false"]);
    expect(await main(["get", "web", "-o", "wide"], w.ctx)).toBe(0);
    // ORDER: the update order of a set with a priorityStrategy or roles; <none> for upstream's order; ROLES: spec.roles.updateOrder.
    expect(w.out.at(-1)!.split("\n")[1].split(/\s+/).slice(-4)).toEqual(["nginx", "nginx:1.25", "<none>", "<none>"]);
  });

  it("a priorityStrategy's order: get -o wide shows it, rollout status prints what is left in it (issue 33)", async () => {
    const w = cliWorld();
    const set = webSet();
    const ru = { unorderedUpdate: { priorityStrategy: { weightPriority: [{ weight: 50, matchSelector: { matchLabels: { tier: "first" } } }] } } };
    (set.spec as Record<string, unknown>).updateStrategy = { type: "RollingUpdate", rollingUpdate: ru };
    await w.fake.seed(set);
    await w.converge();
    await w.client.patch(R.pods, "default", "web-0", { metadata: { labels: { tier: "first" } } }, "merge");
    await w.converge();
    expect(await main(["get", "web", "-o", "wide"], w.ctx)).toBe(0);
    expect(w.out.at(-1)!.split("\n")[0].split(/\s+/).at(-2)).toBe("ORDER");
    expect(w.out.at(-1)!.split("\n")[1].split(/\s+/).at(-2)).toBe("web-0,web-2,web-1");
    w.out.length = 0;
    expect(await main(["set", "image", "osts/web", "nginx=nginx:1.26"], w.ctx)).toBe(0);
    expect(await main(["rollout", "status", "web", "--timeout", "10m"], w.ctx)).toBe(0);
    const orders = w.out.filter((l) => l.startsWith("update order:"));
    // web-0 went first (gone by the first poll that sees the new revision), web-1 last.
    expect(orders).toEqual(["update order: web-2 → web-1", "update order: web-1"]);
  });

  it("get -o name prints kubectl's resource/name; -o yaml and -o json leave managedFields out", async () => {
    const w = cliWorld();
    await w.fake.seed({ ...webSet(), metadata: { ...webSet().metadata, managedFields: [{ manager: "kubectl", operation: "Update" }] } } as never);
    await w.fake.seed(webSet("db", 1));
    expect(await main(["get", "-o", "name"], w.ctx)).toBe(0);
    expect(w.out.slice(-2)).toEqual(["statefulset.apps.ordinal.dev/db", "statefulset.apps.ordinal.dev/web"]);
    expect(await main(["get", "web", "-o", "yaml"], w.ctx)).toBe(0);
    expect(w.out.at(-1)).toMatch(/^ {2}name: web$/m);
    expect(w.out.at(-1)).not.toContain("managedFields");
    expect(await main(["get", "web", "-o", "json"], w.ctx)).toBe(0);
    expect(w.out.at(-1)).not.toContain("managedFields");
  });

  it("the pause message's resume hint keeps the namespace", async () => {
    const w = cliWorld();
    await w.fake.seed(webSet());
    await w.converge();
    expect(await main(["rollout", "pause", "web"], w.ctx)).toBe(0);
    expect(await main(["set", "image", "web", "nginx=nginx:1.26"], w.ctx)).toBe(0);
    await w.converge();
    expect(await main(["rollout", "status", "web", "-n=default"], w.ctx)).toBe(1);
    expect(w.out.join("\n")).toContain("resume it with: ordinal rollout resume web -n default");
  });
});
