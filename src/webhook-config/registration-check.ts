/**
 * Does the apiserver send this server its AdmissionReviews? `GET /readyz` fails while no webhook
 * configuration points here: a server whose webhooks are not registered (or registered elsewhere)
 * is not doing its job, even if it answers every request it gets.
 */
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { CONFIG_NAME, PLACEHOLDER_URL } from "./webhook-configs.ts";

type ClientConfig = { url?: string; service?: { namespace?: string; name?: string } };
type WebhookConfig = KubeObject & { webhooks?: { name?: string; clientConfig?: ClientConfig }[] };

/** Where this server is reached: WEBHOOK_URL, or in a cluster WEBHOOK_SERVICE; neither: it cannot tell its own address. */
export interface ServerAddress {
  url?: string;
  service?: { namespace: string; name: string };
}

const where = (c: ClientConfig | undefined) => (c?.service ? `service ${c.service.namespace}/${c.service.name}` : (c?.url ?? "nowhere"));

/**
 * registrationGap returns why the MutatingWebhookConfiguration `config` does not send this server
 * its reviews, or undefined when it does: every hook at `address` (its URL, or its Service); with
 * no address known, any hook registered somewhere real (not deploy/'s placeholder URL).
 */
export function registrationGap(config: WebhookConfig | undefined, address: ServerAddress): string | undefined {
  const register = "register them: `ordinal local`, or `ordinal register --url https://HOST:PORT --ca-bundle FILE`";
  if (!config) return `no MutatingWebhookConfiguration ${CONFIG_NAME} is registered, so the apiserver sends this server nothing; ${register}`;
  const hooks = config.webhooks ?? [];
  const here = (c: ClientConfig | undefined): boolean => {
    if (address.url) return !!c?.url?.startsWith(`${address.url}/`);
    if (address.service) return c?.service?.namespace === address.service.namespace && c.service.name === address.service.name;
    return !!(c?.service || (c?.url && !c.url.startsWith(PLACEHOLDER_URL)));
  };
  const off = hooks.find((h) => !here(h.clientConfig));
  if (!hooks.length || off) {
    const target = address.url ?? (address.service ? `service ${address.service.namespace}/${address.service.name}` : "a server");
    return `MutatingWebhookConfiguration ${CONFIG_NAME} sends ${off?.name ?? "nothing"} to ${where(off?.clientConfig)}, not to ${target}; ${register}`;
  }
  return undefined;
}

/**
 * registrationCheck returns a function answering registrationGap from the apiserver, read at most
 * once per `ttlMs` (callers of /readyz share the answer: a probe loop, or anyone, cannot turn it
 * into apiserver load); a read that fails is itself the reason.
 */
export function registrationCheck(client: KubeClient, address: ServerAddress, o: { ttlMs?: number; nowMs?: () => number } = {}): () => Promise<string | undefined> {
  const ttlMs = o.ttlMs ?? 5_000;
  const nowMs = o.nowMs ?? Date.now;
  let last: { atMs: number; answer: Promise<string | undefined> } | undefined;
  return () => {
    if (last && nowMs() - last.atMs < ttlMs) return last.answer;
    const answer = client.get<WebhookConfig>(R.mutatingWebhooks, undefined, CONFIG_NAME).then(
      (config) => registrationGap(config, address),
      (e: unknown) => `cannot read MutatingWebhookConfiguration ${CONFIG_NAME}: ${e instanceof Error ? e.message : String(e)}`,
    );
    last = { atMs: nowMs(), answer };
    return answer;
  };
}
