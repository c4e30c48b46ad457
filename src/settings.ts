/**
 * Every setting Ordinal reads from its environment (Worker vars/secrets or process.env), in one
 * table: SETTINGS says for each variable what it accepts, what it is when unset, what it means and
 * which runtimes read it; docs/settings.md is generated from it (`npm run gen`). Values are parsed
 * as strictly as flags: a value the table refuses is a SettingError naming the variable and what it
 * expects (the `ordinal` commands print it and exit 2; the Worker answers 503 with it) — never a
 * silent NaN or a silent default. Nothing else reads the environment: read a setting with
 * `setting(vars, "NAME")`, and pass values on, never a changed copy of the environment.
 * To add a setting: add a row, then read it where it is used.
 */
import { INSTALL_NAMESPACE } from "./deploy/identity.ts";

/** SettingError is a setting refused (a bad value, or two that contradict each other); the runtimes print it and do not start (exit 2). */
export class SettingError extends Error {
  override readonly name = "SettingError";
}

/** Where a setting is read: the Cloudflare Worker, `ordinal serve` (Node), the other `ordinal` commands. */
export type Runtime = "Worker" | "serve" | "CLI";

interface Setting<T> {
  /** What the variable accepts, in words (for the docs and the error). */
  type: string;
  /** parse returns the value of a set (non-empty) variable, or throws a SettingError via `refuse`. */
  parse(raw: string, refuse: (expected: string) => never): T;
  /** The value when the variable is unset or empty. */
  fallback: T;
  /** The default in words, when the fallback (undefined) stands for something computed elsewhere. */
  unset?: string;
  /** What the setting does. */
  meaning: string;
  runtimes: readonly Runtime[];
  /** A credential: never logged (docs say to keep it in a secret). */
  secret?: boolean;
}

/** What a kind of setting accepts: its words and its parser. */
type Kind<T> = Pick<Setting<T>, "type" | "parse">;

/** row fills in a table row; `type` and `parse` come from a kind below. */
const row = <T, F extends T | undefined>(kind: Kind<T>, fallback: F, runtimes: readonly Runtime[], meaning: string, more: Pick<Setting<T>, "unset" | "secret"> = {}): Setting<T | F> => ({ ...kind, fallback, runtimes, meaning, ...more });

/** integer accepts whole decimal numbers in [min, max] (no units: "45s" is refused). */
const integer = (min: number, max: number, unit = ""): Kind<number> => {
  const type = `a whole number${unit} from ${min} to ${max}`;
  return {
    type,
    parse: (raw, refuse) => {
      const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(n >= min && n <= max)) refuse(type);
      return n;
    },
  };
};

/** oneOf accepts exactly one of `values`. */
const oneOf = <T extends string>(...values: T[]): Kind<T> => {
  const type = `one of ${values.join(", ")}`;
  return {
    type,
    parse: (raw, refuse) => {
      if (!(values as string[]).includes(raw)) refuse(type);
      return raw as T;
    },
  };
};

/** bool accepts exactly true or false, as a flag does (a typo such as "ture", or "yes", is refused, not read as false). */
const bool: Kind<boolean> = {
  type: "true or false",
  parse: (raw, refuse) => (raw === "true" ? true : raw === "false" ? false : refuse("true or false")),
};

/** text accepts any value (trimmed): keys, names, paths. */
const text = (type: string): Kind<string> => ({ type, parse: (raw) => raw });

/** url accepts an http(s) URL. */
const url = (https: boolean): Kind<string> => {
  const type = https ? "an https:// URL" : "an http:// or https:// URL";
  return {
    type,
    parse: (raw, refuse) => {
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        return refuse(type);
      }
      if (u.protocol !== "https:" && (https || u.protocol !== "http:")) refuse(type);
      return raw;
    },
  };
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** namespace accepts a namespace's name (a DNS label). */
const namespace: Kind<string> = {
  type: "a namespace name",
  parse: (raw, refuse) => (DNS_LABEL.test(raw) ? raw : refuse("a namespace name (lowercase letters, digits and '-', at most 63)")),
};

/** namespacedName accepts `namespace/name` of DNS labels. */
const namespacedName: Kind<{ namespace: string; name: string }> = {
  type: "NAMESPACE/NAME",
  parse: (raw, refuse) => {
    const [ns, name, more] = raw.split("/");
    if (more !== undefined || !DNS_LABEL.test(ns ?? "") || !DNS_LABEL.test(name ?? "")) refuse("NAMESPACE/NAME of the webhook Service");
    return { namespace: ns, name };
  },
};

