/**
 * Forged admission reviews (issue 35, G2): with WEBHOOK_AUTH=none anyone who reaches the webhooks
 * can send one. Here the webhooks' app hands its wakes to Node's scheduler (no watch cache: every
 * read goes to the fake apiserver, counted), and a namespace with no Ordinal object but many pods
 * is flooded with reviews naming sets in it. What they may cost: a few cheap reads of the set (or
 * the namespace's sets and ImageLists), never a list of the namespace's pods.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { PULLER_LABEL } from "../../src/objects/constants.ts";
import { ReconcileScheduler } from "../../src/schedule/scheduler.ts";
import { BLIND_RECHECK_MS, UNSEEN_RECHECK_MS } from "../../src/schedule/tables.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { osts, request, review, sampleSet } from "../admission/helpers.ts";
import { testApp } from "../admission/test-app.ts";

const HOUR = 3_600_000;
const tableMs = (t: readonly number[]) => t.reduce((a, b) => a + b, 0);
/** Past the last recheck of either table (and the coalescing before the first pass). */
const RECHECKS_END_MS = 1_000 + Math.max(tableMs(UNSEEN_RECHECK_MS), tableMs(BLIND_RECHECK_MS));
/** The reviews come in this many rounds, spread over this long: all before either table's last recheck (a review after it starts afresh). */
const ROUNDS = 20;
const ROUNDS_SPAN_MS = Math.min(tableMs(UNSEEN_RECHECK_MS), tableMs(BLIND_RECHECK_MS)) - 100;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  const s = stop;
  stop = undefined;
  if (s) await Promise.all([s(), vi.runOnlyPendingTimersAsync()]);
  vi.useRealTimers();
});

describe("forged reviews naming a namespace with no Ordinal object", () => {
  it("cost reads of its sets and ImageLists only: no pod or revision list, however many reviews (selectors that match every pod included)", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system", "empty"] });
    for (let i = 0; i < 30; i++) {
      fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: `p${i}`, namespace: "empty", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } });
    }
    const requests: string[] = [];
    const client = createKubeClient({
      baseUrl: "https://fake",
      sleep: async () => {},
      fetch: async (input, init) => {
        const url = new URL(String(input instanceof Request ? input.url : input));
        requests.push(`${init?.method ?? "GET"} ${decodeURIComponent(url.pathname + url.search)}`);
        return fake.fetch(input, init);
      },
    });
    // The scheduler's clock and timers are the test's (no wall clock, whatever the machine's load):
    // time moves only when the test says, through every recheck of the tables.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let passes = 0;
    const scheduler = new ReconcileScheduler(client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR, clock: () => Date.now(), onPass: () => void passes++ });
    scheduler.start();
    stop = () => scheduler.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(passes).toBe(1);
    expect(scheduler.acts()).toBe(true);
    const before = requests.length;
    const t = await testApp({ onWake: (w) => scheduler.wake(w) });

    const set = sampleSet();
    set.metadata = { name: "web", namespace: "empty", uid: "forged" };
    const puller = { metadata: { name: "pull-x", namespace: "empty", labels: { [PULLER_LABEL]: "true" } } };
    // The reviews come in rounds, as a flood (or a loaded machine's delays) brings them: before the
    // first pass and among its rechecks, none after the last (a review then starts afresh).
    for (let round = 0; round < ROUNDS; round++) {
      const posts: Promise<Response>[] = [];
      for (let i = 0; i < 60 / ROUNDS; i++) {
        const create = review(request({ kind: osts, name: "web", namespace: "empty", object: set, userInfo: { username: "system:anonymous" } }));
        posts.push(t.post(WEBHOOK_PATHS.validateStatefulSets, create), t.post(WEBHOOK_PATHS.wake, create));
        posts.push(t.post(WEBHOOK_PATHS.wake, review(request({ operation: "UPDATE", subResource: "status", namespace: "empty", object: puller, oldObject: { ...puller, status: { phase: "Pending" } } }))));
      }
      await Promise.all(posts);
      await vi.advanceTimersByTimeAsync(ROUNDS_SPAN_MS / ROUNDS);
    }
    // Then every recheck of the model's tables (schedule/tables.ts) to the last.
    await vi.advanceTimersByTimeAsync(RECHECKS_END_MS);
    const sent = requests.slice(before).filter((r) => !r.includes("/leases"));
    expect(sent.filter((r) => /\/(pods|controllerrevisions|persistentvolumeclaims)\b/.test(r))).toEqual([]);
    // The sets and ImageLists of the namespace, or `web` by name (a look while its announced create is unseen).
    expect(sent.every((r) => /^GET \/apis\/apps\.ordinal\.dev\/v1\/namespaces\/empty\/((statefulsets|imagelists)\?|statefulsets\/web$)/.test(r)), sent.join("\n")).toBe(true);
    // Coalesced per set, whatever the number of reviews (a wake that adds nothing changes nothing):
    // for `web` a pass and its looks while its create is unseen (UNSEEN_RECHECK_MS, one read each),
    // for the namespace's ImageLists a pass and its blind rechecks (BLIND_RECHECK_MS, two reads each).
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(1 + UNSEEN_RECHECK_MS.length + 2 * (1 + BLIND_RECHECK_MS.length));
  });
});
