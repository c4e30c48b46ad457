/**
 * The streaming list decoder (src/kube/list-stream.ts, issue 35): a list body cut anywhere gives
 * the items and the list metadata JSON.parse gives, holding one item's text at a time.
 */
import { describe, expect, it } from "vitest";
import { ListScanner, readListBody } from "../../src/kube/list-stream.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { mulberry32 } from "../reconciler/chaos.ts";

/** scan feeds `text` cut at `cuts` and returns the items and the top-level fields. */
function scan(text: string, cuts: number[]): { items: unknown[]; top: Record<string, unknown>; maxHeld: number } {
  const items: unknown[] = [];
  const scanner = new ListScanner((i) => items.push(i));
  let from = 0;
  let maxHeld = 0;
  for (const at of [...cuts, text.length]) {
    scanner.feed(text.slice(from, at));
    maxHeld = Math.max(maxHeld, scanner.heldChars);
    from = at;
  }
  return { items, top: scanner.end(), maxHeld };
}

const tricky = [
  { metadata: { name: "a", annotations: { q: 'say "hi" {not: [an, object]}', slash: "c:\\\\path\\\\", esc: "\\\"]},", uni: "ünïcødé ✓ 🚀" } }, spec: { n: [1, 2.5, -3e2, true, false, null], nested: [[{}], []] } },
  { metadata: { name: "b" }, data: "]}],{[" },
  "a string item, with a comma",
  42,
  null,
  [],
];
const doc = (items: unknown[], indent?: number) =>
  JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "12", continue: "tok\"en" }, items, after: { x: [1, { y: "}" }] } }, null, indent);

describe("ListScanner", () => {
  it.each([0, 2])("gives JSON.parse's items and top-level fields for a body cut at every point (indent %i)", (indent) => {
    const text = doc(tricky, indent);
    const want = JSON.parse(text) as Record<string, unknown>;
    const { items: _items, ...top } = want;
    for (let at = 0; at <= text.length; at++) {
      const got = scan(text, [at]);
      expect(got.items, `cut at ${at}`).toEqual(want.items);
      expect(got.top, `cut at ${at}`).toEqual(top);
    }
  });

  it("gives the same for random cuts into many pieces (seeded)", () => {
    const rnd = mulberry32(7);
    const text = doc([...tricky, ...tricky, { empty: {} }]);
    for (let run = 0; run < 200; run++) {
      const cuts = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => Math.floor(rnd() * text.length)).sort((a, b) => a - b);
      expect(scan(text, cuts).items).toEqual(JSON.parse(text).items);
    }
  });

  it("holds one item's text and one chunk, not the page", () => {
    const big = (i: number) => ({ metadata: { name: `pod-${i}` }, spec: { containers: [{ name: "c", env: [{ name: "E", value: "x".repeat(100_000) }] }] } });
    const text = doc(Array.from({ length: 50 }, (_, i) => big(i)));
    const chunk = 16 * 1024;
    const cuts = Array.from({ length: Math.floor(text.length / chunk) }, (_, i) => (i + 1) * chunk);
    const got = scan(text, cuts);
    expect(got.items).toHaveLength(50);
    expect(text.length).toBeGreaterThan(5_000_000);
    expect(got.maxHeld).toBeLessThan(JSON.stringify(big(0)).length + 2 * chunk);
  });

  it.each([
    ["cut short", doc(tricky).slice(0, -5)],
    ["a bad item", '{"items":[{"a":1},{"b":}]}'],
    ["a bracket too many", '{"items":[]}]'],
  ])("throws on a malformed body: %s", (_, text) => {
    expect(() => scan(text, [])).toThrow(SyntaxError);
  });
});

describe("readListBody and the client's lists", () => {
  it("cancels a body it stops reading (onItem threw: a budget), so the connection is let go, and rethrows", async () => {
    let cancelled: unknown;
    const text = `{"kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(text));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const overBudget = new Error("over budget");
    await expect(
      readListBody(body, () => {
        throw overBudget;
      }),
    ).rejects.toBe(overBudget);
    expect(cancelled).toBe(overBudget);
  });

  it("reads a streamed body in byte chunks that split multi-byte characters", async () => {
    const text = doc(tricky);
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
        c.close();
      },
    });
    const items: unknown[] = [];
    const top = await readListBody(body, (i) => items.push(i));
    expect(items).toEqual(tricky);
    expect(top.metadata).toEqual({ resourceVersion: "12", continue: 'tok"en' });
  });

  it("applies keep, then project, to each item of every page", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    for (let i = 0; i < 7; i++) fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: `p${i}`, namespace: "default" }, spec: { containers: [{ name: "c", image: "x" }] } });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
    const got = await client.list(R.pods, "default", { limit: 2, keep: (p) => p.metadata?.name !== "p3", project: (p) => ({ metadata: { name: p.metadata?.name } }) });
    expect(got).toEqual(["p0", "p1", "p2", "p4", "p5", "p6"].map((name) => ({ metadata: { name } })));
    expect(fake.log.count({ verb: "list", resource: "pods" })).toBe(4);
  });
});
