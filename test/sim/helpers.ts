/** Test helpers for the fake apiserver: a tiny JSON client over its fetch. */
import { createFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

export const BASE = "https://fake.local";

/** Json is a parsed response body, read freely in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

interface Reply<T = Json> {
  status: number;
  body: T;
  headers: Headers;
}

export type Call = <T = Json>(method: string, path: string, body?: unknown, contentType?: string) => Promise<Reply<T>>;

/** caller returns a function doing one JSON request against the fake. */
export function caller(server: FakeApiServer): Call {
  return async (method, path, body, contentType) => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "Content-Type": contentType ?? (method === "PATCH" ? "application/merge-patch+json" : "application/json") };
    }
    const res = await server.fetch(BASE + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // text bodies (readyz, 404 page not found)
    }
    return { status: res.status, body: parsed as never, headers: res.headers };
  };
}

/** setup starts a fake with a fixed clock by default and returns it with a caller. */
export function setup(options: FakeApiServerOptions = {}): { server: FakeApiServer; call: Call; clock: { now: Date; advance(seconds: number): void } } {
  const clock = {
    now: new Date("2026-01-02T03:04:05.678Z"),
    advance(seconds: number) {
      clock.now = new Date(clock.now.getTime() + seconds * 1000);
    },
  };
  const server = createFakeApiServer({ now: () => clock.now, seed: 42, ...options });
  return { server, call: caller(server), clock };
}

export const pod = (name: string, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, ...extra },
  spec: { containers: [{ name: "c", image: "img:1" }], ...spec },
});

export const ordinalSet = (name: string, replicas = 1) => setManifest({ name, namespace: null, replicas });

export const PODS = "/api/v1/namespaces/default/pods";
export const CMS = "/api/v1/namespaces/default/configmaps";
export const PVCS = "/api/v1/namespaces/default/persistentvolumeclaims";
export const OSTS = "/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets";
export const STS = "/apis/apps/v1/namespaces/default/statefulsets";
