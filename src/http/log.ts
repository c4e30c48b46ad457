/** Logging for the HTTP layer: the reconciler's structured Logger (JSON lines), plus error fields. */
export type { Logger } from "../log/log.ts";

/** errorFields turns a thrown value into loggable fields: message, name and stack. */
export function errorFields(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { error: e.message, errorName: e.name, stack: e.stack } : { error: String(e) };
}
