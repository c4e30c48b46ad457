/**
 * The apiserver's audit log (test/cluster/start.sh with ORDINAL_AUDIT_LOG: level Metadata, one JSON
 * line per request): who did what, when, with which User-Agent. The latency benchmark counts each
 * controller's requests from it; the shards e2e checks that no namespace was written by two
 * `ordinal serve` replicas (User-Agent `ordinal/<holder>`) at once.
 */
import { readFileSync } from "node:fs";

/** One request from the audit log (stage ResponseComplete). */
export interface AuditEvent {
  at: number;
  user: string;
  userAgent: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** parseLine returns the JSON of one line, or an empty object for a line an apiserver killed mid-write left cut off (the chaos run restarts it). */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return {};
  }
}

/** readAuditLog returns every completed request the apiserver logged to `file` so far (lines cut off by a killed apiserver skipped). */
export function readAuditLog(file: string): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const e = parseLine(line) as {
      stage: string;
      requestReceivedTimestamp: string;
      user?: { username?: string };
      userAgent?: string;
      verb: string;
      objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
    };
    if (e.stage !== "ResponseComplete") continue;
    out.push({
      at: Date.parse(e.requestReceivedTimestamp),
      user: e.user?.username ?? "",
      userAgent: e.userAgent ?? "",
      verb: e.verb,
      resource: e.objectRef?.resource ?? "",
      subresource: e.objectRef?.subresource,
      namespace: e.objectRef?.namespace,
      name: e.objectRef?.name,
    });
  }
  return out;
}
