/**
 * Settings from the environment (Worker vars/secrets or process.env), parsed as strictly as flags:
 * one table, SETTINGS, says for each variable what it accepts and what it is when unset. A value
 * the table refuses is an error naming the variable and what it expects — never a silent NaN or a
 * silent default. To add a setting: add a row, then read it with `setting(vars, "NAME")`.
 */

/** SettingError is a variable the table refuses; the runtimes print it and do not start. */
export class SettingError extends Error {
  override readonly name = "SettingError";
}

interface Setting<T> {
  /** parse returns the value of a set (non-empty) variable, or throws a SettingError via `refuse`. */
  parse(raw: string, refuse: (expected: string) => never): T;
  /** The value when the variable is unset or empty. */
  fallback: T;
}

/** integer accepts whole decimal numbers in [min, max] (no units: "45s" is refused). */
const integer = (min: number, max: number, unit = ""): Setting<number>["parse"] => (raw, refuse) => {
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) refuse(`a whole number${unit} from ${min} to ${max}`);
  return n;
};

/** oneOf accepts exactly one of `values`. */
const oneOf = <T extends string>(...values: T[]): Setting<T>["parse"] => (raw, refuse) => {
  if (!(values as string[]).includes(raw)) refuse(`one of ${values.join(", ")}`);
  return raw as T;
};

/** yesNo accepts true/false, 1/0 and yes/no (a typo such as "ture" is refused, not read as false). */
const yesNo: Setting<boolean>["parse"] = (raw, refuse) => {
  if (["true", "1", "yes"].includes(raw)) return true;
  if (["false", "0", "no"].includes(raw)) return false;
  return refuse("true or false");
};

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The settings whose values are checked here (free-form ones, such as URLs and keys, are read where used). */
const SETTINGS = {
  /** Lowest level logged; unset: info (warn for the embedded simulation). */
  LOG_LEVEL: { parse: oneOf(...LOG_LEVELS), fallback: undefined as LogLevel | undefined },
  /** Time one reconcile invocation may take, in milliseconds. */
  RECONCILE_BUDGET_MS: { parse: integer(1000, 3_600_000, " of milliseconds"), fallback: 45_000 },
  /** Apiserver requests one Worker invocation may make (Free plan 50, Paid 10,000). */
  MAX_SUBREQUESTS: { parse: integer(30, 10_000_000), fallback: 900 },
  /** `ordinal serve`'s listen port and reconcile interval (their flags win). */
  PORT: { parse: integer(1, 65_535), fallback: 8443 },
  RECONCILE_INTERVAL_MS: { parse: integer(100, 3_600_000, " of milliseconds"), fallback: 10_000 },
  /**
   * `ordinal serve`: the reconcile thread's heap (old generation, MB). A pass that needs more ends
   * that thread only; the webhooks keep answering (src/node/reconcile-thread.ts). 0: no thread.
   */
  RECONCILE_HEAP_MB: { parse: integer(0, 65_536, " of megabytes"), fallback: 128 },
  /**
   * `ordinal serve`: the watch cache's budget (MB of JSON held; the heap it takes is about 2–3×
   * that, within RECONCILE_HEAP_MB). A resource past its share is read from the apiserver instead. 0: no cache.
   */
  WATCH_CACHE_MB: { parse: integer(0, 65_536, " of megabytes"), fallback: 16 },
  /** Shards the namespaces are hashed onto, one writer each: the Worker's Durable Objects; `ordinal serve`'s Leases (one elector each). */
  RECONCILE_SHARDS: { parse: integer(1, 256), fallback: 1 },
  /**
   * `ordinal serve`: the reconciler Leases' duration in seconds (client-go's LeaseDuration; renew
   * deadline 2/3 of it, retry period 1/3): how long the others wait before taking a dead replica's
   * shards over. Shorter: faster takeover, more Lease writes.
   */
  RECONCILE_LEASE_SECONDS: { parse: integer(3, 300, " of seconds"), fallback: 30 },
  VALIDATE_APPS_V1_STATEFULSETS: { parse: yesNo, fallback: false },
  WEBHOOK_MTLS: { parse: yesNo, fallback: false },
  /** Whether registration creates missing webhook configurations (create), only repairs existing ones (update, deploy/'s) or does nothing (off). */
  WEBHOOK_REGISTRATION: { parse: oneOf("create", "update", "off"), fallback: "create" as "create" | "update" | "off" },
  /** KUBE_API_URL without KUBE_TOKEN acts as system:anonymous only when this says so. */
  KUBE_ANONYMOUS: { parse: yesNo, fallback: false },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;

/** setting returns the parsed value of variable `name` in `vars`, its fallback when unset, or throws a SettingError. */
export function setting<K extends SettingName>(vars: Record<string, string | undefined>, name: K): Settings[K]["fallback"] {
  const raw = vars[name]?.trim();
  const row: Setting<Settings[K]["fallback"]> = SETTINGS[name];
  if (!raw) return row.fallback;
  return row.parse(raw, (expected) => {
    throw new SettingError(`${name} must be ${expected}, got ${JSON.stringify(vars[name])}`);
  });
}

/**
 * checkKubeToken throws a SettingError when KUBE_API_URL is set without KUBE_TOKEN, unless
 * KUBE_ANONYMOUS=true says that acting as system:anonymous is meant.
 */
export function checkKubeToken(vars: Record<string, string | undefined>): void {
  if (vars.KUBE_API_URL && !vars.KUBE_TOKEN && !setting(vars, "KUBE_ANONYMOUS")) {
    throw new SettingError("KUBE_API_URL is set without KUBE_TOKEN: set KUBE_TOKEN (a ServiceAccount token), or KUBE_ANONYMOUS=true to call the apiserver as system:anonymous");
  }
}
