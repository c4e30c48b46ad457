import { SET_NAME_LABEL } from "../objects/constants.ts";
import type { Logger } from "../log/log.ts";
import { ApiError, type KubeClient } from "../kube/client.ts";
import type { ResourceRef } from "../kube/resources.ts";
import type { Metrics } from "./metrics.ts";

const WRITES = new Set(["create", "update", "patch", "delete", "createSubresource"]);
const VERB: Record<string, string> = { get: "GET", list: "LIST", create: "POST", createSubresource: "POST", update: "PUT", patch: "PATCH", delete: "DELETE" };

/** setOf returns the set a request concerns: the object's set label, else a pod's name without its ordinal. */
function setOf(r: ResourceRef, name: string | undefined, obj: unknown): string | undefined {
  const labels = (obj as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels;
  if (labels?.[SET_NAME_LABEL]) return labels[SET_NAME_LABEL];
  if (r.resource === "statefulsets") return name;
  if (r.resource === "pods" && name) return /^(.*)-\d+$/.exec(name)?.[1];
  return undefined;
}

/**
 * instrumentClient returns a KubeClient that counts every request in `m` (verb, resource, code)
 * and logs every write as one JSON line with set, pod and action, and its outcome: a failure at
 * warn, a Lease write (every pass renews it) at debug, the rest at info. Reads are counted, not logged.
 */
export function instrumentClient(client: KubeClient, m: Metrics, log?: Logger): KubeClient {
  const wrap =
    <A extends unknown[], T>(method: string, fn: (...a: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      const r = args[0] as ResourceRef;
      const ns = args[1] as string | undefined;
      const obj = method === "create" || method === "update" ? args[2] : undefined;
      const name = typeof args[2] === "string" ? args[2] : (obj as { metadata?: { name?: string } } | undefined)?.metadata?.name;
      const sub = method === "patch" ? (args[5] as string | undefined) : method === "update" ? (args[3] as string | undefined) : method === "createSubresource" ? (args[3] as string) : undefined;
      const resource = sub ? `${r.resource}/${sub}` : r.resource;
      let code = 200;
      try {
        const out = await fn(...args);
        if ((method === "get" && out === undefined) || (method === "delete" && out === false)) code = 404;
        return out;
      } catch (e) {
        code = e instanceof ApiError ? e.code : 0;
        throw e;
      } finally {
        m.inc("ordinal_apiserver_requests_total", { verb: VERB[method], resource, code: String(code) }, 1, "Apiserver requests by verb, resource and HTTP code (0: no answer)");
        if (WRITES.has(method) && log) {
          const set = setOf(r, name, obj);
          const ok = (code < 300 && code > 0) || (method === "delete" && code === 404);
          // A failure is a warning; the Lease renewed every pass is routine (debug); the rest is info.
          const at = !ok ? log.warn : r.resource === "leases" ? log.debug : log.info;
          at?.call(log, "action", {
            action: `${VERB[method]} ${resource}`,
            namespace: ns,
            set: set && ns ? `${ns}/${set}` : set,
            ...(r.resource === "pods" ? { pod: name } : { name }),
            outcome: ok ? "ok" : "error",
            code,
          });
        }
      }
    };
  return {
    serverVersion: client.serverVersion.bind(client),
    get: wrap("get", client.get.bind(client)),
    list: wrap("list", client.list.bind(client)),
    create: wrap("create", client.create.bind(client)),
    createSubresource: wrap("createSubresource", client.createSubresource.bind(client)),
    update: wrap("update", client.update.bind(client)),
    patch: wrap("patch", client.patch.bind(client)),
    delete: wrap("delete", client.delete.bind(client)),
    get requestCount() {
      return client.requestCount;
    },
  } as KubeClient;
}
