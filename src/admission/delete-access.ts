import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * "May this user delete that pod?", asked of the apiserver with a SubjectAccessReview
 * (authorization.k8s.io/v1, the reconciler's ServiceAccount may create them: src/deploy/rbac.ts):
 * the chosen-deletion webhook (specified-delete.ts) honours the label only from someone who may.
 */

/** Who asked, as the AdmissionReview's userInfo says. */
interface Requester {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: unknown;
}

/** The apiserver's answer: allowed, and its reason when it gave one. */
interface AccessAnswer {
  allowed: boolean;
  reason?: string;
}

/**
 * MayDeletePod returns whether `user` may delete the pod `name` in `namespace`; it throws when it
 * cannot tell (the apiserver unreachable, too many questions in flight).
 */
export type MayDeletePod = (user: Requester, namespace: string, name: string) => Promise<AccessAnswer>;

/** Reviews in flight at once; more are refused at once (forged reviews cost at most this many cheap apiserver calls at a time). */
const MAX_REVIEWS_IN_FLIGHT = 16;

/** extraOf keeps the userInfo.extra entries that are lists of strings (the only shape the API has). */
function extraOf(extra: unknown): Record<string, string[]> | undefined {
  if (typeof extra !== "object" || extra === null || Array.isArray(extra)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extra)) if (Array.isArray(v) && v.every((x) => typeof x === "string")) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** mayDeletePodWith returns a MayDeletePod that sends one SubjectAccessReview per question, at most `maxInFlight` at once. */
export function mayDeletePodWith(client: KubeClient, maxInFlight = MAX_REVIEWS_IN_FLIGHT): MayDeletePod {
  let inFlight = 0;
  return async (user, namespace, name) => {
    if (inFlight >= maxInFlight) throw new Error(`${inFlight} permission checks are in flight already`);
    inFlight++;
    try {
      const extra = extraOf(user.extra);
      const spec = {
        ...(user.username ? { user: user.username } : {}),
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.groups?.length ? { groups: user.groups } : {}),
        ...(extra ? { extra } : {}),
        resourceAttributes: { namespace, verb: "delete", group: "", version: "v1", resource: "pods", name },
      };
      const review: { status?: { allowed?: boolean; reason?: string } } = await client.create(R.subjectAccessReviews, undefined, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec,
      } as object);
      const reason = review.status?.reason;
      return { allowed: review.status?.allowed === true, ...(reason ? { reason } : {}) };
    } finally {
      inFlight--;
    }
  };
}
