/**
 * LeaderElector (src/lease/elector.ts): client-go leader election with a fake clock. Expiry
 * is judged by local observation of the holder's renewals, never by comparing clocks; the holder
 * stops acting at its renew deadline; one Lease write per renewal period.
 */
import { describe, expect, it } from "vitest";
import type { Lease } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { LeaderElector } from "../../src/lease/elector.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const NS = "ordinal-system";
const PATH = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/ordinal-reconciler`;

function world() {
  const fake = createFakeApiServer({ namespaces: ["default", NS] });
  let leaseWrites = 0;
  /** How long (ms of the clock) the apiserver takes to answer a Lease write: a slow apiserver. */
  let writeDelayMs = 0;
  let t = 0;
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    maxAttempts: 1,
    fetch: async (input, init) => {
      const write = (init?.method ?? "GET") !== "GET";
      if (write) leaseWrites++;
      const res = await fake.fetch(input, init);
      if (write) t += writeDelayMs;
      return res;
    },
  });
  const clock = () => t;
  /** Each elector has its own wall clock; `skewMs` sets one far off from the others. */
  const elector = (holder: string, skewMs = 0) => new LeaderElector(client, { namespace: NS, holder }, clock, () => new Date(Date.parse("2026-11-21T12:00:00Z") + t + skewMs));
  return { fake, elector, advance: (ms: number) => void (t += ms), slowWrites: (ms: number) => void (writeDelayMs = ms), now: () => t, writes: () => leaseWrites, holder: () => fake.get<Lease>(PATH)?.spec?.holderIdentity };
}

describe("LeaderElector", () => {
  it("a live holder renewing every 10 s keeps the lease for as long as it renews", async () => {
    const w = world();
    const a = w.elector("a");
    const b = w.elector("b");
    expect(await a.tryAcquireOrRenew()).toBe(true);
    for (let i = 0; i < 12; i++) {
      w.advance(5_000);
      expect(await b.tryAcquireOrRenew()).toBe(false);
      if (a.msUntilRenew() === 0) expect(await a.tryAcquireOrRenew()).toBe(true);
    }
    expect(w.holder()).toBe("a");
  });

  it("expiry is judged by local observation, not the holder's renewTime: a holder whose clock is an hour behind is not taken over", async () => {
    const w = world();
    const a = w.elector("a", -3_600_000);
    const b = w.elector("b");
    expect(await a.tryAcquireOrRenew()).toBe(true);
    // By b's clock the renewTime is an hour old: the old rule took it at once.
    expect(await b.tryAcquireOrRenew()).toBe(false);
    w.advance(29_999);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    w.advance(1);
    // 30 s of b's own clock since it first saw this record unchanged: expired.
    expect(await b.tryAcquireOrRenew()).toBe(true);
    expect(w.holder()).toBe("b");
  });

  it("a renewal seen resets the count, even when the holder's clock runs ahead", async () => {
    const w = world();
    const a = w.elector("a", 3_600_000);
    const b = w.elector("b");
    await a.tryAcquireOrRenew();
    await b.tryAcquireOrRenew();
    w.advance(25_000);
    await a.tryAcquireOrRenew();
    w.advance(10_000);
    expect(await b.tryAcquireOrRenew()).toBe(false); // saw the renewal now: 30 s from here
    w.advance(29_999);
    expect(await b.tryAcquireOrRenew()).toBe(false);
    w.advance(1);
    expect(await b.tryAcquireOrRenew()).toBe(true);
  });

  it("the holder stops acting at its renew deadline (20 s after the last renewal it SENT), before anyone may take over (30 s)", async () => {
    const w = world();
    const a = w.elector("a");
    await a.tryAcquireOrRenew();
    w.advance(19_999);
    expect(a.isLeader()).toBe(true);
    w.advance(1);
    expect(a.isLeader()).toBe(false);
  });

  it("a renewal counts from when it was sent, not answered: a slow apiserver (8 s to answer) does not stretch the renew deadline (issue 34)", async () => {
    const w = world();
    const a = w.elector("a");
    await a.tryAcquireOrRenew();
    w.advance(10_000);
    w.slowWrites(8_000);
    expect(await a.tryAcquireOrRenew()).toBe(true);
    expect(w.now()).toBe(18_000);
    // Sent at 10 s: it acts until 30 s (10 + 20), not 38 s; the next renewal is due at 20 s.
    expect(a.msUntilRenew()).toBe(2_000);
    w.advance(11_999);
    expect(a.isLeader()).toBe(true);
    w.advance(1);
    expect(a.isLeader()).toBe(false);
  });

  it("a failed renewal leaves the deadline where it was", async () => {
    const w = world();
    const a = w.elector("a");
    await a.tryAcquireOrRenew();
    w.advance(10_000);
    w.fake.faults.add({ verb: "update", resource: "leases", fault: "conflict", times: 1 });
    expect(await a.tryAcquireOrRenew()).toBe(true); // still within the deadline of the first
    w.advance(10_000);
    expect(a.isLeader()).toBe(false);
  });

  it("writes the lease once per renewal period while leading: 7 writes in 60 s", async () => {
    const w = world();
    const a = w.elector("a");
    for (let ms = 0; ms <= 60_000; ms += 500) {
      if (a.msUntilRenew() === 0) await a.tryAcquireOrRenew();
      w.advance(500);
    }
    expect(w.writes()).toBe(7);
  });

  it("release gives the lease up: another takes it at once, and the releaser stops acting", async () => {
    const w = world();
    const a = w.elector("a");
    const b = w.elector("b");
    await a.tryAcquireOrRenew();
    await b.tryAcquireOrRenew();
    await a.release();
    expect(a.isLeader()).toBe(false);
    expect(await b.tryAcquireOrRenew()).toBe(true);
  });

  it("refuses timings where the holder could act after others judge it expired", () => {
    const w = world();
    expect(() => new LeaderElector(createKubeClient({ baseUrl: "https://x", fetch: w.fake.fetch }), { namespace: NS, holder: "a" }, () => 0, undefined, { durationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toThrow(/retryPeriod < renewDeadline < leaseDuration/);
  });
});
