/**
 * Where Ordinal is installed and who it is there: the one definition of the namespace, the
 * ServiceAccount and the username the apiserver gives that ServiceAccount. deploy/ is generated
 * from these names (src/deploy/manifests.ts), and the webhooks' default reconciler identity is
 * derived from them, so the shipped manifests and the shipped defaults cannot disagree.
 */

export const INSTALL_NAMESPACE = "ordinal-system";
export const SERVICE_ACCOUNT = "ordinal-reconciler";

/** serviceAccountUsername returns the username the apiserver authenticates a ServiceAccount's token as. */
const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;

/** The reconciler's username when nothing says otherwise: the ServiceAccount of deploy/. */
export const DEFAULT_RECONCILER_USERNAME = serviceAccountUsername(INSTALL_NAMESPACE, SERVICE_ACCOUNT);

/**
 * usernameFromToken returns the username a ServiceAccount token authenticates as (its `sub`
 * claim, `system:serviceaccount:NS:NAME`), or undefined for any other token (static tokens,
 * OIDC, opaque). The token is not verified: it is our own credential, read to learn our name.
 */
export function usernameFromToken(token: string | undefined): string | undefined {
  const parts = token?.trim().split(".");
  if (!parts || parts.length !== 3) return undefined;
  try {
    const b64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const payload = JSON.parse(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4))) as { sub?: unknown };
    return typeof payload.sub === "string" && /^system:serviceaccount:[^:]+:[^:]+$/.test(payload.sub) ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
