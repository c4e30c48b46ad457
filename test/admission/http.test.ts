import { describe, expect, it, vi } from "vitest";
import { MAX_OBJECT_VALUES } from "../../src/admission/limits.ts";
import { mutatePodFailed } from "../../src/admission/mutate-pods.ts";
import { validateImageListRequest } from "../../src/admission/validate-imagelists.ts";
import { validateStatefulSetRequest } from "../../src/admission/validate-statefulsets.ts";
import { decodePatch } from "../../src/admission/patch.ts";
import { generateWebhookKeys, issueWebhookToken } from "../../src/auth/token.ts";
import { parseSubjectAltName, type ClientCertificate } from "../../src/auth/webhook-auth.ts";
import { WEBHOOK_PATHS, webhookConfigurations } from "../../src/webhook-config/webhook-configs.ts";
import type { Wake } from "../../src/admission/wakes.ts";
import { INPLACE_READY_CONDITION, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { createApp, MAX_BODY_BYTES } from "../../src/http/app.ts";
import { handMadePod, imageListKind, memoryLogger, osts, RECONCILER, request, review, sampleSet } from "./helpers.ts";
import { lookupStatefulSetWith } from "../../src/admission/lookup.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { readReview, testApp } from "./test-app.ts";

const podCreate = (pod = handMadePod("web-1")) => review(request({ object: pod, name: pod.metadata?.name }));

describe("createApp: routes", () => {
  it("GET /healthz and / answer without a token", async () => {
    const { app } = await testApp();
    const h = await app.request("/healthz");
    expect(h.status).toBe(200);
    expect(await h.text()).toBe("ok");
    const root = await app.request("/");
    expect(root.status).toBe(200);
    expect(await root.json()).toMatchObject({ name: "ordinal", webhooks: Object.values(WEBHOOK_PATHS) });
  });

  it("serves every path the webhook configurations name", async () => {
    const t = await testApp();
    const paths = webhookConfigurations({ url: "https://h" }, { validateAppsV1StatefulSets: true }).flatMap((c) =>
      (c.object.webhooks ?? []).map((w) => new URL(w.clientConfig.url!).pathname),
    );
    expect(new Set(paths)).toEqual(new Set(Object.values(WEBHOOK_PATHS)));
    for (const path of paths) {
      const res = await t.post(path, "{}");
      expect(res.status, path).toBe(400); // routed and authenticated: the body is what is wrong
    }
  });

  it("unknown paths are a JSON 404", async () => {
    const t = await testApp();
    const res = await t.post("/mutate/deployments", podCreate());
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "NotFound" });
  });
});