/** podName accepts a pod's name (a DNS subdomain: lowercase letters, digits, '-' and '.', at most 253). */
const podName: Kind<string> = {
  type: "a pod name",
  parse: (raw, refuse) => (/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(raw) ? raw : refuse("a pod name (lowercase letters, digits, '-' and '.', at most 253)")),
};

/** list accepts comma-separated values (blanks dropped). */
const list = (type: string): Kind<readonly string[]> => ({
  type,
  parse: (raw) =>
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
});

/** ip accepts an IPv4 or IPv6 address. */
const ip: Kind<string> = {
  type: "an IP address",
  parse: (raw, refuse) => {
    if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(raw)) return raw;
    if (raw.includes(":") && /^[0-9a-fA-F:.]+$/.test(raw)) {
      try {
        new URL(`http://[${raw}]/`);
        return raw;
      } catch {
        // refused below
      }
    }
    return refuse("an IP address (deploy/ sets it from status.podIP)");
  },
};

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type RegistrationMode = "create" | "update" | "off";

/** An empty list, shared by the list settings' fallbacks (frozen: a caller cannot change it). */
const NONE: readonly string[] = Object.freeze([]);

const ALL: readonly Runtime[] = ["Worker", "serve", "CLI"];
const BOTH: readonly Runtime[] = ["Worker", "serve"];
const SERVE: readonly Runtime[] = ["serve"];
const NODE: readonly Runtime[] = ["serve", "CLI"];

