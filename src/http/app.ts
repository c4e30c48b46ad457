import type { Context } from "hono";
import { Hono } from "hono/tiny";
import { HTTPException } from "hono/http-exception";
import { mutatePod, mutatePodFailed, type LookupStatefulSet } from "../admission/mutate-pods.ts";
import { mutateStatefulSet } from "../admission/mutate-statefulsets.ts";
import {
  AdmissionReviewSchema,
  allow,
  deny,
  gkString,
  reviewOf,
  type AdmissionRequest,
  type AdmissionResult,
  type GroupKind,
} from "../admission/types.ts";
import { validateImageListRequest } from "../admission/validate-imagelists.ts";
import { validatePodRequest } from "../admission/validate-pods.ts";
import { validateChosenDelete } from "../admission/specified-delete.ts";
import type { MayDeletePod } from "../admission/delete-access.ts";
import { statefulSetRequestSteps, validateStatefulSetRequest } from "../admission/validate-statefulsets.ts";
import { runStepsPausing } from "../validation/steps.ts";
import { hooksSend, WEBHOOK_PATHS } from "../webhook-config/webhook-configs.ts";
import { GROUP } from "../api/statefulset.ts";
import { webhookAuth, type AuthConfig, type ClientCertificate } from "../auth/webhook-auth.ts";
import { MAX_OBJECT_VALUES, MAX_STRING_CHARS, MEASURED_PARTS } from "../admission/limits.ts";
import { BodyBudget, webBody, type BodySource } from "./bytes-in-flight.ts";
import { declaredLengthLimit } from "./body-limit.ts";
import { replaceSpans, scanJson } from "./json-scan.ts";
import { exceedsDepth, MAX_JSON_DEPTH } from "./limits.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { wakeOf, type Wake } from "../admission/wakes.ts";

/**
 * The HTTP face of Ordinal, the same hono app in the Worker and on Node: authenticate, bound the
 * body, check the AdmissionReview envelope, call a pure handler, wrap and log the answer. The
 * handlers (src/admission) decide; nothing here does.
 */

/** Largest AdmissionReview accepted; the apiserver's own request limit is 3 MiB. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface AppDeps {
  /** How the apiserver authenticates to the webhooks (bearer JWT and/or verified mTLS). */
  auth: AuthConfig;
  /** Node only: the request's client certificate when the TLS server verified it, else undefined. */
  clientCertificate?(c: Context): ClientCertificate | undefined;
  /** `userInfo.username` of the reconciler; the only caller that may change identity labels. */
  reconcilerUsername: string;
  /** Validate apps/v1 StatefulSets too (when the apps-v1 webhook configuration is registered). */
  validateAppsV1StatefulSets: boolean;
  /**
   * An admitted request changed something a set's plan reads (src/admission/wakes.ts): reconcile
   * that set soon. On Node, the scheduler's targeted pass; in the Worker, `waitUntil` the forwarding
   * of the wake. Must not throw; errors of the promise are logged.
   */
  onWake?(wake: Wake, waitUntil: (p: Promise<unknown>) => void): void;
  /**
   * Reads a set for the mutating hook (wired to the KubeClient; see `lookupStatefulSetWith`). Its
   * cache is filled from the apiserver only (a GET, or Node's watch: `SetLookup.remember`), never
   * from a review body: anyone who reaches the webhooks can send one (G4 of issue 35).
   */
  lookupStatefulSet?: LookupStatefulSet;
  /** Asks the apiserver whether a user may delete a pod, for the chosen-deletion hook (`mayDeletePodWith`); absent: that hook refuses every addition of the label. */
  mayDeletePod?: MayDeletePod;
  log: Logger;
  /** Defaults to MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /**
   * The request body as it arrives. Default: the web stream `c.req.raw.body` (the Worker's own);
   * Node passes the socket's IncomingMessage (`nodeBody`), which skips building a web Request.
   */
  bodySource?(c: Context): BodySource;
  /** The bytes of request bodies held at once (bytes-in-flight.ts); default: a BodyBudget of MAX_BYTES_IN_FLIGHT. */
  budget?: BodyBudget;
}

