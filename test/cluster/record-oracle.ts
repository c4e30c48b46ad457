/**
 * Records the real kube-apiserver's answers for the validation oracle (test/validation/oracle.ts)
 * into test/validation/oracle-recording.json: for every variant of the corpus (default seed), the
 * dry-run answers to the pods and PVCs the set implies and to the set as apps/v1. Run by
 * test/cluster/record-oracle.sh against a cluster started by test/cluster/start.sh
 * (ORDINAL_CLUSTER_DIR names it). Prints the agreement summary; exits 1 when src/validation
 * disagrees with the new recording beyond the documented exceptions (the file is written anyway).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { clientFor } from "../../src/node/kubeconfig.ts";
import {
  DEFAULT_RANDOM_COUNT,
  DEFAULT_SEED,
  RECORDING_NAMESPACE,
  type Post,
  type Recording,
  comparePodsAndClaims,
  compareSet,
  oracleVariants,
  recordPodsAndClaims,
  recordSet,
  summary,
  variantSha,
} from "../validation/oracle.ts";

const dir = process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-cluster";
const out = process.argv[2] ?? new URL("../validation/oracle-recording.json", import.meta.url).pathname;
const env = JSON.parse(readFileSync(`${dir}/env.json`, "utf8")) as { KUBE_API_URL: string; KUBE_TOKEN: string; KUBE_CA_FILE: string };
const admin = clientFor({ server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca: readFileSync(env.KUBE_CA_FILE, "utf8"), source: "record-oracle" });
const ns = RECORDING_NAMESPACE;

// Pods need the namespace's default ServiceAccount (with its token, in 1.20) to pass admission.
if (!(await admin.get(R.namespaces, undefined, ns))) await admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
for (let i = 0; ; i++) {
  const sa = await admin.get<KubeObject & { secrets?: unknown[] }>(R.serviceAccounts, ns, "default");
  if (sa?.secrets?.length) break;
  if (i > 150) throw new Error(`namespace ${ns}: default ServiceAccount got no token`);
  await new Promise((r) => setTimeout(r, 200));
}

const post: Post = (kind, obj) => admin.create(kind === "pod" ? R.pods : kind === "pvc" ? R.pvcs : R.appsStatefulSets, ns, obj, { dryRun: true });
const variants = oracleVariants(DEFAULT_SEED, DEFAULT_RANDOM_COUNT);
const recording: Recording = { apiserver: "kube-apiserver 1.20.2 (test/cluster)", seed: DEFAULT_SEED, randomCount: DEFAULT_RANDOM_COUNT, namespace: ns, variants: [] };
for (const v of variants)
  recording.variants.push({ name: v.name, family: v.family, sha256: variantSha(v), ...(await recordPodsAndClaims(v, ns, post)), set: await recordSet(v, ns, post) });

// One variant a line: small diffs when a rerun changes a few answers.
const { variants: recorded, ...head } = recording;
writeFileSync(out, `${JSON.stringify(head).slice(0, -1)},"variants":[\n${recorded.map((r) => JSON.stringify(r)).join(",\n")}\n]}\n`);
const outcomes = variants.map((v, i) => comparePodsAndClaims(v, recorded[i]!, ns));
const setOutcomes = variants.map((v, i) => compareSet(v, recorded[i]!.set, ns));
console.log(`recorded ${recorded.length} variants into ${out}\n${summary(DEFAULT_SEED, outcomes, setOutcomes)}`);
if ([...outcomes, ...setOutcomes].some((o) => !o.agree)) process.exitCode = 1;
