/**
 * `npm run bench:slow`: a small validate review's latency while slow senders are connected, side
 * by side in one run — the shipped bundle built from this checkout ("after") and from
 * BENCH_BEFORE_REF ("before"; default 9471907, main before the BodyBudget), each run as a user
 * runs it: `WEBHOOK_AUTH=none node dist/node/ordinal.mjs serve --simulate`. A slow sender
 * declares a 3 MiB body (the apiserver's limit) and sends one byte every 500 ms; when the server
 * closes it, it connects again (a persistent attacker). For each row of slow senders
 * (BENCH_SLOW, default 0,2,3,30, and "3s": three that send 2.9 MiB at once and stall): they connect, then SAMPLES small reviews are sent one after
 * 500 ms apart (each given up after 16 s), the median and the worst printed, with the server's RSS;
 * the slow senders stop before the next row. Last, the server's log lines (LOG_LEVEL=warn):
 * how many, and how many carry a stack.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BEFORE_REF = process.env.BENCH_BEFORE_REF ?? "9471907";
/** Rows: "N" slow senders trickling; "Ns" senders that send 2.9 MiB at once, then stall. */
const ROWS = (process.env.BENCH_SLOW ?? "0,2,3,30,3s").split(",");
const STALL_AFTER = Math.floor(2.9 * 1024 * 1024);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3);
const GIVE_UP_MS = 16_000;
const DECLARED = 3 * 1024 * 1024;
const repo = resolve(import.meta.dirname, "../..");
const work = join(tmpdir(), "ordinal-bench-slow");

/** build bundles `src` (a checkout's root) into `<out>/ordinal.mjs` with that checkout's own build script. */
function build(root: string, out: string): string {
  execFileSync(process.execPath, [join(repo, "node_modules/tsx/dist/cli.mjs"), "src/cli/build-node.ts", "--outdir", out], { cwd: root, stdio: "inherit" });
  return join(out, "ordinal.mjs");
}

/** beforeBundle extracts BEFORE_REF's tree (with this checkout's node_modules) and builds it. */
function beforeBundle(): string {
  const root = join(work, "before-src");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  execFileSync("sh", ["-c", `git -C '${repo}' archive ${BEFORE_REF} | tar -x -C '${root}'`]);
  symlinkSync(join(repo, "node_modules"), join(root, "node_modules"));
  return build(root, join(work, "before"));
}

/** start runs `ordinal serve` from `bundle` on `port` and resolves once /healthz answers. */
async function start(bundle: string, port: number): Promise<ChildProcess & { log(): string }> {
  const child = spawn(process.execPath, [bundle, "serve", "--simulate", "--port", String(port), "--host", "127.0.0.1"], {
    env: { PATH: process.env.PATH, WEBHOOK_AUTH: "none", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  child.stderr!.on("data", (d: Buffer) => (errors += d.toString()));
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${errors}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) return Object.assign(child, { log: () => errors });
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("serve did not answer /healthz");
}

/**
 * slowSender trickles a body declared at 3 MiB, a byte every 500 ms (or, `stalling`, sends 2.9 MiB
 * at once and then nothing), connecting again when closed, until stopped.
 */
function slowSender(port: number, stalling: boolean): { stop(): void } {
  let stopped = false;
  let socket: Socket;
  const open = () => {
    socket = connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    socket.once("close", () => void (stopped || open()));
    socket.once("connect", () => {
      socket.write(`POST /validate/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n{`);
      if (stalling) return void socket.write(" ".repeat(STALL_AFTER));
      const t = setInterval(() => (socket.destroyed ? clearInterval(t) : socket.write(" ")), 500);
    });
  };
  open();
  return { stop: () => ((stopped = true), socket.destroy()) };
}

const review = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "bench",
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    namespace: "default",
    name: "plain",
    operation: "CREATE",
    userInfo: { username: "someone" },
    object: { apiVersion: "v1", kind: "Pod", metadata: { name: "plain", namespace: "default" }, spec: { containers: [{ name: "c", image: "nginx" }] } },
  },
});

/** reviewMs sends one small validate review and returns its latency, or Infinity when given up. */
async function reviewMs(port: number): Promise<number> {
  const t = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/validate/pods`, { method: "POST", headers: { "content-type": "application/json" }, body: review, signal: AbortSignal.timeout(GIVE_UP_MS) });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    await res.text();
    return performance.now() - t;
  } catch (e) {
    if ((e as Error).name === "TimeoutError") return Infinity;
    throw e;
  }
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const fmt = (ms: number) => (ms === Infinity ? `>${GIVE_UP_MS / 1000} s` : `${ms.toFixed(0)} ms`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** measure returns, per row of slow senders, the small review's median and worst latency and the RSS. */
async function measure(bundle: string, port: number): Promise<{ byRow: Map<string, { median: number; worst: number; rss: number }>; lines: number; stacks: number }> {
  const child = await start(bundle, port);
  const out = new Map<string, { median: number; worst: number; rss: number }>();
  try {
    for (let i = 0; i < 5; i++) await reviewMs(port); // warm-up
    for (const row of ROWS) {
      const slow = Array.from({ length: Number.parseInt(row, 10) }, () => slowSender(port, row.endsWith("s")));
      await new Promise((r) => setTimeout(r, 300)); // they have sent their headers and first byte
      const ms: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        await new Promise((r) => setTimeout(r, 500)); // slow senders cut meanwhile are back
        ms.push(await reviewMs(port));
      }
      out.set(row, { median: median(ms), worst: Math.max(...ms), rss: rssMiB(child.pid!) });
      for (const s of slow) s.stop();
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    child.kill();
  }
  const lines = child.log().split("\n").filter((l) => l.startsWith("{") && /"level":"(warn|error)"/.test(l));
  return { byRow: out, lines: lines.length, stacks: lines.filter((l) => l.includes("stack")).length };
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
mkdirSync(work, { recursive: true });
const before = beforeBundle();
const after = build(repo, join(work, "after"));
const loadAtStart = load();
const results = [
  { name: `before (${BEFORE_REF})`, r: await measure(before, 18471) },
  { name: "after (this checkout)", r: await measure(after, 18472) },
];
console.log(`small validate review (/validate/pods, ${review.length} B) with slow senders (3 MiB declared, 1 B / 500 ms); median / worst of ${SAMPLES}; load ${loadAtStart} → ${load()} on ${availableParallelism()} cores`);
console.log(`  ${"slow senders".padEnd(14)}${results.map((x) => x.name.padEnd(34)).join("")}`);
for (const row of ROWS) {
  const cells = results.map((x) => {
    const v = x.r.byRow.get(row)!;
    return `${fmt(v.median)} / ${fmt(v.worst)}, RSS ${v.rss.toFixed(0)} MiB`.padEnd(34);
  });
  console.log(`  ${(row.endsWith("s") ? `${Number.parseInt(row, 10)} stalled` : row).padEnd(14)}${cells.join("")}`);
}
console.log(`  ${"log lines".padEnd(14)}${results.map((x) => `${x.r.lines} warn/error, ${x.r.stacks} with a stack`.padEnd(34)).join("")}`);
