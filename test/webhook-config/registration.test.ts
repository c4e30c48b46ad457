import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { caBundleFromPem, ensureWebhookRegistration, mergeConfiguration, REGISTRATION_ANNOTATION } from "../../src/webhook-config/registration.ts";
import { APPS_V1_CONFIG_NAME, CONFIG_NAME, HOOKS, webhookConfigurations } from "../../src/webhook-config/webhook-configs.ts";
import { registrationRepair, settingsFrom } from "../../src/runtime-config.ts";
import { ApiError, type KubeClient, type KubeObject } from "../../src/kube/client.ts";
import { R, type ResourceRef } from "../../src/kube/resources.ts";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
const CA = btoa(PEM);
const URL_A = "https://127.0.0.1:28443";

/**
 * A cluster-scoped object store with the apiserver's write semantics that matter here:
 * resourceVersion bumps, 409 on a stale update or an existing name, and injectable conflicts.
 */
class FakeClient implements KubeClient {
  readonly store = new Map<string, KubeObject>();
  requestCount = 0;
  writes: string[] = [];
  /** What GET /version answers (the e2e apiserver's by default). */
  version = { major: "1", minor: "20", gitVersion: "v1.20.2" };
  conflictsLeft = 0;
  private rv = 1;
  private key = (r: ResourceRef, name: string) => `${r.resource}/${name}`;

  async serverVersion() {
    this.requestCount++;
    return { ...this.version };
  }
  async get<T extends object>(r: ResourceRef, _ns: string | undefined, name: string): Promise<T | undefined> {
    this.requestCount++;
    const o = this.store.get(this.key(r, name));
    return o ? (structuredClone(o) as T) : undefined;
  }
  async create<T extends object>(r: ResourceRef, _ns: string | undefined, obj: T): Promise<T> {
    this.requestCount++;
    const o = structuredClone(obj) as KubeObject;
    const k = this.key(r, o.metadata!.name!);
    if (this.store.has(k)) throw new ApiError(409, "AlreadyExists", `${k} already exists`);
    o.metadata!.resourceVersion = String(++this.rv);
    this.store.set(k, o);
    this.writes.push(`create ${k}`);
    return structuredClone(o) as T;
  }
  async update<T extends { metadata?: { name?: string } }>(r: ResourceRef, _ns: string | undefined, obj: T): Promise<T> {
    this.requestCount++;
    const o = structuredClone(obj) as KubeObject;
    const k = this.key(r, o.metadata!.name!);
    const cur = this.store.get(k);
    if (!cur) throw new ApiError(404, "NotFound", `${k} not found`);
    if (this.conflictsLeft > 0) {
      this.conflictsLeft--;
      // Someone else wrote in between.
      cur.metadata!.resourceVersion = String(++this.rv);
    }
    if (cur.metadata!.resourceVersion !== o.metadata!.resourceVersion) throw new ApiError(409, "Conflict", `${k}: the object has been modified`);
    o.metadata!.resourceVersion = String(++this.rv);
    this.store.set(k, o);
    this.writes.push(`update ${k}`);
    return structuredClone(o) as T;
  }
  async list<T extends object>(): Promise<T[]> {
    throw new Error("not used");
  }
  async createSubresource<T extends object>(): Promise<T> {
    throw new Error("not used");
  }
  async patch<T extends object>(): Promise<T> {
    throw new Error("not used");
  }
  async delete(): Promise<boolean> {
    throw new Error("not used");
  }
  obj(r: ResourceRef, name: string) {
    return this.store.get(this.key(r, name)) as KubeObject & { webhooks: Record<string, unknown>[] };
  }
}

const names = (c: FakeClient, r: ResourceRef) => c.obj(r, CONFIG_NAME).webhooks.map((w) => w.name);
/** The wake-only hooks (always allow), after the deciding ones. */
const WAKE_HOOKS = ["statefulsets.wake.ordinal.dev", "pods.wake.ordinal.dev", "pullers.wake.ordinal.dev"];

