/**
 * DNS settings of a pod spec (validateDNSPolicy, validatePodDNSConfig) and the IP address check
 * they and hostAliases use.
 */
import { type FieldError, type FieldPath, invalid, notSupported, required } from "./field-error.ts";
import type { JsonObject, Reader } from "./json.ts";
import { isDNS1123Subdomain } from "./names.ts";

function isValidIP(s: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255 && (o.length === 1 || !o.startsWith("0")));
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(":")) return false;
  const parts = s.split("::");
  if (parts.length > 2) return false;
  const groups = parts.flatMap((p) => (p === "" ? [] : p.split(":")));
  const last = groups[groups.length - 1] ?? "";
  const hasV4 = last.includes(".");
  if (hasV4 && !isValidIP(last)) return false;
  const hex = hasV4 ? groups.slice(0, -1) : groups;
  if (!hex.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  const count = hex.length + (hasV4 ? 2 : 0);
  return parts.length === 2 ? count < 8 : count === 8;
}

/** ipErrors is validation.IsValidIP: "must be a valid IP address, …". */
export const ipErrors = (path: FieldPath, v: string): FieldError[] =>
  isValidIP(v) ? [] : [invalid(path, v, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")];

/** validateDNS checks dnsPolicy and dnsConfig. */
export function validateDNS(r: Reader, spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const policy = r.str(spec.dnsPolicy, path.child("dnsPolicy")) ?? "";
  const policies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
  if (policy === "") errs.push(required(path.child("dnsPolicy")));
  else if (!policies.includes(policy)) errs.push(notSupported(path.child("dnsPolicy"), policy, policies));
  const cp = path.child("dnsConfig");
  const cfg = r.obj(spec.dnsConfig, cp);
  if (policy === "None") {
    if (!cfg) return [...errs, required(cp, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (!Array.isArray(cfg.nameservers) || cfg.nameservers.length === 0)
      return [...errs, required(cp.child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")];
  }
  if (cfg) {
    const ns = r.strList(cfg.nameservers, cp.child("nameservers")) ?? [];
    if (ns.length > 3) errs.push(invalid(cp.child("nameservers"), ns, "must not have more than 3 nameservers"));
    ns.forEach((n, i) => errs.push(...ipErrors(cp.child("nameservers").index(i), n)));
    const searches = r.strList(cfg.searches, cp.child("searches")) ?? [];
    if (searches.length > 32) errs.push(invalid(cp.child("searches"), searches, "must not have more than 32 search paths"));
    if (searches.join(" ").length > 2048) errs.push(invalid(cp.child("searches"), searches, "must not have more than 2048 characters (including spaces) in the search list"));
    searches.forEach((s, i) => {
      const v = s.endsWith(".") ? s.slice(0, -1) : s;
      errs.push(...isDNS1123Subdomain(v).map((m) => invalid(cp.child("searches").index(i), v, m)));
    });
    for (const { item, index } of r.objList(cfg.options, cp.child("options")))
      if (!r.str(item.name, cp.child("options").index(index).child("name"))) errs.push(required(cp.child("options").index(index), "must not be empty"));
  }
  return errs;
}