describe("createApp: authentication", () => {
  it("refuses a request without a token, or with a bad one, with 401 and no trace of the token in the log", async () => {
    const t = await testApp();
    const other = await issueWebhookToken({ privateKeyPem: (await generateWebhookKeys()).privateKeyPem });
    const expired = await issueWebhookToken({ privateKeyPem: t.privateKeyPem, ttl: -300 });
    const variants: [string, Record<string, string>][] = [
      ["no header", { authorization: "" }],
      ["not bearer", { authorization: `Basic ${btoa("a:b")}` }],
      ["garbage", { authorization: "Bearer abc.def.ghi" }],
      ["other key", { authorization: `Bearer ${other}` }],
      ["expired", { authorization: `Bearer ${expired}` }],
    ];
    for (const [name, headers] of variants) {
      const h = new Headers({ "content-type": "application/json", ...headers });
      if (headers.authorization === "") h.delete("authorization");
      const res = await t.app.request(WEBHOOK_PATHS.mutatePods, { method: "POST", headers: h, body: JSON.stringify(podCreate()) });
      expect(res.status, name).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ error: "Unauthorized" });
    }
    const logged = JSON.stringify(t.log.lines);
    for (const tok of [t.token, other, expired]) expect(logged).not.toContain(tok.split(".")[2]);
  });

  it("verifies against a PEM public key too, and EdDSA", async () => {
    const keys = await generateWebhookKeys("EdDSA");
    const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
    const app = createApp({ auth: { jwt: { publicKeyPem: keys.publicKeyPem } }, reconcilerUsername: RECONCILER, validateAppsV1StatefulSets: false, log: memoryLogger() });
    const res = await app.request(WEBHOOK_PATHS.validatePods, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: "{}" });
    expect(res.status).toBe(400);
  });

  it("accepts a verified client certificate when mTLS is on, and only then", async () => {
    let cert: ClientCertificate | undefined;
    const app = createApp({
      auth: { mtlsClientNames: ["kube-apiserver-webhook-client"] },
      clientCertificate: () => cert,
      reconcilerUsername: RECONCILER,
      validateAppsV1StatefulSets: false,
      log: memoryLogger(),
    });
    const post = () => app.request(WEBHOOK_PATHS.validatePods, { method: "POST", body: "{}" });
    expect((await post()).status).toBe(401);
    cert = { cn: "kube-apiserver-webhook-client", sans: [] };
    expect((await post()).status).toBe(400);
    cert = { cn: "x", sans: ["kube-apiserver-webhook-client"] };
    expect((await post()).status).toBe(400);
    // Issue 11 finding 6: any certificate the CA signed used to pass; now only the expected names.
    cert = { cn: "some-other-client", sans: ["else.example"] };
    const refused = await post();
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/include none of the expected/);
  });

  it("parses Node's subjectaltname", () => {
    expect(parseSubjectAltName("DNS:a.example, IP Address:127.0.0.1, URI:spiffe://x/y, email:a@b")).toEqual(["a.example", "127.0.0.1", "spiffe://x/y"]);
    expect(parseSubjectAltName(undefined)).toEqual([]);
  });

  // Issue 11 finding 9 (the Worker, which cannot refuse to start): a clear 503, not 401 to everyone.
  it("an unusable public key answers 503 saying so, and logs it", async () => {
    const keys = await generateWebhookKeys();
    const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
    const log = memoryLogger();
    const app = createApp({ auth: { jwt: { publicKeyPem: "garbage" } }, reconcilerUsername: RECONCILER, validateAppsV1StatefulSets: false, log });
    const res = await app.request(WEBHOOK_PATHS.validatePods, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: "{}" });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ message: expect.stringMatching(/public key is unusable.*WEBHOOK_PUBLIC_KEY/) });
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "webhook public key is unusable" }));
  });

  it("refuses to start without an authentication method", () => {
    const base = { reconcilerUsername: RECONCILER, validateAppsV1StatefulSets: false, log: memoryLogger() };
    expect(() => createApp({ ...base, auth: {} })).toThrow(/authentication is not configured/);
    expect(() => createApp({ ...base, auth: { mtlsClientNames: ["a"] } })).toThrow(/clientCertificate/);
    expect(() => createApp({ ...base, auth: { mtlsClientNames: [] }, clientCertificate: () => undefined })).toThrow(/WEBHOOK_MTLS_CLIENT_NAMES/);
  });
});

