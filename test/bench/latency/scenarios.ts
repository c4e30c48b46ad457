/**
 * The timed scenarios, the same for both controllers: in a fresh namespace, create an
 * OrderedReady set with one claim template (0→N), then change its image (rolling update,
 * recreate), then — Ordinal only — change it again with `podUpdatePolicy: InPlaceIfPossible`.
 * Each is timed from the request to the moment the set's status says it is done and every pod is
 * Ready at the new image, as seen by a watch.
 */
import type { Pod } from "../../../src/api/k8s.ts";
import type { KubeObject } from "../../../src/kube/client.ts";
import { R, resourcePath } from "../../../src/kube/resources.ts";
import { setManifest } from "../../support/fixtures.ts";
import type { BenchCluster } from "./cluster.ts";
import { runKubelet } from "./kubelet.ts";
import { createdIn, firstAddedAfter, isDone, stepTimes, type SetObject } from "./measure.ts";
import { startWatch, waitFor, WaitTimeout, type Watched } from "./watch.ts";

/** upstream: kube-controller-manager; ordinal: `ordinal serve` (Node); worker: the Worker under `wrangler dev`. */
export type Controller = "upstream" | "ordinal" | "worker";
export type Scenario = "scale" | "rolling" | "inplace";

export interface Measurement {
  controller: Controller;
  scenario: Scenario;
  replicas: number;
  /** Date.now() of the request and of the moment the result was seen. */
  start: number;
  end: number;
  /** Pods created within [start, end]. */
  created: number;
  /** Scale-up only: ms from pod k-1 seen Ready to pod k seen created, per step. */
  steps: number[];
  /** Scale-up only: ms from the create request to its first pod seen. */
  firstPodMs?: number;
  /** Not done within the group's timeout: `end` is when the wait gave up (the group's later scenarios are skipped). */
  timedOut?: boolean;
}

const NAME = "web";
const IMAGES = ["nginx:1.25", "nginx:1.26", "nginx:1.27"];
const resourceOf = (c: Controller) => (c === "upstream" ? R.appsStatefulSets : R.statefulSets);

/** manifest returns the set both controllers get: OrderedReady (the default), one claim template. */
function manifest(c: Controller, ns: string, replicas: number) {
  const m = setManifest({ name: NAME, namespace: ns, replicas, image: IMAGES[0], container: "nginx", claims: ["data"] });
  return c === "upstream" ? { ...m, apiVersion: "apps/v1", kind: "StatefulSet" } : m;
}

const imagePatch = (image: string) => ({ template: { spec: { containers: [{ name: "nginx", image }] } } });

/** newNamespace creates `name` and waits until its default ServiceAccount has a token (pods are refused before). */
export async function newNamespace(cluster: BenchCluster, name: string): Promise<void> {
  await cluster.admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  for (let i = 0; i < 150; i++) {
    const sa = await cluster.admin.get<KubeObject & { secrets?: unknown[] }>(R.serviceAccounts, name, "default");
    if (sa?.secrets?.length) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`namespace ${name}: the default ServiceAccount got no token`);
}

export interface GroupOptions {
  controller: Controller;
  namespace: string;
  replicas: number;
  /** Also time a rolling update (recreate). */
  updates: boolean;
  /** Ordinal (Node or Worker) only: then an in-place update (podUpdatePolicy InPlaceIfPossible set with the image change). */
  inPlace: boolean;
}

/**
 * runGroup runs the scenarios of one set in a fresh namespace with its own kubelet, returns
 * their measurements, and deletes the namespace (the kubelet finishes the pods' deletion).
 */
export async function runGroup(cluster: BenchCluster, o: GroupOptions): Promise<Measurement[]> {
  const { controller, namespace: ns, replicas: n } = o;
  await newNamespace(cluster, ns);
  const pods = await startWatch<Pod>(cluster.api, resourcePath(R.pods, ns));
  const sets = await startWatch<SetObject & Watched>(cluster.api, resourcePath(resourceOf(controller), ns));
  const kubelet = runKubelet(cluster.admin, ns);
  // A kubelet (and the scheduler) is not synchronised with a user's apply: the create comes at a
  // random phase of the player's 100 ms step, after its first step (Node creates, first list) is
  // done. Started together, its first list came 18-60 ms after the create, every sample: a pod
  // stored before it was bound a whole step earlier than one stored 40 ms later.
  await new Promise((r) => setTimeout(r, 150 + Math.random() * 100));
  const timeout = 30_000 + 6_000 * n;
  const out: Measurement[] = [];
  const measure = async (scenario: Scenario, act: () => Promise<SetObject>, image: string) => {
    const start = Date.now();
    const gen = (await act()).metadata.generation ?? 1;
    let end: number;
    let timedOut = false;
    try {
      end = await waitFor(() => isDone(sets.objects.get(NAME), [...pods.objects.values()], gen, n, image), [pods, sets], timeout, `${controller} ${scenario} ${n} in ${ns}`);
    } catch (e) {
      if (!(e instanceof WaitTimeout)) throw e;
      [end, timedOut] = [Date.now(), true];
    }
    const scale = scenario === "scale";
    out.push({ controller, scenario, replicas: n, start, end, created: createdIn(pods.events, start, end), steps: scale ? stepTimes(pods.events, NAME, n) : [], firstPodMs: scale ? firstAddedAfter(pods.events, start) : undefined, timedOut });
    return !timedOut;
  };
  const patch = (spec: Record<string, unknown>) => cluster.admin.patch<SetObject>(resourceOf(controller), ns, NAME, { spec }, "merge");
  try {
    // A scenario that timed out leaves the set mid-way: the group's later ones are not measured.
    const scaled = await measure("scale", () => cluster.admin.create<SetObject>(resourceOf(controller), ns, manifest(controller, ns, n) as unknown as SetObject), IMAGES[0]);
    if (scaled && o.updates) {
      const rolled = await measure("rolling", () => patch(imagePatch(IMAGES[1])), IMAGES[1]);
      if (rolled && o.inPlace && controller !== "upstream")
        await measure("inplace", () => patch({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } }, ...imagePatch(IMAGES[2]) }), IMAGES[2]);
    }
    await cluster.admin.delete(R.namespaces, undefined, ns);
    await waitFor(() => pods.objects.size === 0, [pods], 60_000, `pods of ${ns} deleted`);
  } finally {
    pods.stop();
    sets.stop();
    await kubelet.stop();
  }
  if (kubelet.errors.length) throw new Error(`kubelet player in ${ns}: ${kubelet.errors.slice(0, 3).join("; ")}`);
  return out;
}
