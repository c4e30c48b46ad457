import type { LabelSelectorT } from "../api/statefulset.ts";

/**
 * Label selector evaluation (metav1.LabelSelectorAsSelector semantics): every matchLabels pair
 * and every matchExpression must hold. An empty selector matches everything, as upstream's
 * LabelSelectorAsSelector does; the validating webhook refuses empty selectors on apply.
 */
export function selectorMatches(selector: LabelSelectorT | undefined, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (!has || !values.includes(l[e.key])) return false;
        break;
      case "NotIn":
        if (has && values.includes(l[e.key])) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return true;
}

/**
 * selectorToString returns the selector in the apiserver's string form (`a=b,c in (x,y)`,
 * requirements sorted by key), as the scale subresource's status.labelSelector carries it.
 */
export function selectorToString(selector: LabelSelectorT | undefined): string {
  const reqs: [string, string][] = [];
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
  for (const e of selector?.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(",");
    const text =
      e.operator === "In" ? `${e.key} in (${vals})` : e.operator === "NotIn" ? `${e.key} notin (${vals})` : e.operator === "Exists" ? e.key : `!${e.key}`;
    reqs.push([e.key, text]);
  }
  return reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((r) => r[1])
    .join(",");
}
