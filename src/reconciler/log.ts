/** The logger lives in src/log; this re-export keeps the reconciler's own imports short. */
export { silentLogger, type Logger } from "../log/log.ts";
