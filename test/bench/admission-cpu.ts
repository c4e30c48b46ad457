/**
 * In-process CPU cost of one admission request, beside the load run of admission.ts: the bench's
 * 4 KB pod AdmissionReview through Ordinal's app (`app.fetch`, no sockets) and through the bare
 * hono echo, in alternating rounds, as CPU microseconds per request (process.cpuUsage, so other
 * processes on the machine do not inflate it). The HTTP server's own cost (node:http and
 * @hono/node-server, about the same for both) is not in these figures.
 * `npx tsx test/bench/admission-cpu.ts` (admission.ts runs it too, in a process of its own, so the
 * load generator's heap and JIT state stay out of the figures); ADMISSION_CPU_ROUNDS (default 7) rounds of
 * ADMISSION_CPU_REQUESTS (default 5000) requests each; medians printed.
 */
import { benchApps, podReview } from "./admission-apps.ts";

const ROUNDS = Number(process.env.ADMISSION_CPU_ROUNDS || 7);
const REQUESTS = Number(process.env.ADMISSION_CPU_REQUESTS || 5000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** cpuPerRequest returns the CPU µs per request of `n` sequential calls of `call`. */
async function cpuPerRequest(n: number, call: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await call();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / n;
}

/** admissionCpu returns the median CPU µs per request of the mutate route and of the echo. */
async function admissionCpu(): Promise<{ mutateUs: number; echoUs: number }> {
  const { app, echo, token } = await benchApps();
  const body = podReview();
  // The apiserver declares the length of every review it posts.
  const length = String(Buffer.byteLength(body));
  const mutate = async () => {
    const r = await app.fetch(new Request("http://localhost/mutate/pods", { method: "POST", body, headers: { "content-type": "application/json", "content-length": length, authorization: `Bearer ${token}` } }));
    return r.text();
  };
  const echoOnce = async () => {
    const r = await echo.fetch(new Request("http://localhost/echo", { method: "POST", body, headers: { "content-type": "application/json", "content-length": length } }));
    return r.text();
  };
  const first = JSON.parse(await mutate()) as { response?: { patch?: string } };
  if (!first.response?.patch) throw new Error(`mutate did not patch: ${JSON.stringify(first)}`);
  await cpuPerRequest(REQUESTS, mutate);
  await cpuPerRequest(REQUESTS, echoOnce);
  const m: number[] = [];
  const e: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    m.push(await cpuPerRequest(REQUESTS, mutate));
    e.push(await cpuPerRequest(REQUESTS, echoOnce));
  }
  return { mutateUs: median(m), echoUs: median(e) };
}

const { mutateUs, echoUs } = await admissionCpu();
// --json: one line for admission.ts, which runs this file in a fresh process after its load runs.
if (process.argv.includes("--json")) console.log(JSON.stringify({ mutateUs, echoUs }));
else console.log(`in-process CPU per request: mutate ${mutateUs.toFixed(1)} µs, echo ${echoUs.toFixed(1)} µs, mutate beyond echo ${(mutateUs - echoUs).toFixed(1)} µs`);
