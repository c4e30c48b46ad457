/**
 * networkCause says in kubectl's words why a request got no HTTP answer. fetch (Node's undici)
 * rejects with "fetch failed" and keeps the reason in `cause` (a system error code such as
 * ECONNREFUSED, or a TLS code such as UNABLE_TO_VERIFY_LEAF_SIGNATURE); this reads that chain.
 */

/** What to say per error code; `null` means: the cause's own message says it best. */
const WORDS: Record<string, string | null> = {
  ECONNREFUSED: "connection refused (is the apiserver running, and is this its address and port?)",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "no such host (DNS lookup failed)",
  ECONNRESET: "connection reset by the server",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed by the server",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "certificate signed by unknown authority",
  UNABLE_TO_GET_ISSUER_CERT: "certificate signed by unknown authority",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "certificate signed by unknown authority",
  SELF_SIGNED_CERT_IN_CHAIN: "certificate signed by unknown authority",
  DEPTH_ZERO_SELF_SIGNED_CERT: "certificate signed by unknown authority (self-signed)",
  CERT_HAS_EXPIRED: "certificate has expired",
  CERT_NOT_YET_VALID: "certificate is not yet valid",
  ERR_TLS_CERT_ALTNAME_INVALID: null,
  ERR_SSL_WRONG_VERSION_NUMBER: "TLS handshake failed: the server does not speak TLS (http:// instead of https://?)",
};

const UNKNOWN_AUTHORITY_HINT = "; give the cluster's CA (certificate-authority in the kubeconfig, or KUBE_CA_FILE)";

/** causes returns the error and its `cause` chain (at most 5 deep), outermost first. */
function causes(e: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let c = e; c !== undefined && c !== null && chain.length < 5; c = (c as { cause?: unknown }).cause) chain.push(c);
  return chain;
}

/**
 * networkCause returns one line saying why a fetch rejected: kubectl's wording for a known code
 * (with what to do about an unknown certificate authority), the innermost cause's message otherwise.
 */
export function networkCause(e: unknown): string {
  const chain = causes(e);
  for (const c of chain) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && code in WORDS) {
      const words = WORDS[code] ?? (c instanceof Error ? c.message : code);
      return words.startsWith("certificate signed by unknown authority") ? words + UNKNOWN_AUTHORITY_HINT : words;
    }
  }
  if (chain.some((c) => c instanceof Error && c.name === "TimeoutError")) return "no answer in time (request timed out)";
  const inner = chain.at(-1);
  const message = inner instanceof Error ? inner.message : String(inner);
  const code = (inner as { code?: unknown }).code;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}
