/**
 * Wakes between `ordinal serve`'s replicas. The apiserver calls the webhooks through the Service,
 * so either replica sees a wake, but only the Lease holder reconciles: a standby forwards each wake
 * to the leader, at the endpoint the leader writes on the Lease (`ordinal.dev/wake-endpoint`,
 * `https://POD_IP:PORT/internal/wake`). The request is authenticated with an HMAC of its body
 * keyed by a hash of the serving key both replicas share (deploy/'s Secret, or --tls-key), and
 * the leader is checked to present a certificate of the same CA (its hostname is not the pod IP).
 * A wake is only a hint: one that cannot be forwarded is logged and the full pass covers it.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import type { SetWake } from "../schedule/scheduler.ts";
import { isAnnouncedWrite, isWakeOf } from "../admission/wakes.ts";

/** The path the leader takes forwarded wakes on. */
export const WAKE_FORWARD_PATH = "/internal/wake";
const SIGNATURE_HEADER = "x-ordinal-wake-signature";
/** A forwarded wake is a few hundred bytes; anything larger is refused unread. */
const MAX_BODY = 4096;

/** What a replica needs to forward wakes and to take them: its own endpoint, the shared key, the CA its peers' certificates chain to. */
export interface WakeForwarding {
  endpoint: string;
  /** Hex HMAC key (a hash of the serving key, never the key itself). */
  key: string;
  ca: string;
}

/**
 * wakeForwarding returns the forwarding settings of a replica, or undefined when it cannot take
 * forwarded wakes: no pod IP (POD_IP, set by deploy/ from the downward API; src/settings.ts refuses
 * one that is not an IP address) or no TLS key.
 */
export function wakeForwarding(podIp: string | undefined, port: number, tls: { key: string | Buffer; ca: string | Buffer } | undefined): WakeForwarding | undefined {
  const ip = podIp?.trim();
  if (!ip || !tls) return undefined;
  const host = isIP(ip) === 6 ? `[${ip}]` : ip;
  const key = createHash("sha256").update("ordinal wake forwarding\n").update(tls.key).digest("hex");
  return { endpoint: `https://${host}:${port}${WAKE_FORWARD_PATH}`, key, ca: String(tls.ca) };
}

const sign = (key: string, body: string): string => createHmac("sha256", Buffer.from(key, "hex")).update(body).digest("hex");

/**
 * Forwards in flight at once at most. Every admission wakes, so a flood of (forged) reviews at a
 * standby would otherwise open as many requests to the leader: beyond this, and for a set whose
 * wake is in flight already, a wake is dropped (a hint: the leader's watch and full pass cover it).
 */
export const MAX_FORWARDS_IN_FLIGHT = 8;

/**
 * wakeForwarder returns the function a standby forwards a wake with: one signed POST to the leader's
 * endpoint, verified against the shared CA; resolved at once without a request when
 * MAX_FORWARDS_IN_FLIGHT are in flight or one of the same set is.
 */
export function wakeForwarder(f: WakeForwarding): (endpoint: string, w: SetWake) => Promise<void> {
  // The leader's certificate names the Service, not its pod IP: the chain is checked, the name is not.
  const dispatcher = new Agent({ connect: { ca: f.ca, checkServerIdentity: () => undefined }, connectTimeout: 2_000 });
  const inFlight = new Set<string>();
  return async (endpoint, w) => {
    const key = `${w.namespace}/${w.name}`;
    if (inFlight.has(key) || inFlight.size >= MAX_FORWARDS_IN_FLIGHT) return;
    inFlight.add(key);
    try {
      const body = JSON.stringify({ namespace: w.namespace, name: w.name, ...(w.write ? { write: w.write } : {}) });
      const res = await undiciFetch(endpoint, { method: "POST", body, headers: { "content-type": "application/json", [SIGNATURE_HEADER]: sign(f.key, body) }, dispatcher, signal: AbortSignal.timeout(5_000) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`leader answered ${res.status}`);
    } finally {
      inFlight.delete(key);
    }
  };
}

/**
 * receiveForwardedWake answers a forwarded wake: 401 without a valid signature, 413 for a large
 * body, 400 for one that is not a wake (names must be a DNS label and an object name or ""), else
 * hands it to `wake` and answers 204.
 */
export async function receiveForwardedWake(req: Request, key: string, wake: (w: SetWake) => void): Promise<Response> {
  const given = req.headers.get(SIGNATURE_HEADER) ?? "";
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_BODY) return new Response("too large", { status: 413 });
  const body = await req.text();
  if (body.length > MAX_BODY) return new Response("too large", { status: 413 });
  const want = Buffer.from(sign(key, body), "hex");
  const got = /^[0-9a-f]{64}$/.test(given) ? Buffer.from(given, "hex") : Buffer.alloc(0);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return new Response("unauthorized", { status: 401 });
  const w = wakeOfBody(body);
  if (!w) return new Response("not a wake", { status: 400 });
  wake(w);
  return new Response(null, { status: 204 });
}

/** wakeOfBody returns the wake a forwarded body holds (wakes.ts's checks), or undefined when it is not one. */
function wakeOfBody(body: string): SetWake | undefined {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return undefined;
  }
  const o = v as { namespace?: unknown; name?: unknown; write?: unknown } | null;
  if (typeof o?.namespace !== "string" || typeof o.name !== "string" || !isWakeOf(o.namespace, o.name)) return undefined;
  const w = o.write;
  return isAnnouncedWrite(w) ? { namespace: o.namespace, name: o.name, write: { resource: w.resource, name: w.name, operation: w.operation, ...(w.resourceVersion ? { resourceVersion: w.resourceVersion } : {}) } } : { namespace: o.namespace, name: o.name };
}
