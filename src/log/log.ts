import type { LogLevel } from "../settings.ts";

/** Structured logs: one JSON object per line. Never pass tokens or keys in `fields`. */
export interface Logger {
  /** Routine steps (a Lease renewed, a set with nothing to do): off unless LOG_LEVEL=debug; a Logger without it drops them. */
  debug?(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = { debug: -1, info: 0, warn: 1, error: 2 } as const satisfies Record<LogLevel, number>;
export type { LogLevel };

/**
 * jsonLogger returns a Logger that writes JSON lines through `write` (console.log by default),
 * dropping messages below `minLevel`.
 */
export function jsonLogger(write: (line: string) => void = (l) => console.log(l), base: Record<string, unknown> = {}, minLevel: LogLevel = "info"): Logger {
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] >= LEVELS[minLevel]) write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields }));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** silentLogger drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** errorFields turns a thrown value into loggable fields: message, name, stack and the message of its cause. */
export function errorFields(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { error: String(e) };
  return { error: e.message, errorName: e.name, stack: e.stack, ...(e.cause instanceof Error ? { cause: e.cause.message } : {}) };
}
