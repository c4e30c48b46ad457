/**
 * Structured logging: one JSON object per line, `{time, level, msg, ...fields}`. The app logs
 * through this interface only; never put tokens or request bodies in `fields`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** jsonLogger writes JSON lines through `write` (console.log by default: stdout on Node, the Worker's log stream). */
export function jsonLogger(write: (line: string) => void = (line) => console.log(line), minLevel: LogLevel = "info"): Logger {
  const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return (level, msg, fields = {}) => {
    if (rank[level] < rank[minLevel]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = () => {};

/** errorFields turns a thrown value into loggable fields (message and stack, no secrets of ours). */
export function errorFields(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { error: e.message, errorName: e.name, stack: e.stack } : { error: String(e) };
}
