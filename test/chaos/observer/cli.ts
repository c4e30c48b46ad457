/**
 * Run the observer by hand beside a cluster (an e2e run, a chaos run): it prints each violation as
 * it is found and, on SIGINT/SIGTERM or after --minutes, the report as JSON.
 *
 *   tsx test/chaos/observer/cli.ts --cluster /tmp/ordinal-e2e-cluster [--audit FILE] [--lease-namespace NS] [--minutes M] [NAMESPACE…]
 *
 * `--cluster` is a test/cluster state dir (its env.json: the admin token and the CA); no
 * namespace given: every namespace.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startObserver } from "./index.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { cluster: { type: "string" }, audit: { type: "string" }, "lease-namespace": { type: "string", default: "ordinal-system" }, minutes: { type: "string" } },
});
if (!values.cluster) throw new Error("--cluster DIR (a test/cluster state dir) is required");
const env = JSON.parse(readFileSync(`${values.cluster}/env.json`, "utf8")) as { KUBE_API_URL: string; KUBE_TOKEN: string; KUBE_CA_FILE: string };
const obs = startObserver({
  apiUrl: env.KUBE_API_URL,
  token: env.KUBE_TOKEN,
  caFile: env.KUBE_CA_FILE,
  namespaces: positionals,
  auditLogPath: values.audit,
  leaseNamespace: values["lease-namespace"]!,
  injected: () => [],
  onViolation: (v) => console.log(JSON.stringify(v)),
});
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const report = await obs.stop();
  console.log(JSON.stringify({ ...report, violations: report.violations.length }, null, 1));
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
if (values.minutes) setTimeout(stop, Number(values.minutes) * 60_000);
