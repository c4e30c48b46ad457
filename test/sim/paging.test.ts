/** limit/continue paging: token format, consistent pages, remainingItemCount, expiry. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CMS, setup, type Call } from "./helpers.ts";

async function fill(call: Call, n: number, labels: (i: number) => Record<string, string> = () => ({})) {
  for (let i = 0; i < n; i++) await call("POST", CMS, { metadata: { name: `cm-${String(i).padStart(3, "0")}`, labels: labels(i) } });
}

const names = (items: { metadata: { name: string } }[]) => items.map((i) => i.metadata.name);

describe("paging", () => {
  it("pages by limit with the apiserver's continue token and remainingItemCount", async () => {
    const { call } = setup();
    await fill(call, 5);
    const first = await call("GET", `${CMS}?limit=2`);
    expect(names(first.body.items)).toEqual(["cm-000", "cm-001"]);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const token = JSON.parse(atob(first.body.metadata.continue.replace(/-/g, "+").replace(/_/g, "/")));
    expect(token).toEqual({ v: "meta.k8s.io/v1", rv: Number(first.body.metadata.resourceVersion), start: "cm-001\u0000" });
    const second = await call("GET", `${CMS}?limit=2&continue=${first.body.metadata.continue}`);
    expect(names(second.body.items)).toEqual(["cm-002", "cm-003"]);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const third = await call("GET", `${CMS}?limit=2&continue=${second.body.metadata.continue}`);
    expect(names(third.body.items)).toEqual(["cm-004"]);
    expect(third.body.metadata.continue).toBeUndefined();
  });

  it("later pages read the state of the first page (consistent list)", async () => {
    const { call } = setup();
    await fill(call, 4);
    const first = await call("GET", `${CMS}?limit=2`);
    await call("DELETE", `${CMS}/cm-003`);
    await call("POST", CMS, { metadata: { name: "cm-999" } });
    const rest = await call("GET", `${CMS}?limit=10&continue=${first.body.metadata.continue}`);
    expect(names(rest.body.items)).toEqual(["cm-002", "cm-003"]);
    const fresh = await call("GET", CMS);
    expect(names(fresh.body.items)).toEqual(["cm-000", "cm-001", "cm-002", "cm-999"]);
  });

  it("with a selector, fills pages with matches and omits remainingItemCount", async () => {
    const { call } = setup();
    await fill(call, 6, (i) => ({ even: String(i % 2 === 0) }));
    const first = await call("GET", `${CMS}?limit=2&labelSelector=even%3Dtrue`);
    expect(names(first.body.items)).toEqual(["cm-000", "cm-002"]);
    expect(first.body.metadata.remainingItemCount).toBeUndefined();
    const rest = await call("GET", `${CMS}?limit=2&labelSelector=even%3Dtrue&continue=${first.body.metadata.continue}`);
    expect(names(rest.body.items)).toEqual(["cm-004"]);
  });

  it("pages across namespaces by namespace/name key", async () => {
    const { call } = setup({ namespaces: ["a", "b"] });
    for (const ns of ["a", "b"]) for (const n of ["x", "y"]) await call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: n } });
    const first = await call("GET", "/api/v1/configmaps?limit=3");
    expect(first.body.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["a/x", "a/y", "b/x"]);
    const token = JSON.parse(atob(first.body.metadata.continue.replace(/-/g, "+").replace(/_/g, "/")));
    expect(token.start).toBe("b/x\u0000");
    const rest = await call("GET", `/api/v1/configmaps?limit=3&continue=${first.body.metadata.continue}`);
    expect(rest.body.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace)).toEqual(["b"]);
  });

  it("a token whose snapshot is gone is 410 Expired", async () => {
    const { call } = setup();
    await fill(call, 3);
    const first = await call("GET", `${CMS}?limit=1`);
    const token = JSON.parse(atob(first.body.metadata.continue.replace(/-/g, "+").replace(/_/g, "/")));
    const old = btoa(JSON.stringify({ ...token, rv: 1 })).replace(/=+$/, "");
    const r = await call("GET", `${CMS}?limit=1&continue=${old}`);
    expect(r.status).toBe(410);
    expect(r.body.reason).toBe("Expired");
  });

  it("a malformed token is 400", async () => {
    const { call } = setup();
    const r = await call("GET", `${CMS}?continue=${btoa('{"v":"x"}')}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^invalid continue token/);
  });

  it("following continue tokens yields the unpaged list for any page size (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 5 }), fc.boolean(), async (n, limit, select) => {
        const { call } = setup();
        await fill(call, n, (i) => ({ keep: String(i % 3 !== 0) }));
        const q = select ? "&labelSelector=keep%3Dtrue" : "";
        const all = names((await call("GET", `${CMS}?${q}`)).body.items);
        const paged: string[] = [];
        let cont = "";
        for (let guard = 0; guard < 50; guard++) {
          const page = await call("GET", `${CMS}?limit=${limit}${q}${cont ? `&continue=${cont}` : ""}`);
          expect(page.body.items.length).toBeLessThanOrEqual(limit);
          paged.push(...names(page.body.items));
          cont = page.body.metadata.continue ?? "";
          if (!cont) break;
        }
        expect(paged).toEqual(all);
      }),
      { numRuns: 40 },
    );
  });
});
