import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startObserver, type FaultWindow, type Violation } from "./index.ts";
import { RULES } from "./types.ts";

const open: ServerResponse[] = [];
let close = async () => {};
afterEach(() => close());

/** fakeApiserver answers the observer's four lists, and streams `watch` events on the pods' watch (the other watches stay open and silent). */
async function fakeApiserver(lists: Record<string, object[]>, podEvents: object[]): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    const path = url.pathname;
    if (req.headers.authorization !== "Bearer t") return void res.writeHead(401).end();
    res.writeHead(200, { "Content-Type": "application/json" });
    if (!url.searchParams.has("watch")) return void res.end(JSON.stringify({ metadata: { resourceVersion: "1" }, items: lists[path] ?? [] }));
    open.push(res);
    if (path === "/api/v1/pods") for (const e of podEvents) res.write(JSON.stringify(e) + "\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  close = async () => {
    for (const res of open.splice(0)) res.end();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("startObserver", () => {
  it("lists and watches through the apiserver, judges the events, tails the audit log and reports", async () => {
    const owner = [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "u-web", controller: true }];
    const set = { metadata: { name: "web", namespace: "ns", uid: "u-web", resourceVersion: "1", generation: 1 }, spec: { replicas: 2 } };
    const lease = { metadata: { name: "ordinal-reconciler", namespace: "ordinal-system", resourceVersion: "1" }, spec: { holderIdentity: "node-b", renewTime: new Date().toISOString(), leaseDurationSeconds: 30 } };
    const apiUrl = await fakeApiserver(
      { "/apis/apps.ordinal.dev/v1/statefulsets": [set], "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases": [lease] },
      // web-1 before web-0 exists: OrderedReady's violation.
      [{ type: "ADDED", object: { metadata: { name: "web-1", namespace: "ns", uid: "u1", resourceVersion: "3", ownerReferences: owner }, status: { phase: "Pending" } } }],
    );
    const audit = join(mkdtempSync(join(tmpdir(), "observer-")), "audit.log");
    writeFileSync(audit, "");
    let found: (v: Violation) => void = () => {};
    const first = new Promise<Violation>((r) => (found = r));
    const obs = startObserver({ apiUrl, token: "t", namespaces: ["ns"], leaseNamespace: "ordinal-system", auditLogPath: audit, injected: (): FaultWindow[] => [], settleMs: 20, onViolation: (v) => found(v) });
    expect((await first).rule).toBe(RULES.orderedCreate);
    appendFileSync(audit, JSON.stringify({ stage: "ResponseComplete", verb: "create", userAgent: "ordinal/node-a", objectRef: { resource: "pods", namespace: "ns", name: "web-0" }, responseStatus: { code: 201 }, requestReceivedTimestamp: new Date().toISOString() }) + "\n");
    const report = await obs.stop();
    expect(report.violations.map((v) => [v.rule, v.object])).toEqual([
      [RULES.orderedCreate, "ns/web-1"],
      [RULES.staleWrite, "pods ns/web-0"],
    ]);
    expect(report.events).toBe(2);
    expect(report.lateEvents).toBe(0);
    expect(obs.converged("ns", "web")).toBe(false);
  });
});
