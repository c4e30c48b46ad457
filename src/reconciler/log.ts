/** The logger lives in src/log; this re-export keeps the reconciler's own imports short. */
export { jsonLogger, silentLogger, type Logger, type LogLevel } from "../log/log.ts";
