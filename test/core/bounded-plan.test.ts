// A plan's work and memory follow the pods that exist plus one creation batch, never spec.replicas
// (issue 19): bounded-plan.child.ts plans sets of MAX_REPLICAS and of 2147483647 replicas (forced
// past validation) in a process with a 64 MiB heap. Before replica slots were sparse it died of a
// heap OOM within seconds (one slot per replica; Parallel: one pod object per missing ordinal).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MAX_CREATES_PER_PLAN } from "../../src/core/replicas.ts";

/** runChild runs the child with a small heap and returns its exit code, stdout and stderr. */
function runChild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=64", "--import", "tsx", "test/core/bounded-plan.child.ts"], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("plan with replicas near and past the maximum", () => {
  it("plans within a 64 MiB heap: one create (OrderedReady) or one batch (Parallel), the rest left waiting", async () => {
    const { code, stdout, stderr } = await runChild();
    expect(stderr.slice(0, 2000)).not.toMatch(/heap out of memory/);
    expect(code).toBe(0);
    const out = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, Record<string, number>>;
    const batch = { waiting: 1, createClaim: MAX_CREATES_PER_PLAN, createPod: MAX_CREATES_PER_PLAN, updateStatus: 1 };
    expect(out.orderedMax).toEqual({ waiting: 1, createClaim: 1, createPod: 1, updateStatus: 1 });
    expect(out.parallelMax).toEqual(batch);
    expect(out.parallelInt32).toEqual(batch);
    // 101 pods exist (0…99 and 5,000,000): ordinals 100…599 are created, nothing else is touched.
    expect(out.parallelInt32WithPods).toEqual(batch);
    // maxUnavailable 100% of 2147483647: every existing pod starts its in-place update (gate False).
    expect(out.rollingInt32).toEqual({ ...batch, setPodCondition: 101 });
    expect(out.onDeleteInt32).toEqual(batch);
    expect(out.partitionInt32).toEqual({ waiting: 1, createClaim: 1, createPod: 1, updateStatus: 1 });
  }, 60_000);
});
