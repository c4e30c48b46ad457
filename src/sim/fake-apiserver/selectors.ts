// Label selectors (a port of k8s.io/apimachinery/pkg/labels/selector.go's lexer and parser, so
// that syntax errors carry the same messages) and field selectors.

import { badRequest } from "./errors.ts";
import { isObject, str, type Obj } from "./json.ts";
import { isValidLabelValue, selectorToString, type LabelSelector as LabelSelectorObject } from "../../validation/index.ts";
import { isQualifiedName } from "./validation.ts";

type Op = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

/** Requirement is one comma-separated term of a label selector. */
interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

/** LabelSelector matches a set of labels; an empty selector matches everything. */
export type LabelSelector = Requirement[];

type Token = "error" | "eos" | ")" | "," | "!" | "==" | "=" | ">" | "id" | "in" | "<" | "!=" | "notin" | "(";
const SPECIAL = "=!(),><";
const SYMBOLS: Record<string, Token> = { ")": ")", ",": ",", "!": "!", "==": "==", "=": "=", ">": ">", "<": "<", "!=": "!=", "(": "(" };

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  lex(): [Token, string] {
    const s = this.s;
    while (this.pos < s.length && /\s/.test(s[this.pos]!)) this.pos++;
    if (this.pos >= s.length) return ["eos", ""];
    const ch = s[this.pos]!;
    if (SPECIAL.includes(ch)) {
      let lit = "";
      let tok: Token | undefined;
      while (this.pos < s.length && SPECIAL.includes(s[this.pos]!)) {
        const next = lit + s[this.pos];
        if (!(next in SYMBOLS)) break;
        lit = next;
        tok = SYMBOLS[next];
        this.pos++;
      }
      if (!tok) {
        this.pos++;
        return ["error", `error expected: keyword found '${ch}'`];
      }
      return [tok, lit];
    }
    const start = this.pos;
    while (this.pos < s.length && !/\s/.test(s[this.pos]!) && !SPECIAL.includes(s[this.pos]!)) this.pos++;
    const lit = s.slice(start, this.pos);
    if (lit === "in") return ["in", lit];
    if (lit === "notin") return ["notin", lit];
    return ["id", lit];
  }
}

class Parser {
  private readonly items: [Token, string][] = [];
  private pos = 0;

