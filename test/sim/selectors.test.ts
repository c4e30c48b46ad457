/** Label and field selectors: the parser's accepted syntax and errors, and matching. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/sim/fake-apiserver/errors.ts";
import { matchesLabels, parseFieldSelector, parseLabelSelector } from "../../src/sim/fake-apiserver/selectors.ts";
import { CMS, PODS, pod, setup } from "./helpers.ts";

const labels = { app: "web", tier: "front", n: "5", empty: "" };

describe("parseLabelSelector + matchesLabels", () => {
  it.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app = web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db)", true],
    ["missing notin (db)", true],
    ["app notin (web)", false],
    ["app", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["app=web,tier=front", true],
    ["app=web,tier=back", false],
    ["empty=", true],
    ["empty in (,x)", true],
    ["n>4", true],
    ["n<5", false],
    ["missing>1", false],
    ["example.com/key", false],
    ["in in (in)", false],
    ["empty in ()", true],
    ["app in ()", false],
  ])("%j matches: %s", (sel, want) => {
    expect(matchesLabels(parseLabelSelector(sel), labels)).toBe(want);
  });

  it.each([
    ["a in (", "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ["a=b,", "found '', expected: identifier after ','"],
    ["a b", "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'"],
    ["!a=b", "found '=', expected: ',' or 'end of string'"],
    ["a===b", "unable to parse requirement: found '=', expected: identifier"],
    ["x=y,,z", "found ',', expected: identifier after ','"],
    ["=a", "found '=', expected: !, identifier, or 'end of string'"],
    ["a=(b)", "unable to parse requirement: found '(', expected: identifier"],
    ["a in b", "unable to parse requirement: found 'b' expected: '('"],
    ["n>x", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"],
    ["a=b c", "found 'c', expected: ',' or 'end of string'"],
  ])("%j is a 400 (messages checked against kube-apiserver 1.20): %s", (sel, message) => {
    let err: unknown;
    try {
      parseLabelSelector(sel);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
    expect((err as ApiError).status.message).toBe(message);
  });

  it("rejects invalid keys and values", () => {
    expect(() => parseLabelSelector("bad key=x")).toThrow(ApiError);
    expect(() => parseLabelSelector("a=b@d")).toThrow(/invalid label value/);
    expect(() => parseLabelSelector(`a=${"x".repeat(64)}`)).toThrow(/must be no more than 63 characters/);
  });

  it("equality selectors built from any labels match exactly those labels (property)", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    const value = fc.stringMatching(/^[a-z0-9]{0,8}$/);
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1 }), fc.dictionary(key, value), (want, other) => {
        const sel = parseLabelSelector(Object.entries(want).map(([k, v]) => `${k}=${v}`).join(","));
        expect(matchesLabels(sel, want)).toBe(true);
        const mixed = { ...want, ...other };
        const same = Object.entries(want).every(([k, v]) => mixed[k] === v);
        expect(matchesLabels(sel, mixed)).toBe(same);
      }),
    );
  });
});

describe("parseFieldSelector", () => {
  it("reads =, == and != terms, with escaped commas", () => {
    expect(parseFieldSelector("metadata.name=a,status.phase!=Running,spec.nodeName==n")).toEqual([
      { field: "metadata.name", op: "=", value: "a" },
      { field: "status.phase", op: "!=", value: "Running" },
      { field: "spec.nodeName", op: "=", value: "n" },
    ]);
    expect(parseFieldSelector("metadata.name=a\\,b")).toEqual([{ field: "metadata.name", op: "=", value: "a,b" }]);
  });

  it("refuses terms without an operator", () => {
    expect(() => parseFieldSelector("metadata.name")).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });
});

describe("selectors on LIST", () => {
  it("filters pods by labels and by pod fields", async () => {
    const { call, server } = setup();
    await call("POST", "/api/v1/nodes", { metadata: { name: "n1" } });
    await call("POST", PODS, pod("a", { labels: { app: "web" } }));
    await call("POST", PODS, pod("b", { labels: { app: "db" } }));
    await call("POST", `${PODS}/a/binding`, { metadata: { name: "a" }, target: { name: "n1" } });
    const names = async (q: string) => (await call("GET", `${PODS}?${q}`)).body.items.map((p: { metadata: { name: string } }) => p.metadata.name);
    expect(await names("labelSelector=app%3Dweb")).toEqual(["a"]);
    expect(await names("labelSelector=app%20notin%20(web)")).toEqual(["b"]);
    expect(await names("fieldSelector=spec.nodeName%3Dn1")).toEqual(["a"]);
    expect(await names("fieldSelector=spec.nodeName%3D")).toEqual(["b"]);
    expect(await names("fieldSelector=status.phase%3DPending,metadata.name!%3Da")).toEqual(["b"]);
    expect(await names("fieldSelector=metadata.namespace%3Ddefault")).toEqual(["a", "b"]);
    expect(server.list<{ metadata: { name: string } }>(PODS, { labelSelector: "app=db" }).map((p) => p.metadata.name)).toEqual(["b"]);
  });

  it("field selectors of all namespaces narrow by namespace", async () => {
    const { call } = setup({ namespaces: ["default", "other"] });
    await call("POST", CMS, { metadata: { name: "a" } });
    await call("POST", "/api/v1/namespaces/other/configmaps", { metadata: { name: "a" } });
    const r = await call("GET", "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother");
    expect(r.body.items.map((c: { metadata: { namespace: string } }) => c.metadata.namespace)).toEqual(["other"]);
  });

  it("unknown field selectors are 400, worded per kind", async () => {
    const { call } = setup();
    expect((await call("GET", `${CMS}?fieldSelector=spec.x%3D1`)).body.message).toBe('"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect((await call("GET", `${PODS}?fieldSelector=spec.x%3D1`)).body.message).toBe("field label not supported: spec.x");
  });
});
