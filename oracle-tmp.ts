import { readFileSync } from "node:fs";
import { Agent, fetch as ufetch } from "undici";
import { CONFORMANCE_CASES, replayCase } from "./test/sim/conformance-cases.ts";
import { createFakeApiServer } from "./src/sim/fake-apiserver/index.ts";
const env = Object.fromEntries(readFileSync("/tmp/fakeapi-oracle/env", "utf8").trim().split("\n").map((l) => l.split("=")));
const agent = new Agent({ connect: { ca: readFileSync(env.KUBE_CA_FILE) } });
const realFetch = (u: string, init?: RequestInit) => ufetch(u, { ...(init as object), dispatcher: agent } as never) as unknown as Promise<Response>;
const ns = process.argv[2] ?? `cf-${Date.now() % 100000}`;
const which = process.argv[3] ?? "both";
if (which !== "fake") {
  await realFetch(`${env.KUBE_API_URL}/api/v1/namespaces`, { method: "POST", headers: { Authorization: `Bearer ${env.KUBE_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: ns } }) });
  for (let i = 0; i < 50; i++) {
    const r = await realFetch(`${env.KUBE_API_URL}/api/v1/namespaces/${ns}/serviceaccounts/default`, { headers: { Authorization: `Bearer ${env.KUBE_TOKEN}` } });
    const sa = r.ok ? await r.json() : undefined;
    if (sa?.secrets?.length) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}
for (const c of CONFORMANCE_CASES) {
  const out: string[] = [];
  if (which !== "fake") {
    const real = await replayCase(c, { fetch: realFetch, baseUrl: env.KUBE_API_URL, namespace: ns, headers: { Authorization: `Bearer ${env.KUBE_TOKEN}` }, eventuallyMs: 90000 });
    out.push(...real.map((f) => `REAL  ${f}`));
  }
  if (which !== "real") {
    const fake = createFakeApiServer();
    await fake.fetch(`https://fake.local/api/v1/namespaces`, { method: "POST", body: JSON.stringify({ metadata: { name: ns } }), headers: { "content-type": "application/json" } });
    const f = await replayCase(c, { fetch: fake.fetch, baseUrl: "https://fake.local", namespace: ns, eventuallyMs: 0 });
    out.push(...f.map((x) => `FAKE  ${x}`));
  }
  console.log(`${out.length ? "✗" : "✓"} ${c.name}`);
  for (const l of out) console.log("   " + l);
}