describe("ensureWebhookRegistration", () => {
  it("creates the configurations, then finds them unchanged", async () => {
    const c = new FakeClient();
    expect(await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA })).toEqual({
      created: ["MutatingWebhookConfiguration/ordinal", "ValidatingWebhookConfiguration/ordinal"],
      updated: [],
      unchanged: [],
      missing: [],
      left: [],
    });
    expect(names(c, R.mutatingWebhooks)).toEqual(["pods.mutate.ordinal.dev", "statefulsets.mutate.ordinal.dev"]);
    expect(names(c, R.validatingWebhooks)).toEqual(["pods.validate.ordinal.dev", "statefulsets.validate.ordinal.dev", "imagelists.validate.ordinal.dev", "bindings.validate.ordinal.dev", "specified-delete.validate.ordinal.dev", ...WAKE_HOOKS]);
    expect(c.obj(R.mutatingWebhooks, CONFIG_NAME).webhooks[0].clientConfig).toEqual({ url: `${URL_A}/mutate/pods`, caBundle: CA });
    const writes = c.writes.length;
    expect(await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA })).toEqual({
      created: [],
      updated: [],
      unchanged: ["MutatingWebhookConfiguration/ordinal", "ValidatingWebhookConfiguration/ordinal"],
      missing: [],
      left: [],
    });
    expect(c.writes.length).toBe(writes);
  });

  it("adds the apps/v1 configuration when asked", async () => {
    const c = new FakeClient();
    const r = await ensureWebhookRegistration(c, { url: URL_A, validateAppsV1StatefulSets: true });
    expect(r.created).toContain(`ValidatingWebhookConfiguration/${APPS_V1_CONFIG_NAME}`);
    expect(c.obj(R.validatingWebhooks, APPS_V1_CONFIG_NAME).webhooks.map((w) => w.name)).toEqual(["statefulsets.apps.validate.ordinal.dev"]);
  });

  type Drift = { name: string; drift: (c: FakeClient) => void; check: (c: FakeClient) => void };
  const drifts: Drift[] = [
    {
      name: "a wrong url and caBundle are repaired",
      drift: (c) => {
        const hook = c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks[1];
        hook.clientConfig = { url: "https://elsewhere/validate", caBundle: "b2xk" };
      },
      check: (c) =>
        expect(c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks[1].clientConfig).toEqual({ url: `${URL_A}/validate/statefulsets`, caBundle: CA }),
    },
    {
      name: "a service reference is replaced by our url",
      drift: (c) => {
        c.obj(R.mutatingWebhooks, CONFIG_NAME).webhooks[0].clientConfig = { service: { name: "x", namespace: "y" }, caBundle: CA };
      },
      check: (c) => expect(c.obj(R.mutatingWebhooks, CONFIG_NAME).webhooks[0].clientConfig).toEqual({ url: `${URL_A}/mutate/pods`, caBundle: CA }),
    },
    {
      name: "a missing webhook entry is added back; a foreign one is kept",
      drift: (c) => {
        const o = c.obj(R.validatingWebhooks, CONFIG_NAME);
        o.webhooks = [o.webhooks[0], { name: "theirs.example.com", clientConfig: { url: "https://theirs" } }];
      },
      check: (c) =>
        expect(names(c, R.validatingWebhooks)).toEqual([
          "pods.validate.ordinal.dev",
          "theirs.example.com",
          "statefulsets.validate.ordinal.dev",
          "imagelists.validate.ordinal.dev",
          "bindings.validate.ordinal.dev",
          "specified-delete.validate.ordinal.dev",
          ...WAKE_HOOKS,
        ]),
    },
    {
      name: "changed rules are restored; operator-tuned failurePolicy, timeout and selectors are kept",
      drift: (c) => {
        const hook = c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks[0];
        Object.assign(hook, { rules: [], failurePolicy: "Fail", timeoutSeconds: 3, namespaceSelector: { matchLabels: { team: "a" } } });
      },
      check: (c) => {
        const hook = c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks[0];
        expect(hook.rules).toEqual(HOOKS[1].hook.rules);
        expect(hook).toMatchObject({ failurePolicy: "Fail", timeoutSeconds: 3, namespaceSelector: { matchLabels: { team: "a" } } });
      },
    },
    {
      name: "others' labels and annotations are kept; ours are put back",
      drift: (c) => {
        c.obj(R.mutatingWebhooks, CONFIG_NAME).metadata = {
          ...c.obj(R.mutatingWebhooks, CONFIG_NAME).metadata,
          labels: { team: "a" },
          annotations: { note: "x" },
        };
      },
      check: (c) =>
        expect(c.obj(R.mutatingWebhooks, CONFIG_NAME).metadata).toMatchObject({
          labels: { team: "a", "app.kubernetes.io/managed-by": "ordinal" },
          annotations: { note: "x" },
        }),
    },
  ];
  for (const d of drifts) {
    it(d.name, async () => {
      const c = new FakeClient();
      await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA });
      d.drift(c);
      const r = await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA });
      expect(r.updated.length).toBe(1);
      d.check(c);
      expect((await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA })).updated).toEqual([]);
    });
  }

  it("recreates a deleted configuration", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A });
    c.store.delete(`${R.mutatingWebhooks.resource}/${CONFIG_NAME}`);
    expect((await ensureWebhookRegistration(c, { url: URL_A })).created).toEqual(["MutatingWebhookConfiguration/ordinal"]);
  });

  it("moves every hook to a new url", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA });
    const r = await ensureWebhookRegistration(c, { url: "https://ordinal.example.com/", caBundle: CA });
    expect(r.updated.length).toBe(2);
    for (const w of [...c.obj(R.mutatingWebhooks, CONFIG_NAME).webhooks, ...c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks]) {
      expect((w.clientConfig as { url: string }).url).toMatch(/^https:\/\/ordinal\.example\.com\/(mutate|validate)\//);
    }
  });

  it("retries a write conflict with a fresh read", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A });
    c.conflictsLeft = 1;
    expect((await ensureWebhookRegistration(c, { url: "https://other:1" })).updated.length).toBe(2);
  });

  it("gives up after repeated conflicts, with the apiserver's error", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A });
    c.conflictsLeft = 10;
    await expect(ensureWebhookRegistration(c, { url: "https://other:1" })).rejects.toThrow(/has been modified/);
  });
});

