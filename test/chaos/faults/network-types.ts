/** The messages between the chaos runner and its network process (network.ts). */

/** What a replica's apiserver proxy does to a share (0..1) of its requests. */
export type ProxyMode =
  | { kind: "none" }
  | { kind: "reset"; share: number }
  | { kind: "delay"; share: number; ms: number }
  | { kind: "status"; share: number; code: 429 | 500 | 504; retryAfter?: number };

export interface NetworkConfig {
  seed: number;
  apiUrl: string;
  caFile: string;
  /** One proxy per replica: plain HTTP on 127.0.0.1:port. */
  proxies: { name: string; port: number }[];
  /** The webhook Service: TLS passed through from `port` to the replicas' ports. */
  front: { port: number; backends: number[] };
}

export type NetworkCommand =
  | { type: "proxy"; name: string; mode: ProxyMode }
  | { type: "front"; up: boolean }
  | { type: "backend"; port: number; enabled: boolean }
  | { type: "stats" };

/** The answer to "stats": requests each proxy received, by epoch second. */
export interface NetworkStats {
  stats: Record<string, Record<string, number>>;
}