/** The settings, in the order docs/settings.md lists them. */
export const SETTINGS = {
  // --- the cluster ---
  KUBE_API_URL: row(url(false), undefined, ALL, "The apiserver's URL. On Node it is one of the ways to name the cluster (with KUBE_TOKEN and KUBE_CA_FILE); unset, Node uses KUBECONFIG, the pod's ServiceAccount or ~/.kube/config. Unset on the Worker: the reconciler does nothing.", { unset: "no cluster (Node: the next source)" }),
  KUBE_TOKEN: row(text("a bearer token"), undefined, ALL, "The bearer token the reconciler sends with KUBE_API_URL: a ServiceAccount token of ordinal-system/ordinal-reconciler (deploy/rbac.yaml).", { secret: true }),
  KUBE_ANONYMOUS: row(bool, false, ALL, "KUBE_API_URL without KUBE_TOKEN is refused unless this says true: then the apiserver is called as system:anonymous (e.g. behind `kubectl proxy`, which adds its own credentials)."),
  KUBE_CA_FILE: row(text("a file path"), undefined, NODE, "A PEM file of the CA that signed the apiserver's certificate (with KUBE_API_URL).", { unset: "the system's roots" }),
  KUBECONFIG: row(text("file paths, ':'-separated"), undefined, NODE, "The kubeconfig whose current context names the cluster (its first file), as kubectl reads it. Refused together with KUBE_API_URL.", { unset: "~/.kube/config when it exists" }),
  KUBERNETES_SERVICE_HOST: row(text("a host"), undefined, NODE, "Set by Kubernetes in a pod: with it (and no KUBECONFIG), Node calls the apiserver with the pod's ServiceAccount token."),
  KUBERNETES_SERVICE_PORT: row(integer(1, 65_535), 443, NODE, "Set by Kubernetes in a pod: the apiserver's port, with KUBERNETES_SERVICE_HOST."),
  LEASE_NAMESPACE: row(namespace, INSTALL_NAMESPACE, ALL, "The namespace of the reconciler's Leases: one active reconciler per shard, between Workers and `ordinal serve` replicas alike (`ordinal rollout status` reads them to tell whether a reconciler runs)."),
  RECONCILER_USERNAME: row(text("a username"), undefined, BOTH, "The reconciler's username as the apiserver authenticates it: the only caller the webhooks let change a managed pod's identity.", { unset: "the identity of KUBE_TOKEN (or of the cluster's token, on Node) when it is a ServiceAccount token, else system:serviceaccount:ordinal-system:ordinal-reconciler" }),
  // --- the reconciler ---
  RECONCILE_INTERVAL_MS: row(integer(100, 3_600_000, " of milliseconds"), 10_000, BOTH, "Between full (safety) passes; wakes and requeues come sooner. `ordinal serve --interval-ms` wins."),
  RECONCILE_BUDGET_MS: row(integer(1000, 3_600_000, " of milliseconds"), 45_000, BOTH, "Time one reconcile invocation may take (`ordinal serve`: at most 4 intervals)."),
  MAX_SUBREQUESTS: row(integer(30, 10_000_000), 900, ["Worker"], "Apiserver requests one Worker invocation (a wake's passes, an alarm) may make: the Free plan allows 50, Paid 10,000."),
  RECONCILE_SHARDS: row(integer(1, 256), 1, BOTH, "Shards the namespaces are hashed onto, one writer each: the Worker's Durable Objects; `ordinal serve`'s Leases, shared between replicas."),
  RECONCILE_LEASE_SECONDS: row(integer(3, 300, " of seconds"), 30, SERVE, "The reconciler Leases' duration (client-go's LeaseDuration; renew deadline 2/3 of it, retry period 1/3): how long the others wait before taking a dead replica's shards over. Shorter: faster takeover, more Lease writes."),
  RECONCILE_HEAP_MB: row(integer(0, 65_536, " of megabytes"), 128, SERVE, "The reconcile thread's heap (old generation): a pass that needs more ends that thread only; the webhooks keep answering. 0: the reconciler runs in the serving thread."),
  WATCH_CACHE_MB: row(integer(0, 65_536, " of megabytes"), 16, SERVE, "The watch cache's budget (MB of JSON held; the heap it takes is about 2–3× that, within RECONCILE_HEAP_MB). A resource past its share is read from the apiserver instead. 0: no cache."),
  // --- the webhooks: who may call them ---
  WEBHOOK_AUTH: row(oneOf("jwt", "mtls", "none"), undefined, BOTH, "How the webhooks authenticate their caller: jwt (`ordinal token`'s JWT, verified with WEBHOOK_JWKS or WEBHOOK_PUBLIC_KEY), mtls (a client certificate: WEBHOOK_MTLS) or none (any caller; see docs/security.md).", { unset: "jwt when a key is set, mtls when WEBHOOK_MTLS is; neither: the webhooks answer 503 (the simulation makes a key)" }),
  WEBHOOK_JWKS: row(text("a JWKS (JSON)"), undefined, BOTH, "The public keys that verify the apiserver's JWT (`ordinal token --generate-keys` writes jwks.json)."),
  WEBHOOK_JWKS_FILE: row(text("a file path"), undefined, SERVE, "A file holding WEBHOOK_JWKS (read at start; refused together with WEBHOOK_JWKS)."),
  WEBHOOK_PUBLIC_KEY: row(text("a PEM public key"), undefined, BOTH, "One PEM public key that verifies the JWT, instead of WEBHOOK_JWKS."),
  WEBHOOK_PUBLIC_KEY_FILE: row(text("a file path"), undefined, SERVE, "A file holding WEBHOOK_PUBLIC_KEY (read at start; refused together with WEBHOOK_PUBLIC_KEY)."),
  WEBHOOK_AUDIENCE: row(text("a JWT audience"), undefined, BOTH, "The `aud` the JWT must carry.", { unset: "not checked" }),
  WEBHOOK_ISSUER: row(text("a JWT issuer"), undefined, BOTH, "The `iss` the JWT must carry.", { unset: "not checked" }),
  WEBHOOK_SUBJECT: row(text("a JWT subject"), undefined, BOTH, "The `sub` the JWT must carry.", { unset: "not checked" }),
  WEBHOOK_MTLS: row(bool, false, BOTH, "Accept callers by client certificate (`ordinal serve --client-ca` sets it): their certificate's CN or SANs must be in WEBHOOK_MTLS_CLIENT_NAMES."),
  WEBHOOK_MTLS_CLIENT_NAMES: row(list("names, comma-separated"), NONE, BOTH, "The CN or SANs the apiserver's client certificate carries (any certificate of the CA is not enough)."),
  // --- the webhooks: where the apiserver reaches them ---
  WEBHOOK_URL: row(url(true), undefined, BOTH, "Where the apiserver reaches the webhooks (e.g. https://ordinal.example.workers.dev): registration keeps the webhook configurations pointing there."),
  WEBHOOK_SERVICE: row(namespacedName, undefined, BOTH, "Or, in a cluster: the Service in front of the webhook server, which the configurations point at (deploy/: ordinal-system/ordinal-webhooks)."),
  WEBHOOK_CA_BUNDLE: row(text("a base64 PEM bundle"), undefined, BOTH, "The CA bundle the configurations carry.", { unset: "the apiserver's system roots (right for workers.dev); `ordinal serve` with WEBHOOK_TLS_SECRET: that certificate's CA" }),
  WEBHOOK_REGISTRATION: row(oneOf("create", "update", "off"), "create" as RegistrationMode, BOTH, "How registration treats the webhook configurations: create (creates missing ones too; needs deploy/rbac-webhook-create.yaml), update (repairs existing ones only: deploy/'s) or off. A configuration annotated ordinal.dev/registration=off is left alone in every mode."),
  VALIDATE_APPS_V1_STATEFULSETS: row(bool, false, BOTH, "Also validate apps/v1 StatefulSets (registers the ordinal-apps-v1 configuration)."),
  // --- `ordinal serve` ---
  HOST: row(text("an address"), "127.0.0.1", SERVE, "The listen address (`--host` wins; deploy/ sets 0.0.0.0)."),
  PORT: row(integer(1, 65_535), 8443, SERVE, "The listen port (`--port` wins)."),
  TLS_CERT_FILE: row(text("a file path"), undefined, SERVE, "The serving certificate (`--tls-cert` wins): https when set.", { unset: "http, unless WEBHOOK_TLS_SECRET" }),
  TLS_KEY_FILE: row(text("a file path"), undefined, SERVE, "Its private key (`--tls-key` wins)."),
  TLS_CLIENT_CA_FILE: row(text("a file path"), undefined, SERVE, "Verify client certificates against this CA (`--client-ca` wins): turns WEBHOOK_MTLS on."),
  WEBHOOK_TLS_SECRET: row(text("a Secret name"), undefined, SERVE, "In a cluster: the Secret (in WEBHOOK_SERVICE's namespace) holding one serving certificate for all replicas, created when missing; its CA becomes the configurations' caBundle."),
  WEBHOOK_CERT_HOSTS: row(list("host names, comma-separated"), NONE, SERVE, "Extra names the serving certificate of WEBHOOK_TLS_SECRET covers, beside the Service's."),
  POD_NAME: row(podName, undefined, SERVE, "The pod's name (deploy/ sets it from metadata.name): the replica's identity on the Leases and in its User-Agent (`ordinal/<identity>`, in the apiserver's audit log) is `<POD_NAME>-<8 hex digits>`, new at each start.", { unset: "`node-<8 hex digits>`" }),
  POD_IP: row(ip, undefined, SERVE, "The pod's IP (deploy/ sets it from status.podIP): a standby replica forwards the wakes its webhooks see to the Lease holder there.", { unset: "no forwarding" }),
  // --- logs ---
  LOG_LEVEL: row(oneOf(...LOG_LEVELS), undefined as LogLevel | undefined, ALL, "The lowest level logged.", { unset: "info (warn for `ordinal serve`'s embedded simulation)" }),
};

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
/** The value of setting K: what its row parses to, or its fallback. */
export type SettingValue<K extends SettingName> = Settings[K]["fallback"] | ReturnType<Settings[K]["parse"]>;

