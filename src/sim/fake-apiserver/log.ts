// The request log: every request the fake answered (or dropped), with counts per verb and resource.

import type { RequestInfo } from "../faults/request-info.ts";

export type { RequestInfo };

/** RequestRecord is one logged request (its RequestInfo, the query as text, no body) and what became of it. */
export interface RequestRecord extends Omit<RequestInfo, "query" | "body"> {
  seq: number;
  /** the query string, `?…` or '' */
  query: string;
  /** HTTP status sent; 0 when no response reached the client (network fault, lost response, crash) */
  code: number;
  /** the injected fault, if any */
  fault?: string;
}

export type RecordFilter = Partial<Omit<RequestRecord, "seq" | "query" | "path">> & { path?: RegExp };

function matches(r: RequestRecord, f: RecordFilter): boolean {
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined) continue;
    if (k === "path") {
      if (!(v as RegExp).test(r.path)) return false;
    } else if (r[k as keyof RequestRecord] !== v) {
      return false;
    }
  }
  return true;
}

/** RequestLog keeps the last `limit` records and running totals per `verb resource[/subresource]`. */
export class RequestLog {
  private readonly records: RequestRecord[] = [];
  private readonly totals = new Map<string, number>();
  private seq = 0;

  constructor(private readonly limit: number) {}

  add(r: Omit<RequestRecord, "seq">): RequestRecord {
    const rec = { seq: ++this.seq, ...r };
    this.records.push(rec);
    if (this.records.length > this.limit) this.records.splice(0, this.records.length - this.limit);
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""}`;
    this.totals.set(key, (this.totals.get(key) ?? 0) + 1);
    return rec;
  }

  /** entries are the kept records, oldest first. */
  get entries(): readonly RequestRecord[] {
    return this.records;
  }

  /** count counts kept records matching every given field, e.g. `{ verb: 'patch', resource: 'pods' }`. */
  count(filter: RecordFilter = {}): number {
    let n = 0;
    for (const r of this.records) if (matches(r, filter)) n++;
    return n;
  }

  /** totals since the last clear: `{ "list pods": 3, "update statefulsets/status": 1 }`. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.totals].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** total is the number of requests since the last clear. */
  get total(): number {
    let n = 0;
    for (const v of this.totals.values()) n += v;
    return n;
  }

  clear(): void {
    this.records.length = 0;
    this.totals.clear();
  }
}