interface AdmissionRoute {
  path: string;
  /**
   * Kinds (`request.kind`) the route handles; others are a 400. "rules": the requests its hooks'
   * rules send (the wake hook: see hooksSend), others are a 400 and wake nothing.
   */
  kinds: GroupKind[] | "rules";
  handle(req: AdmissionRequest): AdmissionResult | Promise<AdmissionResult>;
  /** The answer when `handle` throws (validating hooks deny; see mutatePodFailed for the mutating one). */
  failed(req: AdmissionRequest, message: string): AdmissionResult;
  /** The handler refuses objects with a container over MAX_OBJECT_VALUES members in these parts (see `readBody`). */
  bounded?: boolean;
  /** false: the request wakes nothing (another hook that sees the same request wakes the set). */
  wakes?: false;
}

/**
 * pause lets the event loop run other callbacks (setImmediate: after pending I/O), or is undefined
 * where there is no setImmediate. Long requests pause between their parts (large bodies after
 * parsing; a StatefulSet between its validation steps), so one hostile object cannot hold every
 * other webhook call, and /healthz, for the whole of its judgement.
 */
const pause: (() => Promise<void>) | undefined =
  typeof globalThis.setImmediate === "function" ? () => new Promise<void>((resolve) => setImmediate(resolve)) : undefined;

/** Bodies from this size on are parsed in a step of their own (see pause). */
const PAUSE_AFTER_PARSE_BYTES = 64 * 1024;

/** A stand-in for a container over the bound: MAX_OBJECT_VALUES + 1 members, as cheap to parse as JSON gets. */
let standIn: string | undefined;

/**
 * readBody returns the body's JSON text, and for a route whose handler refuses oversized objects
 * its nesting depth as well (scanned from the text, with the sizes of the measured parts). There,
 * a crowded container of the measured parts is replaced by a stand-in of MAX_OBJECT_VALUES + 1
 * zeros first: the handler answers exactly as it would to the original (the same Forbidden: with
 * no string over MAX_STRING_CHARS there, the count decides), and JSON.parse need not build, say,
 * an object of 60,000 keys (tens of milliseconds) only for it to be refused.
 */
function readBody(text: string, route: AdmissionRoute): { text: string; depth?: number } {
  if (!route.bounded) return { text };
  const scan = scanJson(text, MEASURED_PARTS);
  if (scan.crowded.length === 0 || scan.longestString > MAX_STRING_CHARS) return { text, depth: scan.depth };
  standIn ??= `[${"0,".repeat(MAX_OBJECT_VALUES)}0]`;
  return { text: replaceSpans(text, scan.crowded, standIn), depth: scan.depth };
}

const denyOnFailure = (req: AdmissionRequest, message: string): AdmissionResult => ({
  response: deny(req, { code: 500, reason: "InternalError", message: `Ordinal's webhook failed: ${message}` }),
});

const POD: GroupKind = { group: "", kind: "Pod" };

