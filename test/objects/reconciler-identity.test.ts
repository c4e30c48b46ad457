/** The words of an identity refusal (src/objects/reconciler-identity.ts): written by the pod webhook, read back by the reconciler. */
import { describe, expect, it } from "vitest";
import { identityMismatchMessage, parseIdentityRefusal, reconcilerOnly } from "../../src/objects/reconciler-identity.ts";

const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";

describe("reconcilerOnly and parseIdentityRefusal", () => {
  it("the webhook's words name both identities, and read back as they were", () => {
    expect(reconcilerOnly(SA, "admin")).toBe(`only the reconciler ("${SA}") may write it (this request is from "admin")`);
    const denied = `admission webhook "pods.validate.ordinal.dev" denied the request: Pod "web-0" is invalid: status.conditions[InPlaceUpdateReady]: Forbidden: ${reconcilerOnly(SA, "admin")} (it is the in-place update readiness gate)`;
    expect(parseIdentityRefusal(denied)).toEqual({ expected: SA, actual: "admin" });
  });
  it("quotes and backslashes in a username survive the round trip", () => {
    const odd = 'we"ird\\user';
    expect(parseIdentityRefusal(`x: ${reconcilerOnly(SA, odd)}`)).toEqual({ expected: SA, actual: odd });
  });
  it("an older webhook's words (no caller) give the expected identity only", () => {
    expect(parseIdentityRefusal(`Forbidden: added "{}": only the reconciler ("${SA}") may write it`)).toEqual({ expected: SA });
  });
  it.each(["pods \"web-0\" is forbidden: User \"bob\" cannot patch resource", "Conflict: the object has been modified", ""])("%j is no identity refusal", (m) => {
    expect(parseIdentityRefusal(m)).toBeUndefined();
  });
});

describe("identityMismatchMessage", () => {
  it("names both identities and both fixes", () => {
    expect(identityMismatchMessage({ expected: SA, actual: "admin" })).toBe(
      `Ordinal's webhook refuses the reconciler's writes: the reconciler runs as "admin", the webhooks accept only "${SA}" as the reconciler. ` +
        `Fix: run the reconciler with that identity's credentials (docs/install.md: "Run the reconciler outside the cluster"), or set RECONCILER_USERNAME=admin where the webhooks run`,
    );
  });
  it("says what it does not know", () => {
    expect(identityMismatchMessage({ expected: SA })).toContain('runs as another identity, the webhooks accept only "system:serviceaccount:ordinal-system:ordinal-reconciler"');
  });
});
