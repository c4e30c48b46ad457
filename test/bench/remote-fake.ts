/**
 * spawnConvergedCluster starts fake-process.ts as a child (the apiserver in a process of its own,
 * as in a cluster) and returns its URL, a CPU probe and a stop function.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { RemoteApiServer } from "./pass-cost.ts";

export async function spawnConvergedCluster(sets: number, pods: number, namespaces: number): Promise<RemoteApiServer & { stop: () => void }> {
  const script = fileURLToPath(new URL("./fake-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, String(sets), String(pods), String(namespaces)], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`fake-process.ts exited (${code}) before listening`))));
  const firstLine = new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  const { port } = JSON.parse(await Promise.race([firstLine, exited])) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stats: async () => (await (await fetch(`${url}/__bench/stats`)).json()) as { us: number; bytes: number },
    stop: () => child.stdin.end(),
  };
}
