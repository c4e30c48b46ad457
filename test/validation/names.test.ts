// The string-format checks of apimachinery's util/validation, worded as upstream.
import { describe, expect, it } from "vitest";
import {
  isCIdentifier,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  isValidPortNum,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from "../../src/validation/index.ts";

const table = (fn: (s: string) => string[], ok: string[], bad: Array<[string, string[]]>) => {
  for (const s of ok) it(`accepts ${JSON.stringify(s)}`, () => expect(fn(s)).toEqual([]));
  for (const [s, errs] of bad) it(`refuses ${JSON.stringify(s)}`, () => expect(fn(s)).toEqual(errs));
};

const LABEL_RE = "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const LABEL_MSG = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character ${LABEL_RE}`;

describe("isDNS1123Label", () => {
  table(isDNS1123Label, ["a", "web-0", "0", "a".repeat(63)], [
    ["Web", [LABEL_MSG]],
    ["a.b", ["must not contain dots"]],
    ["-a", [LABEL_MSG]],
    ["", [LABEL_MSG]],
    ["a".repeat(64), ["must be no more than 63 characters"]],
  ]);
});

describe("isDNS1123Subdomain", () => {
  table(isDNS1123Subdomain, ["example.com", "a-b.c"], [
    [
      "a_b",
      [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
  ]);
});

describe("isDNS1035Label", () => {
  table(isDNS1035Label, ["web"], [
    [
      "1web",
      [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
  ]);
});

const KEY_RE = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("isQualifiedName", () => {
  table(isQualifiedName, ["app", "app.kubernetes.io/name", "A_b.c"], [
    ["/x", ["prefix part must be non-empty"]],
    ["a/", ["name part must be non-empty", `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${KEY_RE}`]],
    ["a/b/c", [`a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${KEY_RE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]],
    ["Ex.com/x", [`prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`]],
  ]);
});

describe("isValidLabelValue", () => {
  table(isValidLabelValue, ["", "v1.2_3"], [["a".repeat(64), ["must be no more than 63 characters"]]]);
});

describe("isCIdentifier", () => {
  table(isCIdentifier, ["_a1"], [["1a", ["a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"]]]);
});

describe("isEnvVarName", () => {
  table(isEnvVarName, ["MY.env-name"], [
    ["1A", ["a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"]],
    ["..a", ["must not start with '..'"]],
  ]);
});

describe("isRelaxedEnvVarName", () => {
  table(isRelaxedEnvVarName, ["1A", "a b", "x:y!"], [
    ["A=B", ["a valid environment variable name must consist only of printable ASCII characters other than '='"]],
    ["é", ["a valid environment variable name must consist only of printable ASCII characters other than '='"]],
    ["", ["environment variable name must be non-empty"]],
  ]);
});

describe("isValidPortName", () => {
  table(isValidPortName, ["http", "h2c-web"], [
    ["8080", ["must contain at least one letter (a-z)"]],
    ["a--b", ["must not contain consecutive hyphens"]],
    ["-web", ["must not begin or end with a hyphen"]],
  ]);
});

describe("isValidPortNum", () => {
  it("is 1-65535", () => {
    expect(isValidPortNum(1)).toEqual([]);
    expect(isValidPortNum(0)).toEqual(["must be between 1 and 65535, inclusive"]);
    expect(isValidPortNum(65535)).toEqual([]);
    expect(isValidPortNum(65536)).toEqual(["must be between 1 and 65535, inclusive"]);
  });
});

describe("isValidPercent", () => {
  table(isValidPercent, ["50%"], [["5", ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]]]);
});

describe("isConfigMapKey", () => {
  table(isConfigMapKey, ["key.name"], [["..", ["must not be '..'"]]]);
});

describe("nameIsDNSLabel", () => {
  it("lets a generateName prefix end in a dash", () => {
    expect(nameIsDNSLabel("web-", true)).toEqual([]);
    expect(nameIsDNSLabel("web-", false)).toEqual([LABEL_MSG]);
  });

  it("does not mask a lone dash (upstream's maskTrailingDash needs two characters)", () => {
    expect(nameIsDNSLabel("-", true)).toEqual([LABEL_MSG]);
    expect(nameIsDNSLabel("a-", true)).toEqual([]);
  });
});

describe("nameIsDNSSubdomain", () => {
  it("checks a DNS subdomain", () => expect(nameIsDNSSubdomain("web.x", false)).toEqual([]));
});
