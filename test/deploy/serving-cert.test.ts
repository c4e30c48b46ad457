/** The in-cluster serving certificate: made once, shared through a Secret, verified by TLS clients for the Service's names. */
import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { certCovers, ensureServingCert, generateServingCert, serviceHosts } from "../../src/node/serving-cert.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const hosts = [...serviceHosts({ namespace: "ordinal-system", name: "ordinal-webhooks" }), "127.0.0.1"];

describe("generateServingCert", () => {
  it("signs a serving certificate for every host with a CA", () => {
    const c = generateServingCert(hosts);
    const leaf = new X509Certificate(c.cert);
    const ca = new X509Certificate(c.ca);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost("ordinal-webhooks.ordinal-system.svc")).toBe("ordinal-webhooks.ordinal-system.svc");
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(ca.ca).toBe(true);
    expect(certCovers(c.cert, hosts)).toBe(true);
    expect(certCovers(c.cert, ["other.svc"])).toBe(false);
  });
});

describe("ensureServingCert", () => {
  it("creates the Secret once; a second replica gets the same certificate", async () => {
    const fake = createFakeApiServer({ namespaces: ["ordinal-system"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const secret = { namespace: "ordinal-system", name: "ordinal-webhook-tls" };
    const [a, b] = await Promise.all([ensureServingCert(client, secret, hosts), ensureServingCert(client, secret, hosts)]);
    expect(a.ca).toBe(b.ca);
    expect((await ensureServingCert(client, secret, hosts)).cert).toBe(a.cert);
    await expect(ensureServingCert(client, secret, ["elsewhere.svc"])).rejects.toThrow(/delete the Secret and restart/);
  });
});