/** setting returns the parsed value of variable `name` in `vars`, its fallback when unset or empty, or throws a SettingError. */
export function setting<K extends SettingName>(vars: Readonly<Record<string, string | undefined>>, name: K): SettingValue<K> {
  const raw = vars[name]?.trim();
  const r = SETTINGS[name] as Setting<SettingValue<K>>;
  if (!raw) return r.fallback;
  return r.parse(raw, (expected) => {
    throw new SettingError(`${name} must be ${expected}, got ${r.secret ? "a value it refuses" : JSON.stringify(vars[name])}`);
  });
}

/**
 * checkSettings parses every setting `runtime` reads, so a refused value stops it at start (as a
 * wrong flag does), not when, or whether, the code that uses it runs. Throws the first SettingError.
 */
export function checkSettings(vars: Readonly<Record<string, string | undefined>>, runtime: Runtime): void {
  for (const name of Object.keys(SETTINGS) as SettingName[]) if ((SETTINGS[name].runtimes as readonly Runtime[]).includes(runtime)) setting(vars, name);
}

/**
 * checkKubeToken throws a SettingError when KUBE_API_URL is set without KUBE_TOKEN, unless
 * KUBE_ANONYMOUS=true says that acting as system:anonymous is meant.
 */
export function checkKubeToken(vars: Readonly<Record<string, string | undefined>>): void {
  if (setting(vars, "KUBE_API_URL") && !setting(vars, "KUBE_TOKEN") && !setting(vars, "KUBE_ANONYMOUS")) {
    throw new SettingError("KUBE_API_URL is set without KUBE_TOKEN: set KUBE_TOKEN (a ServiceAccount token), or KUBE_ANONYMOUS=true to call the apiserver as system:anonymous");
  }
}

/** settingsTable returns the table for docs/settings.md: one row per variable, in SETTINGS' order. */
export function settingsTable(): { name: string; type: string; default: string; meaning: string; runtimes: string; secret: boolean }[] {
  return Object.entries(SETTINGS).map(([name, r]: [string, Setting<unknown>]) => ({
    name,
    type: r.type,
    default: r.unset ?? (r.fallback === undefined ? "unset" : Array.isArray(r.fallback) ? (r.fallback.length ? r.fallback.join(",") : "none") : String(r.fallback)),
    meaning: r.meaning,
    runtimes: r.runtimes.join(", "),
    secret: r.secret === true,
  }));
}