describe("createApp: hard edges", () => {
  it("answers 413 to a body over 3 MiB, with or without Content-Length", async () => {
    const t = await testApp();
    const big = JSON.stringify({ ...podCreate(), padding: "x".repeat(MAX_BODY_BYTES) });
    const res = await t.post(WEBHOOK_PATHS.mutatePods, big);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "PayloadTooLarge" });
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (let i = 0; i < bytes.length; i += 65536) ctrl.enqueue(bytes.subarray(i, i + 65536));
        ctrl.close();
      },
    });
    const chunked = await t.app.request(WEBHOOK_PATHS.mutatePods, {
      method: "POST",
      headers: { authorization: `Bearer ${t.token}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("a body just under the limit is served", async () => {
    const t = await testApp();
    const body = JSON.stringify(podCreate());
    const padded = body.slice(0, -1) + `,"padding":"${"x".repeat(MAX_BODY_BYTES - body.length - 20)}"}`;
    expect(padded.length).toBeLessThan(MAX_BODY_BYTES);
    expect((await t.post(WEBHOOK_PATHS.mutatePods, padded)).status).toBe(200);
  });

  const bad: [string, string, unknown, RegExp][] = [
    ["malformed JSON", WEBHOOK_PATHS.mutatePods, "{", /request body is not JSON/],
    ["empty body", WEBHOOK_PATHS.mutatePods, "", /request body is not JSON/],
    ["a v1beta1 review", WEBHOOK_PATHS.mutatePods, { ...podCreate(), apiVersion: "admission.k8s.io/v1beta1" }, /not an AdmissionReview.*apiVersion: Invalid input: expected "admission\.k8s\.io\/v1"/],
    ["no request", WEBHOOK_PATHS.validatePods, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, /request: Invalid input: expected object, received undefined/],
    [
      "CREATE without object",
      WEBHOOK_PATHS.mutatePods,
      review({ uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE", userInfo: {} }),
      /request\.object: required for CREATE/,
    ],
    [
      "UPDATE without oldObject",
      WEBHOOK_PATHS.validatePods,
      review({ uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "UPDATE", userInfo: {}, object: {} }),
      /request\.oldObject: required for UPDATE/,
    ],
    [
      "UPDATE with neither object",
      WEBHOOK_PATHS.validatePods,
      review({ uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "UPDATE", userInfo: {} }),
      /request\.object: required for UPDATE.*request\.oldObject: required for UPDATE/,
    ],
    [
      "a Deployment sent to the pod hook",
      WEBHOOK_PATHS.mutatePods,
      review(request({ kind: { group: "apps", version: "v1", kind: "Deployment" }, object: {} })),
      /\/mutate\/pods handles Pod, not Deployment\.apps/,
    ],
    ["a Pod sent to the StatefulSet hook", WEBHOOK_PATHS.validateStatefulSets, podCreate(), /handles StatefulSet\.apps\.ordinal\.dev, StatefulSet\.apps, not Pod/],
    ["a StatefulSet sent to the ImageList hook", WEBHOOK_PATHS.validateImageLists, review(request({ kind: osts, object: {} })), /handles ImageList\.apps\.ordinal\.dev/],
  ];
  for (const [name, path, body, message] of bad) {
    it(`400 for ${name}`, async () => {
      const t = await testApp();
      const res = await t.post(path, body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: string; message: string };
      expect(json.error).toBe("BadRequest");
      expect(json.message).toMatch(message);
    });
  }

  // Issue 11 finding 4: a failing mutation used to admit a pod of a set without its identity.
  it("a throwing mutating handler denies a pod of an Ordinal set (never admits it without its identity), and logs it", async () => {
    const t = await testApp({
      lookupStatefulSet: async () => {
        throw new Error("apiserver unreachable");
      },
    });
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutatePods, podCreate()));
    expect(r.response).toMatchObject({ allowed: false, status: { code: 500, message: expect.stringMatching(/mutating webhook failed \(apiserver unreachable\).*refused rather than created without its identity/) } });
    expect(r.response.patch).toBeUndefined();
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "admission handler failed" }));
    expect(mutatePodFailed(request({ object: { metadata: { name: "x" } } }), "boom").response).toMatchObject({ allowed: true, warnings: [expect.stringMatching(/boom/)] });
  });

  it("G4: a set CREATE review never enters the mutating hook's set cache: a forged one carrying the victim's uid leaves the victim's next pod its stored identity", async () => {
    const gets: string[] = [];
    const stored = { ...structuredClone(sampleSet()), metadata: { name: "web", namespace: "default", uid: "uid-web" } };
    const lookup = lookupStatefulSetWith({ get: async (_r: unknown, ns: string, name: string) => (gets.push(`${ns}/${name}`), structuredClone(stored)) } as unknown as KubeClient);
    const t = await testApp({ lookupStatefulSet: lookup });
    const forged = { ...structuredClone(sampleSet({ serviceName: "evil", claims: ["evil"] })), metadata: { name: "web", namespace: "default", uid: "uid-web" } };
    const admitted = await readReview(await t.post(WEBHOOK_PATHS.validateStatefulSets, review(request({ kind: osts, name: "web", object: forged }))));
    expect(admitted.response.allowed).toBe(true);
    const pod = newStatefulSetPod({ ...sampleSet(), metadata: { ...sampleSet().metadata, uid: "uid-web" } }, 0, "r1");
    delete pod.spec!.subdomain;
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutatePods, review(request({ object: pod, name: "web-0", userInfo: { username: RECONCILER } }))));
    expect(gets).toEqual(["default/web"]);
    const patch = JSON.stringify(decodePatch(r.response.patch!));
    expect(patch).toContain('"value":"web"');
    expect(patch).not.toContain("evil");
  });

  it("answers a well-formed deny to an object nested thousands deep (no stack overflow, no admit)", async () => {
    const t = await testApp();
    const deep = `${"[".repeat(20_000)}"x"${"]".repeat(20_000)}`;
    for (const [path, kind] of [
      [WEBHOOK_PATHS.mutatePods, { group: "", version: "v1", kind: "Pod" }],
      [WEBHOOK_PATHS.validatePods, { group: "", version: "v1", kind: "Pod" }],
      [WEBHOOK_PATHS.validateStatefulSets, osts],
    ] as const) {
      const obj = kind.kind === "Pod" ? handMadePod("web-0") : sampleSet();
      const body = JSON.stringify(
        review({ uid: "u-deep", kind, resource: { group: kind.group, version: "v1", resource: "x" }, operation: "CREATE", userInfo: { username: "admin" }, object: { ...obj, deep: "DEEP" } }),
      ).replace('"DEEP"', deep);
      const r = await readReview(await t.post(path, body));
      expect(r.response).toMatchObject({ uid: "u-deep", allowed: false, status: { code: 400, message: expect.stringMatching(/nested deeper than 100/) } });
    }
    const res = await t.post(WEBHOOK_PATHS.mutatePods, `{"deep":${deep}}`);
    expect(res.status).toBe(400);
  });

  // A container over MAX_OBJECT_VALUES in a judged object is parsed as a stand-in (src/http/app.ts,
  // readBody): the answer must be the handler's answer to the object as sent.
  it("answers a crowded StatefulSet or ImageList exactly as its handler answers the object as sent", async () => {
    const t = await testApp();
    const many = MAX_OBJECT_VALUES + 1;
    const keys = <T,>(n: number, v: T): Record<string, T> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k ${i}`, v]));
    const set = (edit: (s: ReturnType<typeof sampleSet>) => void) => {
      const s = sampleSet();
      edit(s);
      return s;
    };
    const cases = [
      set((s) => (s.spec.template.metadata!.labels = keys(many, "v"))),
      set((s) => (s.spec.template.spec!.containers = Array.from({ length: many }, (_, i) => ({ name: `c${i}`, image: "" })))),
      set((s) => (s.metadata.annotations = keys(many, "v"))),
      set((s) => (s.metadata.annotations = { ...keys(many, "v"), long: "x".repeat(70_000) })), // a long string too: parsed as sent
      set((s) => ((s.metadata as Record<string, unknown>).managedFields = [keys(many, {})])), // not measured: parsed as sent, admitted
      set((s) => (s.spec.template.spec!.containers[0].env = [{ name: "A", value: "1" }, ...Array.from({ length: 100 }, () => ({ name: "B", valueFrom: keys(60, 1) }))])),
    ];
    for (const obj of cases)
      for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
        const req = request({ kind: osts, operation, object: obj, oldObject: operation === "CREATE" ? undefined : sampleSet(), name: "web" });
        const r = await readReview(await t.post(WEBHOOK_PATHS.validateStatefulSets, review(req)));
        expect(r.response).toEqual(validateStatefulSetRequest(structuredClone(req), { validateAppsV1StatefulSets: false }).response);
      }
    const list = { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "pre", namespace: "default" }, spec: { images: Object.fromEntries(Array.from({ length: many }, (_, i) => [`img:${i}`, {}])) } };
    const req = request({ kind: imageListKind, object: list, name: "pre" });
    const r = await readReview(await t.post(WEBHOOK_PATHS.validateImageLists, review(req)));
    expect(r.response).toEqual(validateImageListRequest(structuredClone(req)).response);
    expect(r.response.status?.message).toMatch(/more than 5000 JSON values/);
  });

  it("a throwing validating handler denies, and logs it", async () => {
    const t = await testApp();
    // Hostile JSON no longer makes the pod handler throw; a throwing dependency stands in for a bug.
    Object.defineProperty(t.deps, "reconcilerUsername", {
      get() {
        throw new Error("boom");
      },
    });
    const broken = { metadata: { name: "web-0", labels: { [SET_NAME_LABEL]: "web" }, ownerReferences: "oops" }, spec: {} };
    const r = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ operation: "UPDATE", object: broken, oldObject: broken }))));
    expect(r.response.allowed).toBe(false);
    expect(r.response.status).toMatchObject({ code: 500, reason: "InternalError", message: expect.stringMatching(/^Ordinal's webhook failed: /) });
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "admission handler failed" }));
  });
});