describe("matchConditions by the apiserver's version", () => {
  const binding = (c: FakeClient) => c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks.find((w) => w.name === "bindings.validate.ordinal.dev")!;
  const cases: { version: { major: string; minor: string }; conditions: boolean }[] = [
    { version: { major: "1", minor: "20" }, conditions: false },
    { version: { major: "1", minor: "27" }, conditions: false },
    { version: { major: "1", minor: "28" }, conditions: true },
    { version: { major: "1", minor: "28+" }, conditions: true },
    { version: { major: "1", minor: "31" }, conditions: true },
  ];
  for (const { version, conditions } of cases) {
    it(`${version.major}.${version.minor}: the binding hook ${conditions ? "carries" : "has no"} matchConditions, stable on the next pass`, async () => {
      const c = new FakeClient();
      c.version = { ...version, gitVersion: "" };
      await ensureWebhookRegistration(c, { url: URL_A });
      expect(binding(c).matchConditions !== undefined).toBe(conditions);
      expect((await ensureWebhookRegistration(c, { url: URL_A })).unchanged.length).toBe(2);
    });
  }

  it("adds them to an entry created from the static YAML once the apiserver is 1.28, and removes them after a downgrade", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A });
    c.version = { major: "1", minor: "29", gitVersion: "v1.29.0" };
    expect((await ensureWebhookRegistration(c, { url: URL_A })).updated).toEqual(["ValidatingWebhookConfiguration/ordinal"]);
    expect(binding(c).matchConditions).toEqual([
      { name: "carries-inplace-update-state", expression: "has(object.metadata.annotations) && 'ordinal.dev/inplace-update-state' in object.metadata.annotations" },
    ]);
    c.version = { major: "1", minor: "27", gitVersion: "v1.27.0" };
    await ensureWebhookRegistration(c, { url: URL_A });
    expect("matchConditions" in binding(c)).toBe(false);
  });

  it("registration repair reads /version once per 10 minutes, not per pass", async () => {
    const c = new FakeClient();
    let versionReads = 0;
    const read = c.serverVersion.bind(c);
    c.serverVersion = () => (versionReads++, read());
    let t = 0;
    const repair = registrationRepair(c, settingsFrom({ WEBHOOK_URL: URL_A, WEBHOOK_AUTH: "none" }), { now: () => t })!;
    for (let i = 0; i < 3; i++) await repair();
    expect(versionReads).toBe(1);
    c.version = { major: "1", minor: "30", gitVersion: "v1.30.0" };
    t += 10 * 60_000;
    await repair();
    expect(versionReads).toBe(2);
    expect(binding(c).matchConditions).toHaveLength(1);
  });

  it("the binding hook times out after 1 s, the smallest timeoutSeconds the API allows", () => {
    expect(HOOKS.find((h) => h.hook.name === "bindings.validate.ordinal.dev")!.hook.timeoutSeconds).toBe(1);
  });
});

