/**
 * The defaults of the webhook JWT's claims and lifetime (src/auth/token.ts issues and verifies it).
 * A file of their own, without jose: `ordinal token --help` prints them.
 */
export const DEFAULT_TOKEN_ISSUER = "ordinal";
export const DEFAULT_TOKEN_AUDIENCE = "ordinal-webhooks";
export const DEFAULT_TOKEN_SUBJECT = "kube-apiserver";
/**
 * Default token lifetime. The apiserver re-reads a kubeconfig `tokenFile` about once a minute
 * (client-go's cached file token source; seen on the real apiserver, see the e2e), so a token is
 * rotated by rewriting that file (`ordinal token --out FILE`, e.g. daily from a timer): a week
 * leaves six days to notice a failed rotation, while a leaked token stays useful for a week at most.
 */
export const DEFAULT_TOKEN_TTL = "7d";
