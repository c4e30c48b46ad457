/**
 * The Worker's bindings and variables, shared by its handlers (src/worker/handlers.ts) and its
 * Durable Object per shard (src/worker/shard-object.ts).
 */
import type { KubeClient } from "../kube/client.ts";
import { createKubeClient, type FetchLike } from "../kube/http.ts";
import { checkKubeToken, setting } from "../settings.ts";

/** The parts of a Durable Object namespace binding the Worker uses (the full runtime types clash with DOM's). */
export interface ShardNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** The bindings; the variables (vars and secrets) are read through src/settings.ts (varsOf). */
export interface Env {
  /** Optional Workers VPC binding that reaches a private apiserver. */
  KUBE_API?: { fetch: FetchLike };
  /** The ShardReconciler Durable Objects (wrangler.toml): one single writer per shard of namespaces. */
  SHARDS?: ShardNamespace;
  [key: string]: unknown;
}

/** varsOf returns the env's string variables (vars and secrets), without the bindings. */
export const varsOf = (env: Env) => Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string")) as Record<string, string>;

/**
 * clientFor returns the apiserver client of this Worker, or undefined when no cluster is configured;
 * throws when KUBE_API_URL comes without KUBE_TOKEN (and KUBE_ANONYMOUS does not say so).
 * `userAgent` is what the apiserver's audit log names its requests (default "ordinal").
 */
export function clientFor(env: Env, userAgent?: string): KubeClient | undefined {
  const vars = varsOf(env);
  const baseUrl = setting(vars, "KUBE_API_URL");
  if (!baseUrl) return undefined;
  checkKubeToken(vars);
  const binding = env.KUBE_API;
  return createKubeClient({ baseUrl, token: setting(vars, "KUBE_TOKEN"), fetch: binding ? (i, init) => binding.fetch(i, init) : undefined, userAgent });
}

/** shardName returns the name of shard `index`'s Durable Object. */
export const shardName = (index: number): string => `shard-${index}`;
