/** metav1.Time / MicroTime normalization and resource.Quantity canonical form. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalQuantity, compareQuantities, parseQuantity } from "../../src/sim/fake-apiserver/quantity.ts";
import { formatTime, normalizeMicroTime, normalizeTime, truncateToSecond } from "../../src/sim/fake-apiserver/time.ts";
import { OSTS, PODS, ordinalSet, pod, setup } from "./helpers.ts";

describe("time truncation", () => {
  it.each([
    ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"],
    ["2026-01-02T03:04:05.999Z", "2026-01-02T03:04:05Z"],
    ["2026-01-02T03:04:05.123456789Z", "2026-01-02T03:04:05Z"],
    ["2026-01-02T05:04:05+02:00", "2026-01-02T03:04:05Z"],
    ["2026-01-01T23:30:00-01:00", "2026-01-02T00:30:00Z"],
    [null, null],
  ])("Time %j -> %j", (input, want) => {
    expect(normalizeTime(input)).toBe(want);
  });

  it.each(["2026-01-02", "2026-01-02 03:04:05Z", "2026-02-30T00:00:00Z", "2026-01-02T03:04:05", "yesterday", "2026-01-02t03:04:05z"])("Time %j does not decode", (input) => {
    expect(() => normalizeTime(input)).toThrow(/parsing time/);
  });

  it("MicroTime needs exactly six digits and comes back in UTC", () => {
    expect(normalizeMicroTime("2026-01-02T05:04:05.000001+02:00")).toBe("2026-01-02T03:04:05.000001Z");
    expect(() => normalizeMicroTime("2026-01-02T03:04:05Z")).toThrow();
    expect(() => normalizeMicroTime("2026-01-02T03:04:05.1234567Z")).toThrow();
  });

  it("formatTime and truncateToSecond", () => {
    const d = new Date("2026-01-02T03:04:05.999Z");
    expect(formatTime(d)).toBe("2026-01-02T03:04:05Z");
    expect(truncateToSecond(d).toISOString()).toBe("2026-01-02T03:04:05.000Z");
  });

  it("applies to the metav1.Time fields of pods written by a kubelet, not to custom resources", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("p"));
    const r = await call("PATCH", `${PODS}/p/status`, {
      status: {
        startTime: "2026-01-02T03:04:05.5Z",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-02T03:04:05.5Z", lastProbeTime: "2026-01-02T03:04:06.5Z" }],
        containerStatuses: [{ name: "c", state: { terminated: { exitCode: 0, startedAt: "2026-01-02T03:04:05.5Z", finishedAt: "2026-01-02T03:04:07.9Z" } }, lastState: { running: { startedAt: "2026-01-02T03:00:00.1Z" } } }],
      },
    });
    expect(r.body.status.startTime).toBe("2026-01-02T03:04:05Z");
    expect(r.body.status.conditions[0]).toMatchObject({ lastTransitionTime: "2026-01-02T03:04:05Z", lastProbeTime: "2026-01-02T03:04:06Z" });
    expect(r.body.status.containerStatuses[0].state.terminated).toMatchObject({ startedAt: "2026-01-02T03:04:05Z", finishedAt: "2026-01-02T03:04:07Z" });
    expect(r.body.status.containerStatuses[0].lastState.running.startedAt).toBe("2026-01-02T03:00:00Z");
    const cr = await call("POST", OSTS, ordinalSet("web"));
    const st = await call("PUT", `${OSTS}/web/status`, { ...cr.body, status: { conditions: [{ type: "A", status: "True", lastTransitionTime: "2026-01-02T03:04:05.5Z" }] } });
    expect(st.body.status.conditions[0].lastTransitionTime).toBe("2026-01-02T03:04:05.5Z");
  });

  it("creationTimestamp and deletionTimestamp come from the clock at whole seconds", async () => {
    const { call, clock } = setup();
    clock.now = new Date("2026-05-05T05:05:05.999Z");
    const c = await call("POST", PODS, { ...pod("p", { creationTimestamp: "2000-01-01T00:00:00Z" }) });
    expect(c.body.metadata.creationTimestamp).toBe("2026-05-05T05:05:05Z");
  });
});

describe("quantities", () => {
  it.each([
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1536Mi", "1536Mi"],
    ["0.5Gi", "512Mi"],
    ["1000M", "1G"],
    ["1500M", "1500M"],
    ["0.5", "500m"],
    ["100m", "100m"],
    ["1", "1"],
    ["1000", "1k"],
    ["512", "512"],
    ["0.5Ki", "512"],
    ["1e3", "1e3"],
    ["1.5e3", "1500"],
    ["0", "0"],
    ["0Gi", "0"],
    ["-1Gi", "-1Gi"],
    [2, "2"],
    ["0.1Gi", "107374182400m"],
    // Upstream's scanner reads a bare suffix as zero, and keeps an already canonical input as written.
    ["Gi", "0"],
    ["+1", "+1"],
  ])("%j -> %j", (input, want) => {
    expect(canonicalQuantity(input)).toBe(want);
  });

  it.each(["", "1Q", "1.2.3", "abc", "1 Gi"])("%j is not a quantity", (input) => {
    expect(() => parseQuantity(input)).toThrow(/quantities must match/);
  });

  it("canonical form is stable and preserves the value (property)", () => {
    const suffix = fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100000 }), suffix, (n, s) => {
        const q = `${n}${s}`;
        const c = canonicalQuantity(q);
        expect(canonicalQuantity(c)).toBe(c);
        expect(compareQuantities(q, c)).toBe(0);
      }),
    );
  });

  it("are canonicalized in pod resources and claims on write", async () => {
    const { call } = setup();
    const r = await call("POST", PODS, pod("p", {}, { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "0.25", memory: "131072Ki" } } }] }));
    expect(r.body.spec.containers[0].resources.requests).toEqual({ cpu: "250m", memory: "128Mi" });
    const bad = await call("POST", PODS, pod("q", {}, { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "lots" } } }] }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression/);
  });
});