/** createApp returns the hono app serving the webhooks, `/healthz` and `/`. Throws on bad deps (e.g. no auth). */
export function createApp(deps: AppDeps): Hono {
  const { log } = deps;
  const routes: AdmissionRoute[] = [
    {
      path: WEBHOOK_PATHS.mutatePods,
      kinds: [POD],
      handle: (req) => mutatePod(req, { lookupStatefulSet: deps.lookupStatefulSet }),
      failed: mutatePodFailed,
    },
    {
      path: WEBHOOK_PATHS.mutateStatefulSets,
      kinds: [{ group: GROUP, kind: "StatefulSet" }],
      handle: (req) => mutateStatefulSet(req),
      // Defaults only: a failure admits the set unchanged (the reconciler reads the same defaults).
      failed: (req, message) => ({ response: allow(req, [`Ordinal's mutating webhook failed (${message}); the set was admitted without its rollingUpdate defaults`]) }),
      // The validating hook sees the same write and wakes the set.
      wakes: false,
    },
    {
      path: WEBHOOK_PATHS.validatePods,
      // Binding: pods/binding; EphemeralContainers: 1.20's pods/ephemeralcontainers.
      kinds: [POD, { group: "", kind: "Binding" }, { group: "", kind: "EphemeralContainers" }],
      failed: denyOnFailure,
      handle: (req) => validatePodRequest(req, { reconcilerUsername: deps.reconcilerUsername }),
    },
    {
      path: WEBHOOK_PATHS.validateSpecifiedDelete,
      kinds: [POD],
      failed: denyOnFailure,
      handle: (req) => validateChosenDelete(req, { reconcilerUsername: deps.reconcilerUsername, mayDeletePod: deps.mayDeletePod }),
      // The pod hook sees the same write and wakes the set.
      wakes: false,
    },
    {
      path: WEBHOOK_PATHS.validateStatefulSets,
      kinds: [
        { group: GROUP, kind: "StatefulSet" },
        { group: "apps", kind: "StatefulSet" },
      ],
      failed: denyOnFailure,
      handle: (req) => {
        const opts = { validateAppsV1StatefulSets: deps.validateAppsV1StatefulSets };
        return pause ? runStepsPausing(statefulSetRequestSteps(req, opts), pause) : validateStatefulSetRequest(req, opts);
      },
      bounded: true,
    },
    {
      path: WEBHOOK_PATHS.validateImageLists,
      kinds: [{ group: GROUP, kind: "ImageList" }],
      failed: denyOnFailure,
      handle: (req) => validateImageListRequest(req),
      bounded: true,
    },
    {
      // Wake-only rules (webhook-configs.ts): admissions no other hook sees, e.g. a set's delete or
      // scale; always allowed, the wake is the point. Only what those rules send is taken.
      path: WEBHOOK_PATHS.wake,
      kinds: "rules",
      failed: (req) => ({ response: allow(req) }),
      handle: (req) => ({ response: allow(req) }),
    },
  ];

  const app = new Hono();
  const auth = webhookAuth(deps.auth, log, deps.clientCertificate);
  const maxSize = deps.maxBodyBytes ?? MAX_BODY_BYTES;
  const tooLarge = (c: Context) => {
    log.warn("webhook request refused", { path: c.req.path, status: 413, limit: maxSize });
    return c.json({ error: "PayloadTooLarge", message: `request body is larger than ${maxSize} bytes` }, 413);
  };
  const limit = declaredLengthLimit({ maxSize, onError: tooLarge });

  app.get("/", (c) =>
    c.json({
      name: "ordinal",
      description: "Admission webhooks of Ordinal, an enhanced Kubernetes StatefulSet (apps.ordinal.dev/v1) that needs no controller pod.",
      webhooks: Object.values(WEBHOOK_PATHS),
      health: "/healthz",
    }),
  );
  app.get("/healthz", (c) => c.text("ok"));

  // What the webhooks hold of request bodies at once is bounded, counted as bytes arrive; a slow sender is cut (bytes-in-flight.ts).
  const budget = deps.budget ?? new BodyBudget({ maxBody: maxSize });
  for (const route of routes) {
    app.post(route.path, auth, limit, (c) => receiveAdmission(c, route, deps, budget, tooLarge));
  }

  app.notFound((c) =>
    c.json({ error: "NotFound", message: `no route for ${c.req.method} ${c.req.path}; webhooks are POST ${Object.values(WEBHOOK_PATHS).join(", ")}` }, 404),
  );
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    log.error("unhandled error", { path: c.req.path, ...errorFields(err) });
    return c.json({ error: "InternalError", message: "internal error; see the server log" }, 500);
  });
  return app;
}

const badRequest = (c: Context, message: string) => c.json({ error: "BadRequest", message }, 400);

/**
 * receiveAdmission reads the body under the budget and serves it. A body over the limit is
 * answered by `tooLarge`; one too slow, or whose connection closed, 408 (if the socket still
 * listens), logged in one warn line without a stack: one per such request.
 */
async function receiveAdmission(c: Context, route: AdmissionRoute, deps: AppDeps, budget: BodyBudget, tooLarge: (c: Context) => Response): Promise<Response> {
  const got = await budget.receive(deps.bodySource?.(c) ?? webBody(c.req.raw.body));
  if (!got.ok) {
    if (got.status === 413) return tooLarge(c);
    deps.log.warn("webhook request body not received", { path: route.path, status: got.status, reason: got.reason, received: got.received, ms: got.ms });
    return c.json({ error: "RequestTimeout", message: got.reason === "closed" ? "request body not completed" : "request body too slow" }, 408);
  }
  try {
    return await serveAdmission(c, route, deps, got.text);
  } finally {
    got.release();
  }
}