describe("createApp: admission", () => {
  it("mutates a pod: uid echoed, base64 JSONPatch, logged", async () => {
    const t = await testApp();
    const body = podCreate();
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutatePods, body));
    expect(r.response.uid).toBe(body.request.uid);
    expect(r.response).toMatchObject({ allowed: true, patchType: "JSONPatch" });
    const ops = decodePatch(r.response.patch!);
    expect(ops).toContainEqual({ op: "add", path: "/spec/readinessGates", value: [{ conditionType: INPLACE_READY_CONDITION }] });
    expect(t.log.lines).toContainEqual(
      expect.objectContaining({ level: "debug", msg: "admission", fields: expect.objectContaining({ uid: body.request.uid, allowed: true, patched: true }) }),
    );
  });

  it("an already-correct pod gets no patch", async () => {
    const t = await testApp();
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutatePods, podCreate(newStatefulSetPod(sampleSet(), 0))));
    expect(r.response).toEqual({ uid: expect.any(String), allowed: true });
  });

  it("denies an env patch of a managed pod with the pointer, and passes an image patch", async () => {
    const t = await testApp();
    const old = newStatefulSetPod(sampleSet(), 0);
    const env = structuredClone(old);
    env.spec!.containers[0].env = [{ name: "X", value: "1" }];
    const denied = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ operation: "UPDATE", object: env, oldObject: old }))));
    expect(denied.response).toMatchObject({ allowed: false, status: { code: 422, message: expect.stringContaining("/spec/containers/0/env") } });
    const image = structuredClone(old);
    image.spec!.containers[0].image = "nginx:2";
    const ok = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ operation: "UPDATE", object: image, oldObject: old }))));
    expect(ok.response.allowed).toBe(true);
  });

  it("passes a status update's wake to onWake, with a waitUntil that logs failures", async () => {
    const onWake = vi.fn((_wake: Wake, waitUntil: (p: Promise<unknown>) => void) => waitUntil(Promise.reject(new Error("pass failed"))));
    const t = await testApp({ onWake });
    const pod = newStatefulSetPod(sampleSet(), 0);
    const body = review(request({ operation: "UPDATE", subResource: "status", name: "web-0", object: { ...pod, status: { phase: "Running" } }, oldObject: pod }));
    const r = await readReview(await t.post(WEBHOOK_PATHS.validatePods, body));
    expect(r.response.allowed).toBe(true);
    expect(onWake).toHaveBeenCalledWith({ namespace: "default", name: "web", reason: "pod-status", write: { resource: "pods", name: "web-0", operation: "UPDATE" } }, expect.any(Function));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "wake failed" }));
  });

  it("a throwing onWake does not fail the request", async () => {
    const t = await testApp({
      onWake: () => {
        throw new Error("boom");
      },
    });
    const pod = newStatefulSetPod(sampleSet(), 0);
    const r = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ operation: "UPDATE", subResource: "status", object: { ...pod, status: { phase: "Running" } }, oldObject: pod }))));
    expect(r.response.allowed).toBe(true);
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "onWake failed" }));
  });

  it("validates an ImageList", async () => {
    const t = await testApp();
    const obj = { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "pre", namespace: "default" }, spec: { images: { "nginx:1.25": {}, "bad image; rm -rf": {} } } };
    const r = await readReview(await t.post(WEBHOOK_PATHS.validateImageLists, review(request({ kind: imageListKind, object: obj }))));
    expect(r.response).toMatchObject({ allowed: false, status: { code: 422, reason: "Invalid" } });
    expect(r.response.status?.message).toMatch(/^ImageList\.apps\.ordinal\.dev "pre" is invalid: /);
    expect(r.response.status?.message).toContain("bad image; rm -rf");
  });
});
