/**
 * The `ordinal serve` replicas of a chaos run: the built server (dist/node/ordinal.mjs, what the
 * image runs) with deploy/server.yaml's Deployment environment read from the manifest, changed
 * only where a process off-cluster must differ (listen address and port, the apiserver's URL — a
 * replica's own fault proxy —, the URL the apiserver reaches the webhooks at, the pod's IP).
 * Each can be SIGKILLed and restarted, SIGSTOPped and resumed; its RSS is sampled from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const BIN = "dist/node/ordinal.mjs";

interface Container {
  args: string[];
  env: { name: string; value?: string }[];
}

/** deploymentEnv returns the container args and the literal env of deploy/server.yaml's Deployment (fieldRef values left out). */
function deploymentEnv(file = "deploy/server.yaml"): { args: string[]; env: Record<string, string> } {
  const docs = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJSON() as { kind?: string; spec?: { template?: { spec?: { containers?: Container[] } } } });
  const container = docs.find((d) => d.kind === "Deployment")?.spec?.template?.spec?.containers?.[0];
  if (!container) throw new Error(`${file}: no Deployment container`);
  const env: Record<string, string> = {};
  for (const e of container.env) if (e.value !== undefined) env[e.name] = e.value;
  return { args: container.args, env };
}

export interface ReplicaOptions {
  name: string;
  /** The port it serves the webhooks on. */
  port: number;
  /** The apiserver URL it is given (its fault proxy, plain HTTP). */
  apiUrl: string;
  token: string;
  /** Where the apiserver reaches the webhooks (the front). */
  webhookUrl: string;
  logFile: string;
}

export interface RssSample {
  at: number;
  /** Which start of the replica (0 = the first). */
  life: number;
  mb: number;
}

/** Every replica started in this process, for killAll. */
const all = new Set<Replica>();

/** killAll SIGKILLs every replica of this process (the runner was interrupted): none outlives it. */
export function killAll(): void {
  for (const r of all) if (r.running) r.sigkill();
}

/** Replica is one `ordinal serve` process, started again after each kill. */
export class Replica {
  private proc: ChildProcess | undefined;
  private life = -1;
  stopped = false;
  readonly rss: RssSample[] = [];
  /** Each life's Lease holder identity (its User-Agent is ordinal/<holder>), from its log. */
  readonly holders: string[] = [];
  constructor(readonly o: ReplicaOptions) {}

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** start runs a new life of the replica. */
  start(): void {
    const { args, env } = deploymentEnv();
    this.life++;
    const life = this.life;
    this.stopped = false;
    const proc = spawn("node", [BIN, ...args], {
      env: {
        PATH: process.env.PATH,
        ...env,
        HOST: "127.0.0.1",
        PORT: String(this.o.port),
        POD_IP: "127.0.0.1",
        POD_NAME: this.o.name,
        WEBHOOK_URL: this.o.webhookUrl,
        WEBHOOK_CERT_HOSTS: "127.0.0.1",
        KUBE_API_URL: this.o.apiUrl,
        KUBE_TOKEN: this.o.token,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const onData = (d: Buffer) => {
      const s = String(d);
      appendFileSync(this.o.logFile, s);
      const m = /"holder":"([^"]+)"/.exec(s);
      if (m && this.holders[life] === undefined) this.holders[life] = m[1];
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    appendFileSync(this.o.logFile, `--- chaos: ${this.o.name} life ${life} started at ${new Date().toISOString()} (pid ${proc.pid})\n`);
    this.proc = proc;
    all.add(this);
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.running) process.kill(-this.proc!.pid!, sig);
  }

  sigkill(): void {
    this.signal("SIGKILL");
  }

  /** kill SIGKILLs the replica (no release of its Leases) and waits for its exit. */
  async kill(): Promise<void> {
    if (!this.running) return;
    if (this.stopped) this.resume();
    const exited = new Promise((r) => this.proc!.once("exit", r));
    this.signal("SIGKILL");
    await exited;
  }

  /** pause SIGSTOPs the replica: it holds its Leases without renewing them. */
  pause(): void {
    this.signal("SIGSTOP");
    this.stopped = true;
  }

  resume(): void {
    this.signal("SIGCONT");
    this.stopped = false;
  }

  /** sampleRss records the replica's resident memory (MB), when it runs. */
  sampleRss(): void {
    if (!this.running) return;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.proc!.pid}/status`, "utf8"));
      if (m) this.rss.push({ at: Date.now(), life: this.life, mb: Number(m[1]) / 1024 });
    } catch {
      /* exited between the check and the read */
    }
  }

  /** stop ends the replica for good: TERM (it releases its Leases), KILL after 10 s. */
  async stop(): Promise<void> {
    if (!this.running) return;
    if (this.stopped) this.resume();
    const exited = new Promise((r) => this.proc!.once("exit", r));
    this.signal("SIGTERM");
    const t = setTimeout(() => this.signal("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  }
}
