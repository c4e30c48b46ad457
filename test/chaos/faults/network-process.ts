/** The runner's handle on the network process (network.ts): start it, send it commands, read its counts. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { NetworkCommand, NetworkConfig, NetworkStats } from "./network-types.ts";

export interface Network {
  send(c: NetworkCommand): void;
  /** stats returns the requests each replica's proxy received, by epoch second. */
  stats(): Promise<NetworkStats["stats"]>;
  stop(): Promise<void>;
}

/** startNetwork starts network.ts with `config` and resolves once it listens. */
export async function startNetwork(config: NetworkConfig): Promise<Network> {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/chaos/faults/network.ts", JSON.stringify(config)], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting: ((s: NetworkStats["stats"]) => void)[] = [];
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((r) => (ready = r));
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    if (line === "ready") return ready();
    if (line.startsWith("{")) waiting.shift()?.((JSON.parse(line) as NetworkStats).stats);
  });
  await Promise.race([isReady, exited.then(() => Promise.reject(new Error("the chaos network process exited before it listened")))]);
  const send = (c: NetworkCommand) => proc.stdin!.write(`${JSON.stringify(c)}\n`);
  return {
    send,
    stats: () =>
      new Promise((r) => {
        waiting.push(r);
        send({ type: "stats" });
      }),
    stop: async () => {
      proc.stdin!.end();
      await exited;
    },
  };
}
