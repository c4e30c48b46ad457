/**
 * The package as a user installs it: `npm pack` (prepack builds dist/node), installed into a fresh
 * prefix with npm from the tarball alone (no registry: the package has no dependencies), then run
 * with only Node on PATH — `ordinal --help` — and, with kubectl on PATH too, as a kubectl plugin
 * against the real kube-apiserver: `kubectl ordinal rollout status` (kubectl finds
 * `kubectl-ordinal` on PATH). No reconciler runs here, so status says so instead of waiting.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, env, kubectl, newNamespace, setupCluster } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "ordinal-pack-"));
const prefix = join(dir, "prefix");
const kubectlPath = execFileSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).trim();
/** PATH with the installed package's bin and Node's directory only (kubectl's added where said). */
const onlyNode = `${join(prefix, "bin")}:${dirname(process.execPath)}`;

/** run runs `cmd args…` with a clean environment (HOME in the temp dir, PATH as given). */
function run(cmd: string, args: string[], path: string, extra: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { env: { PATH: path, HOME: dir, ...extra }, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  execFileSync("npm", ["pack", "--pack-destination", dir, "--silent"], { stdio: ["ignore", "pipe", "inherit"] });
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
  execFileSync("npm", ["install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", join(dir, tgz)], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, HOME: dir } });
}, 180_000);

describe("the packed package", () => {
  it("installs without dependencies and ships the bundle, not the sources", () => {
    const pkg = join(prefix, "lib", "node_modules", "ordinal");
    expect(existsSync(join(pkg, "dist", "node", "ordinal.mjs"))).toBe(true);
    expect(existsSync(join(pkg, "node_modules"))).toBe(false);
    expect(existsSync(join(pkg, "src"))).toBe(false);
    expect(existsSync(join(prefix, "bin", "kubectl-ordinal"))).toBe(true);
  });

  it("`ordinal --help` works with only Node on PATH", () => {
    const r = run("ordinal", ["--help"], onlyNode);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: ordinal <command>/);
    expect(r.out).toContain("rollout status");
  });

  it("`kubectl ordinal rollout status` runs as a kubectl plugin and says that no reconciler runs", async () => {
    await setupCluster();
    const ns = await newNamespace("pack");
    // No reconciler runs here, but an earlier file's may have renewed its Lease within the window.
    kubectl(["-n", "ordinal-system", "delete", "lease", "--all"]);
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, image: "nginx:1.25", container: "nginx" }));
    const path = `${onlyNode}:${dirname(kubectlPath)}`;
    expect(run("kubectl", ["plugin", "list"], path).out).toContain(join(prefix, "bin", "kubectl-ordinal"));
    const r = run("kubectl", ["ordinal", "rollout", "status", "web", "-n", ns, "--timeout", "5s"], path, { KUBECONFIG: env.KUBECONFIG });
    expect(r.out).toContain("Waiting for statefulset spec update to be observed...");
    expect(r.err).toMatch(/warning: no reconciler has renewed (a Lease in namespace ordinal-system|its Lease for)/);
    expect(r.err).toMatch(/timed out waiting for the rollout of web/);
    expect(r.code).toBe(1);
  });
});