async function serveAdmission(c: Context, route: AdmissionRoute, deps: AppDeps, bodyText: string): Promise<Response> {
  const { log } = deps;
  const started = Date.now();
  let body: unknown;
  const { text, depth } = readBody(bodyText, route);
  try {
    body = JSON.parse(text);
  } catch (e) {
    return badRequest(c, `request body is not JSON: ${(e as Error).message}`);
  }
  if (pause && text.length >= PAUSE_AFTER_PARSE_BYTES) await pause();
  if (depth === undefined ? exceedsDepth(body, MAX_JSON_DEPTH) : depth > MAX_JSON_DEPTH) {
    const uid = (body as { request?: { uid?: unknown } }).request?.uid;
    if (typeof uid !== "string" || uid === "") return badRequest(c, `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    log.warn("admission refused: body too deep", { path: route.path, uid, limit: MAX_JSON_DEPTH });
    return c.json(reviewOf(deny({ uid }, { code: 400, reason: "BadRequest", message: `Ordinal refuses objects nested deeper than ${MAX_JSON_DEPTH} levels` })));
  }
  const parsed = AdmissionReviewSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(body)"}: ${i.message}`)
      .join("; ");
    return badRequest(c, `request body is not an AdmissionReview (apiVersion admission.k8s.io/v1, kind AdmissionReview, request): ${issues}`);
  }
  const req = parsed.data.request;
  const kinds = route.kinds;
  if (kinds === "rules" ? !hooksSend(route.path, req) : !kinds.some((k) => k.group === req.kind.group && k.kind === req.kind.kind)) {
    const what = kinds === "rules" ? `only what its hooks' rules send, not ${req.operation} of ${req.resource.resource}${req.subResource ? `/${req.subResource}` : ""}` : `${kinds.map(gkString).join(", ")}, not ${gkString(req.kind)}`;
    return badRequest(c, `${route.path} handles ${what}: check the webhook's rules`);
  }

  let result: AdmissionResult;
  try {
    result = await route.handle(req);
  } catch (e) {
    log.error("admission handler failed", { path: route.path, uid: req.uid, ...errorFields(e) });
    const message = (e instanceof Error ? e.message : String(e)).slice(0, 1000);
    result = route.failed(req, message);
  }

  const wake = deps.onWake && route.wakes !== false && wakeOf(req, result.response.allowed, { reconcilerUsername: deps.reconcilerUsername });
  if (wake) {
    try {
      deps.onWake?.(wake, waitUntilOf(c, log));
    } catch (e) {
      log.error("onWake failed", { namespace: wake.namespace, set: wake.name, reason: wake.reason, ...errorFields(e) });
    }
  }

  const r = result.response;
  // One line per AdmissionReview at debug: a kubelet writes pod status often, and each is a review.
  log.debug?.("admission", {
    path: route.path,
    uid: req.uid,
    kind: gkString(req.kind),
    operation: req.operation,
    subResource: req.subResource,
    namespace: req.namespace,
    name: req.name,
    user: req.userInfo.username,
    dryRun: req.dryRun,
    allowed: r.allowed,
    patched: r.patch !== undefined,
    code: r.status?.code,
    warnings: r.warnings?.length,
    ms: Date.now() - started,
  });
  return c.json(reviewOf(r));
}

/**
 * waitUntilOf returns the Worker's `ctx.waitUntil` when there is one, else a fire-and-forget
 * (Node). Either way a rejected promise is logged, never thrown.
 */
function waitUntilOf(c: Context, log: Logger): (p: Promise<unknown>) => void {
  let waitUntil: ((p: Promise<unknown>) => void) | undefined;
  try {
    const ctx = c.executionCtx;
    waitUntil = (p) => ctx.waitUntil(p);
  } catch {
    waitUntil = undefined; // Node: hono has no ExecutionContext
  }
  return (p) => {
    const guarded = p.catch((e: unknown) => log.error("wake failed", errorFields(e)));
    waitUntil?.(guarded);
  };
}