  constructor(s: string) {
    const lexer = new Lexer(s);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item[0] === "eos" || item[0] === "error") break;
    }
  }

  /** In the Values context the keywords `in` and `notin` are plain identifiers. */
  private lookahead(values: boolean): [Token, string] {
    const [tok, lit] = this.items[this.pos] ?? ["eos", ""];
    return values && (tok === "in" || tok === "notin") ? ["id", lit] : [tok, lit];
  }

  private consume(values: boolean): [Token, string] {
    const item = this.lookahead(values);
    if (this.pos < this.items.length - 1 || item[0] !== "eos") this.pos++;
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const [tok, lit] = this.lookahead(true);
      if (tok === "id" || tok === "!") {
        let r: Requirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          throw new Error(`unable to parse requirement: ${(e as Error).message}`, { cause: e });
        }
        reqs.push(r);
        const [t, l] = this.consume(true);
        if (t === "eos") return reqs;
        if (t === ",") {
          const [t2, l2] = this.lookahead(true);
          if (t2 !== "id" && t2 !== "!") throw new Error(`found '${l2}', expected: identifier after ','`);
        } else {
          throw new Error(`found '${l}', expected: ',' or 'end of string'`);
        }
      } else if (tok === "eos") {
        return reqs;
      } else {
        throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    let [tok, lit] = this.consume(true);
    let op: Op | undefined;
    if (tok === "!") {
      op = "!";
      [tok, lit] = this.consume(true);
    }
    if (tok !== "id") throw new Error(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw new Error(`invalid label key "${key}": ${keyErrs.join("; ")}`);
    const [next] = this.lookahead(true);
    if (next === "eos" || next === ",") {
      return newRequirement(key, op ?? "exists", []);
    }
    if (op === "!") return newRequirement(key, op, []);
    const [otok, olit] = this.consume(false);
    const ops: Partial<Record<Token, Op>> = { in: "in", notin: "notin", "=": "=", "==": "==", "!=": "!=", ">": "gt", "<": "lt" };
    const operator = ops[otok];
    if (!operator) throw new Error(`found '${olit}', expected: '=', '!=', '==', 'in', notin'`);
    const values = operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  private parseValues(): Set<string> {
    const [tok, lit] = this.consume(true);
    if (tok !== "(") throw new Error(`found '${lit}' expected: '('`);
    const [t2, l2] = this.lookahead(true);
    if (t2 === "id" || t2 === ",") {
      const s = this.parseIdentifiersList();
      const [t3] = this.consume(true);
      if (t3 !== ")") throw new Error(`found '${l2}', expected: ')'`);
      return s;
    }
    if (t2 === ")") {
      this.consume(true);
      return new Set([""]);
    }
    throw new Error(`found '${l2}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const [tok, lit] = this.consume(true);
      if (tok === "id") {
        s.add(lit);
        const [t2, l2] = this.lookahead(true);
        if (t2 === ",") continue;
        if (t2 === ")") return s;
        throw new Error(`found '${l2}', expected: ',' or ')'`);
      } else if (tok === ",") {
        if (s.size === 0) s.add("");
        const [t2] = this.lookahead(true);
        if (t2 === ")") {
          s.add("");
          return s;
        }
        if (t2 === ",") {
          this.consume(true);
          s.add("");
        }
      } else {
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const [t] = this.lookahead(true);
    if (t === "eos" || t === ",") return new Set([""]);
    const [tok, lit] = this.consume(true);
    if (tok === "id") return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

function newRequirement(key: string, op: Op, values: string[]): Requirement {
  switch (op) {
    case "in":
    case "notin":
      if (values.length === 0) throw new Error("for 'in', 'notin' operators, values set can't be empty");
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) throw new Error("exact-match compatibility requires one single value");
      break;
    case "exists":
    case "!":
      if (values.length !== 0) throw new Error("values set must be empty for exists and does not exist");
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) throw new Error("for 'Gt', 'Lt' operators, exactly one value is required");
      if (!/^-?\d+$/.test(values[0]!)) throw new Error("for 'Gt', 'Lt' operators, the value must be an integer");
      break;
  }
  for (const v of values) {
    const errs = isValidLabelValue(v);
    if (errs.length > 0) throw new Error(`invalid label value: "${v}": at key: "${key}": ${errs.join("; ")}`);
  }
  return { key, op, values };
}

/** parseLabelSelector parses the `labelSelector` query parameter; throws a 400 ApiError. */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    return new Parser(s).parse();
  } catch (e) {
    throw badRequest((e as Error).message);
  }
}

/** matchesLabels applies a parsed selector to an object's labels. */
export function matchesLabels(sel: LabelSelector, labels: unknown): boolean {
  const l = isObject(labels) ? labels : {};
  for (const r of sel) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = has ? str(l[r.key]) : "";
    switch (r.op) {
      case "in":
      case "=":
      case "==":
        if (!has || !r.values.includes(v)) return false;
        break;
      case "notin":
      case "!=":
        if (has && r.values.includes(v)) return false;
        break;
      case "exists":
        if (!has) return false;
        break;
      case "!":
        if (has) return false;
        break;
      case "gt":
      case "lt": {
        if (!has || !/^-?\d+$/.test(v)) return false;
        const n = BigInt(v);
        const bound = BigInt(r.values[0]!);
        if (r.op === "gt" ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/** selectorFromLabelSelector turns a metav1.LabelSelector object into a parsed selector. */
export function selectorFromLabelSelector(ls: unknown): LabelSelector | undefined {
  if (!isObject(ls)) return undefined;
  const reqs: Requirement[] = [];
  if (isObject(ls.matchLabels)) for (const [k, v] of Object.entries(ls.matchLabels)) reqs.push({ key: k, op: "=", values: [str(v)] });
  for (const e of Array.isArray(ls.matchExpressions) ? ls.matchExpressions : []) {
    if (!isObject(e)) continue;
    const values = Array.isArray(e.values) ? e.values.map(str) : [];
    const op = ({ In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" } as const)[str(e.operator) as "In"];
    if (op) reqs.push({ key: str(e.key), op, values });
  }
  return reqs;
}

/**
 * formatLabelSelector writes a metav1.LabelSelector as the string form used by Scale.status.selector
 * (labels.Selector.String(): the product's selectorToString).
 */
export function formatLabelSelector(ls: unknown): string {
  return isObject(ls) ? selectorToString(ls as unknown as LabelSelectorObject) : "";
}

// ---- field selectors ------------------------------------------------------------------------------

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

/** FieldGetter reads one supported field selector value from an object. */
export type FieldGetters = Record<string, (o: Obj) => string>;

function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      cur += c + s[++i];
    } else if (c === ",") {
      terms.push(cur);
      cur = "";
    } else {
      cur += c;
    }
  }
  terms.push(cur);
  return terms;
}

const unescape = (v: string): string => v.replace(/\\(.)/g, "$1");

/** parseFieldSelector parses `metadata.name=x,status.phase!=Running`; throws a 400 ApiError. */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  if (s.trim() === "") return reqs;
  for (const term of splitTerms(s)) {
    if (term === "") continue;
    let m = /^(.*?)(!=|==|=)(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    const op = m[2] === "!=" ? "!=" : "=";
    m = m as RegExpExecArray;
    reqs.push({ field: m[1]!.trim(), op, value: unescape(m[3]!.trim()) });
  }
  return reqs;
}

/** matchesFields applies field requirements using the resource's getters. */
export function matchesFields(reqs: readonly FieldRequirement[], obj: Obj, getters: FieldGetters): boolean {
  for (const r of reqs) {
    const v = getters[r.field]?.(obj) ?? "";
    if ((v === r.value) !== (r.op === "=")) return false;
  }
  return true;
}
