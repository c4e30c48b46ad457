/** registrationGap / registrationCheck: GET /readyz fails while no webhook configuration sends this server its reviews. */
import { describe, expect, it } from "vitest";
import type { KubeClient, KubeObject } from "../../src/kube/client.ts";
import { registrationCheck, registrationGap, type ServerAddress } from "../../src/webhook-config/registration-check.ts";

const hooks = (...clientConfigs: object[]) => ({ webhooks: clientConfigs.map((clientConfig, i) => ({ name: `hook-${i}`, clientConfig })) });
const local: ServerAddress = { url: "https://127.0.0.1:8443" };
const service: ServerAddress = { service: { namespace: "ordinal-system", name: "ordinal-webhooks" } };
const svc = { service: { namespace: "ordinal-system", name: "ordinal-webhooks", path: "/mutate/pods" } };

describe("registrationGap", () => {
  it.each<[string, KubeObject | undefined, ServerAddress, RegExp | undefined]>([
    ["nothing registered", undefined, local, /no MutatingWebhookConfiguration ordinal is registered, so the apiserver sends this server nothing; register them: `ordinal local`/],
    ["every hook at this URL", hooks({ url: "https://127.0.0.1:8443/mutate/pods" }, { url: "https://127.0.0.1:8443/mutate/statefulsets" }), local, undefined],
    ["one hook elsewhere", hooks({ url: "https://127.0.0.1:8443/mutate/pods" }, { url: "https://127.0.0.1:9443/mutate/statefulsets" }), local, /sends hook-1 to https:\/\/127\.0\.0\.1:9443\/mutate\/statefulsets, not to https:\/\/127\.0\.0\.1:8443/],
    ["another server whose URL starts like ours", hooks({ url: "https://127.0.0.1:84430/mutate/pods" }), local, /not to https:\/\/127\.0\.0\.1:8443/],
    ["the Service of deploy/", hooks(svc), service, undefined],
    ["a URL where the Service is expected", hooks({ url: "https://x.workers.dev/mutate/pods" }), service, /not to service ordinal-system\/ordinal-webhooks/],
    ["no address known: registered somewhere real", hooks({ url: "https://x.workers.dev/mutate/pods" }), {}, undefined],
    ["no address known: deploy/'s placeholder", hooks({ url: "https://ordinal.invalid/mutate/pods" }), {}, /sends hook-0 to https:\/\/ordinal\.invalid\/mutate\/pods/],
    ["a configuration without hooks", { webhooks: [] }, local, /sends nothing/],
  ])("%s", (_, config, address, reason) => {
    const gap = registrationGap(config, address);
    if (reason) expect(gap).toMatch(reason);
    else expect(gap).toBeUndefined();
  });
});

describe("registrationCheck", () => {
  it("reads the configuration at most once per ttl, shares the answer, and turns a failed read into the reason", async () => {
    let gets = 0;
    let fail = false;
    const client = {
      get: async () => {
        gets++;
        if (fail) throw new Error("mutatingwebhookconfigurations is forbidden");
        return hooks({ url: "https://127.0.0.1:8443/mutate/pods" });
      },
    } as unknown as KubeClient;
    const clock = { ms: 0 };
    const check = registrationCheck(client, local, { ttlMs: 5_000, nowMs: () => clock.ms });
    expect(await Promise.all([check(), check(), check()])).toEqual([undefined, undefined, undefined]);
    expect(gets).toBe(1);
    fail = true;
    clock.ms = 4_999;
    expect(await check()).toBeUndefined();
    clock.ms = 5_000;
    expect(await check()).toBe("cannot read MutatingWebhookConfiguration ordinal: mutatingwebhookconfigurations is forbidden");
    expect(gets).toBe(2);
  });
});
