/**
 * Probes and lifecycle handlers (validateProbe, validateHandler, validateLifecycle of
 * pkg/apis/core/validation): exactly one handler; probe timings non-negative after defaulting
 * (so 0 means the default and ≥1 is required of explicit values); liveness and startup probes
 * must have successThreshold 1.
 */
import type { FieldPath} from "./field-error.ts";
import { type FieldError, forbidden, internalError, invalid, notSupported, required } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { type JsonObject } from "./json.ts";
import { isHTTPHeaderName, isValidPortName, isValidPortNum } from "./names.ts";
import { nonNegative } from "./pod-fields.ts";

function validatePortNumOrName(port: number | string | undefined, path: FieldPath): FieldError[] {
  if (typeof port === "number") return isValidPortNum(port).map((m) => invalid(path, port, m));
  if (typeof port === "string") return isValidPortName(port).map((m) => invalid(path, port, m));
  return [internalError(path, "unknown type: 0")];
}

const HANDLERS = ["exec", "httpGet", "tcpSocket", "grpc", "sleep"] as const;

function validateHandler(r: Reader, h: JsonObject, allowed: readonly string[], gracePeriod: number, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const kind of HANDLERS) {
    if (!allowed.includes(kind) || h[kind] === undefined || h[kind] === null) continue;
    const hp = path.child(kind);
    if (n > 0) {
      errs.push(forbidden(hp, "may not specify more than 1 handler type"));
      continue;
    }
    n++;
    const a = r.obj(h[kind], hp);
    if (!a) continue;
    switch (kind) {
      case "exec":
        if ((r.strList(a.command, hp.child("command")) ?? []).length === 0) errs.push(required(hp.child("command")));
        break;
      case "httpGet": {
        if (!r.str(a.path, hp.child("path"))) errs.push(required(hp.child("path")));
        errs.push(...validatePortNumOrName(r.intOrString(a.port, hp.child("port")), hp.child("port")));
        const scheme = r.str(a.scheme, hp.child("scheme")) ?? "";
        if (scheme !== "HTTP" && scheme !== "HTTPS") errs.push(notSupported(hp.child("scheme"), scheme, ["HTTP", "HTTPS"]));
        for (const { item } of r.objList(a.httpHeaders, hp.child("httpHeaders"))) {
          const name = r.str(item.name, hp.child("httpHeaders")) ?? "";
          for (const msg of isHTTPHeaderName(name)) errs.push(invalid(hp.child("httpHeaders"), name, msg));
        }
        break;
      }
      case "tcpSocket":
        errs.push(...validatePortNumOrName(r.intOrString(a.port, hp.child("port")), hp.child("port")));
        break;
      case "grpc":
        errs.push(...validatePortNumOrName(r.int32(a.port, hp.child("port")) ?? 0, hp.child("port")));
        break;
      case "sleep": {
        const seconds = r.int64(a.seconds, hp.child("seconds")) ?? 0;
        if (seconds <= 0 || seconds > gracePeriod)
          errs.push(invalid(hp, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod})`));
        break;
      }
    }
  }
  if (n === 0) errs.push(required(path, "must specify a handler type"));
  return errs;
}

export type ProbeKind = "livenessProbe" | "readinessProbe" | "startupProbe";

/** validateProbe checks a (defaulted) probe of the given kind; `probe` may be absent. */
export function validateProbe(r: Reader, probe: unknown, kind: ProbeKind, gracePeriod: number, path: FieldPath): FieldError[] {
  const p = r.obj(probe, path);
  if (!p) return [];
  const errs = validateHandler(r, p, ["exec", "httpGet", "tcpSocket", "grpc"], gracePeriod, path);
  for (const f of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"])
    errs.push(...nonNegative(r.int32(p[f], path.child(f)), path.child(f)));
  const tgps = r.int64(p.terminationGracePeriodSeconds, path.child("terminationGracePeriodSeconds"));
  if (tgps !== undefined && tgps <= 0) errs.push(invalid(path.child("terminationGracePeriodSeconds"), tgps, "must be greater than 0"));
  if (kind === "readinessProbe" && tgps !== undefined)
    errs.push(invalid(path.child("terminationGracePeriodSeconds"), tgps, "must not be set for readinessProbes"));
  if (kind !== "readinessProbe" && typeof p.successThreshold === "number" && p.successThreshold !== 1)
    errs.push(invalid(path.child("successThreshold"), p.successThreshold, "must be 1"));
  return errs;
}

/** validateLifecycle checks postStart and preStop handlers. */
export function validateLifecycle(r: Reader, lifecycle: JsonObject, gracePeriod: number, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const hook of ["postStart", "preStop"]) {
    const h = r.obj(lifecycle[hook], path.child(hook));
    if (h) errs.push(...validateHandler(r, h, ["exec", "httpGet", "tcpSocket", "sleep"], gracePeriod, path.child(hook)));
  }
  return errs;
}
