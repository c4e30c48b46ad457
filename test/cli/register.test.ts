/** `ordinal register`: webhook configurations applied to the fake apiserver, through the CLI's one parser. */
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import { main } from "../../src/cli/main.ts";
import { R } from "../../src/kube/resources.ts";
import { CONFIG_NAME } from "../../src/webhook-config/webhook-configs.ts";
import { cliWorld } from "./helpers.ts";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
const URL_A = "https://127.0.0.1:28443";

describe("ordinal register", () => {
  it("applies the configurations and says what it did", async () => {
    const w = cliWorld({ "ca.crt": PEM });
    expect(await main(["register", "--url", URL_A, "--ca-bundle", "ca.crt"], w.ctx)).toBe(0);
    expect(w.out).toEqual(["MutatingWebhookConfiguration/ordinal created\nValidatingWebhookConfiguration/ordinal created"]);
    const hook = await w.client.get<{ webhooks: { clientConfig: { caBundle: string; url: string } }[] }>(R.validatingWebhooks, undefined, CONFIG_NAME);
    expect(hook!.webhooks[0].clientConfig.caBundle).toBe(btoa(PEM));
    expect(hook!.webhooks[0].clientConfig.url.startsWith(`${URL_A}/`)).toBe(true);
    expect(await main(["register", "--url", `${URL_A}/`, "--ca-bundle", "ca.crt"], w.ctx)).toBe(0);
    expect(w.out[1]).toBe("MutatingWebhookConfiguration/ordinal unchanged\nValidatingWebhookConfiguration/ordinal unchanged");
  });

  it("leaves a configuration annotated ordinal.dev/registration alone, and says so", async () => {
    const w = cliWorld();
    expect(await main(["register", "--url", URL_A], w.ctx)).toBe(0);
    await w.client.patch(R.mutatingWebhooks, undefined, CONFIG_NAME, { metadata: { annotations: { "ordinal.dev/registration": "off" } } }, "merge");
    expect(await main(["register", "--url", "https://elsewhere:1"], w.ctx)).toBe(0);
    expect(w.out[1]).toBe("ValidatingWebhookConfiguration/ordinal updated\nMutatingWebhookConfiguration/ordinal left alone (annotation ordinal.dev/registration)");
    const hook = await w.client.get<{ webhooks: { clientConfig: { url: string } }[] }>(R.mutatingWebhooks, undefined, CONFIG_NAME);
    expect(hook!.webhooks[0].clientConfig.url).toBe(`${URL_A}/mutate/pods`);
  });

  it("--dry-run prints the objects as YAML without a cluster", async () => {
    const w = cliWorld();
    w.ctx.client = () => Promise.reject(new Error("--dry-run must not ask for a client"));
    expect(await main(["register", "--url", URL_A, "--dry-run", "--validate-apps-v1"], w.ctx)).toBe(0);
    const docs = parseAllDocuments(w.out.join("\n")).map((d) => d.toJS() as { kind: string; metadata: { name: string }; webhooks: { clientConfig: { url: string } }[] });
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      "MutatingWebhookConfiguration/ordinal",
      "ValidatingWebhookConfiguration/ordinal",
      "ValidatingWebhookConfiguration/ordinal-apps-v1",
    ]);
    expect(docs[0].webhooks[0].clientConfig.url).toBe(`${URL_A}/mutate/pods`);
  });

  // Mistakes on the command line exit 2 with the usage; a file or cluster problem exits 1.
  const errors: [string[], number, RegExp][] = [
    [[], 2, /--url is required/],
    [["--url", URL_A, "--dryrun"], 2, /unknown option --dryrun; did you mean --dry-run\?/],
    [["--url", "http://127.0.0.1:8080"], 2, /must be https/],
    [["--url", "https://h/?q=1"], 2, /must not carry a query/],
    [["--url", "not a url"], 2, /is not a URL/],
    [["--url", URL_A, "--ca-bundle", "missing"], 1, /ENOENT/],
    [["--url", URL_A, "--ca-bundle", "notpem"], 1, /holds no PEM certificate/],
    [["--url", URL_A], 2, /no cluster configured/],
  ];
  it.each(errors)("refuses %j (exit %i)", async (args, code, error) => {
    const w = cliWorld({ notpem: "hello" });
    w.ctx.client = () => Promise.reject(new UsageError("no cluster configured: set KUBECONFIG"));
    expect(await main(["register", ...args], w.ctx)).toBe(code);
    expect(w.err.join("\n")).toMatch(error);
    expect(w.out).toEqual([]);
  });

  it("--help prints the usage with every option", async () => {
    const w = cliWorld();
    expect(await main(["register", "--help"], w.ctx)).toBe(0);
    expect(w.out.join("\n")).toMatch(/^usage: ordinal register /);
    for (const o of ["--url URL", "--ca-bundle FILE", "--validate-apps-v1", "--dry-run"]) expect(w.out.join("\n")).toContain(o);
  });

  it("--url https://a:1// is registered without the trailing slashes", async () => {
    const w = cliWorld();
    expect(await main(["register", "--url", "https://a:1//", "--dry-run"], w.ctx)).toBe(0);
    expect(w.out.join("\n")).toContain("url: https://a:1/mutate/pods");
  });
});