describe("registration modes and the hands-off annotation (issue 19.7)", () => {
  const ALL = ["MutatingWebhookConfiguration/ordinal", "ValidatingWebhookConfiguration/ordinal"];

  it("update mode repairs existing configurations and never creates a missing one", async () => {
    const c = new FakeClient();
    await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA });
    c.store.delete(`${R.mutatingWebhooks.resource}/${CONFIG_NAME}`);
    c.obj(R.validatingWebhooks, CONFIG_NAME).webhooks[0].clientConfig = { url: "https://elsewhere" };
    c.writes = [];
    const r = await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA, mode: "update" });
    expect(r).toMatchObject({ created: [], updated: ["ValidatingWebhookConfiguration/ordinal"], missing: ["MutatingWebhookConfiguration/ordinal"] });
    expect(c.writes).toEqual([`update ${R.validatingWebhooks.resource}/${CONFIG_NAME}`]);
    expect(c.obj(R.mutatingWebhooks, CONFIG_NAME)).toBeUndefined();
  });

  for (const value of ["off", "anything"]) {
    it(`a configuration annotated ordinal.dev/registration=${value} is left as the operator has it, in every mode`, async () => {
      const c = new FakeClient();
      await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA });
      const cfg = c.obj(R.mutatingWebhooks, CONFIG_NAME);
      cfg.metadata!.annotations = { [REGISTRATION_ANNOTATION]: value };
      cfg.webhooks[0].clientConfig = { url: "https://operator.example/mutate" };
      c.writes = [];
      for (const mode of ["create", "update"] as const) {
        const r = await ensureWebhookRegistration(c, { url: URL_A, caBundle: CA, mode });
        expect(r).toMatchObject({ left: ["MutatingWebhookConfiguration/ordinal"], unchanged: ["ValidatingWebhookConfiguration/ordinal"] });
      }
      expect(c.writes).toEqual([]);
      expect(c.obj(R.mutatingWebhooks, CONFIG_NAME).webhooks[0].clientConfig).toEqual({ url: "https://operator.example/mutate" });
    });
  }

  it("create mode (the default) still creates a missing configuration", async () => {
    const c = new FakeClient();
    expect((await ensureWebhookRegistration(c, { url: URL_A })).created).toEqual(ALL);
  });

  it("WEBHOOK_REGISTRATION: create (default), update or off; anything else is refused, naming the variable", () => {
    const vars = { WEBHOOK_AUTH: "none" };
    expect(settingsFrom(vars).webhookRegistration).toBe("create");
    expect(settingsFrom({ ...vars, WEBHOOK_REGISTRATION: "" }).webhookRegistration).toBe("create");
    for (const mode of ["create", "update", "off"]) expect(settingsFrom({ ...vars, WEBHOOK_REGISTRATION: mode }).webhookRegistration).toBe(mode);
    for (const bad of ["Update", "false", "none", "of"]) {
      expect(() => settingsFrom({ ...vars, WEBHOOK_REGISTRATION: bad })).toThrow(`WEBHOOK_REGISTRATION must be one of create, update, off, got ${JSON.stringify(bad)}`);
    }
  });

  it("repair: off registers nothing; update warns once per change about a missing configuration, not every pass", async () => {
    const c = new FakeClient();
    expect(registrationRepair(c, settingsFrom({ WEBHOOK_URL: URL_A, WEBHOOK_AUTH: "none", WEBHOOK_REGISTRATION: "off" }))).toBeUndefined();
    const warnings: string[] = [];
    const log = { info: () => {}, warn: (m: string) => warnings.push(m), error: () => {} };
    const repair = registrationRepair(c, settingsFrom({ WEBHOOK_URL: URL_A, WEBHOOK_AUTH: "none", WEBHOOK_REGISTRATION: "update" }), { log })!;
    for (let i = 0; i < 3; i++) await repair();
    expect(c.writes).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/missing; not re-created \(WEBHOOK_REGISTRATION=update\)/);
    await ensureWebhookRegistration(c, { url: URL_A });
    await repair();
    expect(warnings).toHaveLength(1);
  });
});

describe("mergeConfiguration", () => {
  it("does not touch fields it does not own", () => {
    const desired = webhookConfigurations({ url: URL_A })[1].object as unknown as KubeObject & { webhooks: { name: string }[] };
    const existing = {
      ...structuredClone(desired),
      metadata: { name: CONFIG_NAME, uid: "u", resourceVersion: "7", labels: { a: "b" } },
      extra: { kept: true },
    };
    existing.webhooks[0] = { ...existing.webhooks[0], matchPolicy: "Exact" } as (typeof existing.webhooks)[0];
    const merged = mergeConfiguration(existing, desired);
    expect(merged).toMatchObject({ extra: { kept: true }, metadata: { uid: "u", resourceVersion: "7", labels: { a: "b" } } });
    expect(merged.webhooks![0].matchPolicy).toBe("Exact");
  });
});

describe("caBundleFromPem", () => {
  it("returns the base64 of PEM certificates and refuses anything else", () => {
    expect(caBundleFromPem(PEM)).toBe(CA);
    expect(parse(`x: ${caBundleFromPem(PEM)}`).x).toBe(CA);
    expect(() => caBundleFromPem("hello", "notpem")).toThrow(/notpem holds no PEM certificate/);
  });
});
