/**
 * String-format checks of k8s.io/apimachinery/pkg/util/validation (validation.go) and
 * .../api/validate/content. Each returns the list of problems (empty when valid), worded exactly
 * as upstream so they can be used as FieldError details. Lengths are UTF-8 byte counts, as Go's len().
 *
 * Current upstream, where it differs from 1.20:
 * - IsDNS1123Label says "must not contain dots" for a valid subdomain that is not a label.
 * - IsValidPortName: "must contain at least one letter (a-z)" (1.20: "letter or number").
 * - IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default since 1.32, GA later):
 *   any printable ASCII except '='. 1.20 only had IsEnvVarName (C-identifier-like, '.', '-').
 */
import { exceedsBytes } from "./go-format.ts";

/** regexError is upstream's RegexError: the message, examples and the regular expression used. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = msg + " (e.g. ";
  examples.forEach((ex, i) => {
    if (i > 0) out += " or ";
    out += `'${ex}', `;
  });
  return out + `regex used for validation is '${fmt}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const emptyError = (): string => "must be non-empty";
export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

const anchored = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);

const labelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRe = anchored(labelKeyFmt);
/** The messages below are the same for every value: built once, not per call (a hostile set has thousands of bad names). */
const labelKeyRegexError = regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc");
const namePartRegexError = "name part " + labelKeyRegexError;

/** isQualifiedName (content.IsLabelKey): `[prefix/]name`, prefix a DNS subdomain, name ≤63 chars. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  let name: string;
  const slash = value.indexOf("/");
  if (slash < 0) {
    name = value;
  } else if (value.indexOf("/", slash + 1) >= 0) {
    return [
      "a valid label key " +
        labelKeyRegexError +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  } else {
    const prefix = value.slice(0, slash);
    name = value.slice(slash + 1);
    if (prefix.length === 0) errs.push("prefix part " + emptyError());
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => "prefix part " + m));
  }
  if (name.length === 0) errs.push("name part " + emptyError());
  else if (exceedsBytes(name, 63)) errs.push("name part " + maxLenError(63));
  if (!labelKeyRe.test(name)) errs.push(namePartRegexError);
  return errs;
}

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRegexError = regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345");

/** isValidLabelValue (content.IsLabelValue): empty, or ≤63 chars of the label-key name alphabet. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(value, 63)) errs.push(maxLenError(63));
  if (value.length > 0 && !labelKeyRe.test(value)) errs.push(labelValueRegexError);
  return errs;
}

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = anchored(dns1123LabelFmt);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);
const dns1123LabelRegexError = regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc");
const dns1123SubdomainRegexError = regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com");

/** isDNS1123Label: RFC 1123 label, at most 63 characters (container, volume, port-less names…). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(value, 63)) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push("must not contain dots");
    else errs.push(dns1123LabelRegexError);
  }
  return errs;
}

/** isDNS1123Subdomain: RFC 1123 subdomain, at most 253 characters (most object names). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(value, 253)) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(dns1123SubdomainRegexError);
  return errs;
}

const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

const dns1035LabelRe = anchored(dns1035LabelFmt);
const dns1035LabelRegexError = regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123");

/** isDNS1035Label: like a DNS-1123 label but starting with a letter (Service names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(value, 63)) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) errs.push(dns1035LabelRegexError);
  return errs;
}

const cIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
const cIdentifierErrMsg =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";

/** isCIdentifier: `[A-Za-z_][A-Za-z0-9_]*`. */
export function isCIdentifier(value: string): string[] {
  return anchored(cIdentifierFmt).test(value) ? [] : [regexError(cIdentifierErrMsg, cIdentifierFmt, "my_name", "MY_NAME", "MyName")];
}

const envVarNameFmt = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const envVarNameErrMsg =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

/** isEnvVarName is the strict (pre-1.30) environment variable name rule. */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!anchored(envVarNameFmt).test(value)) errs.push(regexError(envVarNameErrMsg, envVarNameFmt, "my.env-name", "MY_ENV.NAME", "MyEnvName1"));
  return [...errs, ...hasChDirPrefix(value)];
}

/**
 * isRelaxedEnvVarName is the current upstream rule (RelaxedEnvironmentVariableValidation): any
 * printable ASCII character except '='. This is what Ordinal applies to env names and envFrom prefixes.
 */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push("environment variable name " + emptyError());
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (c > 0x7e || c < 0x20 || ch === "=") {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

/** isValidPortNum: 1–65535. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/**
 * isValidPortName is IANA_SVC_NAME (RFC 6335), lower case only: at most 15 characters of
 * [-a-z0-9], at least one letter, no leading/trailing or doubled hyphen.
 */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(port, 15)) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

const MAX_INT32 = 2147483647;

/** isValidUserID returns the errors of a user id outside 0–2147483647 (none when valid). */
export function isValidUserID(uid: number): string[] {
  return uid >= 0 && uid <= MAX_INT32 ? [] : [inclusiveRangeError(0, MAX_INT32)];
}

/** isValidGroupID returns the errors of a group id: the same range as a user id. */
export function isValidGroupID(gid: number): string[] {
  return isValidUserID(gid);
}

/** isValidPercent: `[0-9]+%`. */
export function isValidPercent(percent: string): string[] {
  return /^[0-9]+%$/.test(percent)
    ? []
    : [regexError("a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%")];
}

/** isHTTPHeaderName: `[-A-Za-z0-9]+`. */
export function isHTTPHeaderName(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value)
    ? []
    : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name")];
}

/** isConfigMapKey: `[-._a-zA-Z0-9]+`, at most 253 characters, not `.`/`..`. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (exceedsBytes(value, 253)) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(value))
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"));
  return [...errs, ...hasChDirPrefix(value)];
}

/** A ValidateNameFunc: `prefix` is true for generateName, which may end in a dash. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * maskTrailingDash is upstream's: a generateName may end in a dash (a random suffix follows), so
 * the last two characters become "a" before the name check; a lone "-" stays (and is invalid).
 */
export const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith("-") ? name.slice(0, -2) + "a" : name);

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
