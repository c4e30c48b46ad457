/**
 * The words of an identity refusal, in one place: the pod webhook writes them when anyone but the
 * reconciler writes what only the reconciler may (reconcilerOnly), and the reconciler reads them
 * back when its own write is refused (parseIdentityRefusal), so it can say loudly which identity
 * it runs as, which one the webhooks expect, and how to make them agree.
 */

/** An identity refusal: whom the webhook accepts as the reconciler, and who the refused caller was (unknown from older webhooks). */
export interface IdentityRefusal {
  expected: string;
  actual?: string;
}

/** reconcilerOnly returns the webhook's words for "only `expected` may write it", naming the caller `actual`. */
export function reconcilerOnly(expected: string, actual: string): string {
  return `only the reconciler (${JSON.stringify(expected)}) may write it (this request is from ${JSON.stringify(actual)})`;
}

const REFUSAL = /only the reconciler \(("(?:[^"\\]|\\.)*")\) may write it(?: \(this request is from ("(?:[^"\\]|\\.)*")\))?/;

/**
 * parseIdentityRefusal returns the identities named in an apiserver error message that carries
 * the pod webhook's identity refusal (`admission webhook "pods.validate.ordinal.dev" denied the
 * request: …` with reconcilerOnly's words in it), or undefined when the message is no such
 * refusal. Older webhooks do not name the caller: `actual` is then undefined.
 */
export function parseIdentityRefusal(message: string): IdentityRefusal | undefined {
  const m = REFUSAL.exec(message);
  if (!m) return undefined;
  try {
    const expected = JSON.parse(m[1]) as string;
    return m[2] === undefined ? { expected } : { expected, actual: JSON.parse(m[2]) as string };
  } catch {
    return undefined;
  }
}

/**
 * identityMismatchMessage returns what the reconciler says when its writes are refused for its
 * identity: both identities and the two fixes (run as the expected identity, or tell the webhooks
 * who the reconciler is).
 */
export function identityMismatchMessage(r: IdentityRefusal): string {
  const actual = r.actual === undefined ? "another identity" : JSON.stringify(r.actual);
  return (
    `Ordinal's webhook refuses the reconciler's writes: the reconciler runs as ${actual}, the webhooks accept only ${JSON.stringify(r.expected)} as the reconciler. ` +
    `Fix: run the reconciler with that identity's credentials (docs/install.md: "Run the reconciler outside the cluster"), ` +
    `or set RECONCILER_USERNAME=${r.actual ?? "<the reconciler's username>"} where the webhooks run`
  );
}
