// Field errors: paths as field.Path prints them, bodies as ErrorBody prints them, and the
// apiserver's aggregate "is invalid" message.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ErrorSet, OMIT, type FieldError, type FieldErrorType, uniqueByMessage } from "../../src/validation/field-error.ts";
import { byteLength, exceedsBytes } from "../../src/validation/go-format.ts";
import { dedupe } from "../../src/validation/pod.ts";
import {
  FieldPath,
  aggregateMessage,
  duplicate,
  fieldPath,
  forbidden,
  formatBadValue,
  formatFieldError,
  formatInvalid,
  goQuote,
  internalError,
  invalid,
  notFound,
  notSupported,
  qualifiedKind,
  required,
  sortedMap,
  toStatusCauses,
  tooLong,
  tooMany,
  typeInvalid,
} from "../../src/validation/index.ts";

describe("FieldPath", () => {
  const cases: Array<[FieldPath, string]> = [
    [fieldPath("spec", "containers").index(0).child("name"), "spec.containers[0].name"],
    [fieldPath("metadata", "labels").key("a/b"), "metadata.labels[a/b]"],
    [fieldPath("spec").child("resources").key("storage"), "spec.resources[storage]"],
    [fieldPath("spec").child("ordinals.start"), "spec.ordinals.start"],
    [FieldPath.root("spec", "images").key("nginx 1.25"), "spec.images[nginx 1.25]"],
    [fieldPath(""), "[]"],
  ];
  for (const [p, s] of cases) it(s, () => expect(p.toString()).toBe(s));
});

describe("formatFieldError", () => {
  const p = fieldPath("spec", "x");
  const cases: Array<[ReturnType<typeof required>, string]> = [
    [required(fieldPath("spec", "containers")), "spec.containers: Required value"],
    [required(p, "at least 1 access mode is required"), "spec.x: Required value: at least 1 access mode is required"],
    [invalid(fieldPath("spec", "replicas"), -1, "must be greater than or equal to 0"), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    [invalid(p, "a\"b\n", "bad"), 'spec.x: Invalid value: "a\\"b\\n": bad'],
    [invalid(p, { app: "web" }, "`selector` does not match template `labels`"), 'spec.x: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    [invalid(p, null, "d"), "spec.x: Invalid value: null: d"],
    [invalid(p, ["a", "b"], ""), 'spec.x: Invalid value: ["a","b"]'],
    [invalid(p, true, "d"), "spec.x: Invalid value: true: d"],
    [invalid(p, 0.5, "d"), "spec.x: Invalid value: 0.5: d"],
    [notSupported(fieldPath("spec", "podManagementPolicy"), "X", ["OrderedReady", "Parallel"]), 'spec.podManagementPolicy: Unsupported value: "X": supported values: "OrderedReady", "Parallel"'],
    [notSupported(p, "X", []), 'spec.x: Unsupported value: "X"'],
    [forbidden(p, "may not be set"), "spec.x: Forbidden: may not be set"],
    [duplicate(p, "nginx"), 'spec.x: Duplicate value: "nginx"'],
    [notFound(p, "x"), 'spec.x: Not found: "x"'],
    [tooLong(p, 63), "spec.x: Too long: may not be more than 63 bytes"],
    [tooMany(p, 5, 1), "spec.x: Too many: 5: must have at most 1 item"],
    [internalError(p, new Error("boom")), "spec.x: Internal error: boom"],
    [typeInvalid(p, "string", "spec.x in body must be of type integer: \"string\""), 'spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'],
  ];
  for (const [e, s] of cases) it(s, () => expect(formatFieldError(e)).toBe(s));
});

describe("formatBadValue", () => {
  it("prints like Go: %q strings, plain numbers, JSON otherwise (HTML-safe)", () => {
    expect(formatBadValue("é\u0000")).toBe('"é\\x00"');
    expect(formatBadValue(1e6)).toBe("1000000");
    expect(formatBadValue(1234567.5)).toBe("1.2345675e+06");
    expect(formatBadValue(0.00001)).toBe("1e-05");
    expect(formatBadValue({ a: "<b>" })).toBe('{"a":"\\u003cb\\u003e"}');
    expect(formatBadValue(undefined)).toBe("null");
  });
});

describe("goQuote", () => {
  it("is strconv.Quote", () => {
    expect(goQuote("web")).toBe('"web"');
    expect(goQuote("tab\there")).toBe('"tab\\there"');
    expect(goQuote("\u007f")).toBe('"\\x7f"');
    expect(goQuote("\u200b")).toBe('"\\u200b"');
    expect(goQuote("日本")).toBe('"日本"');
  });
});

describe("sortedMap", () => {
  it("orders keys as Go's json.Marshal does", () => {
    expect(JSON.stringify(sortedMap({ b: 1, a: 2, B: 3 }))).toBe('{"B":3,"a":2,"b":1}');
    expect(sortedMap(undefined)).toBeNull();
  });
});

describe("formatInvalid", () => {
  const e1 = invalid(fieldPath("spec", "replicas"), -1, "must be greater than or equal to 0");
  const e2 = required(fieldPath("spec", "selector"));
  it("brackets several errors, not one, and drops repeats", () => {
    expect(formatInvalid("StatefulSet.apps.ordinal.dev", "web", [e1, e2])).toBe(
      'StatefulSet.apps.ordinal.dev "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]',
    );
    expect(formatInvalid("StatefulSet.apps", "web", [e1])).toBe('StatefulSet.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    expect(formatInvalid("StatefulSet.apps", "web", [e1, e1])).toBe('StatefulSet.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    expect(formatInvalid("Pod", "x", [])).toBe('Pod "x" is invalid');
  });
});

describe("aggregateMessage", () => {
  it("is empty for no errors", () => expect(aggregateMessage([])).toBe(""));
});

// Errors built to collide: few fields, values and details, with ": " and quotes in them, numbers
// beside numeric strings, OMIT, every type (and the two that print "Invalid value").
const TYPES: FieldErrorType[] = [
  "FieldValueNotFound",
  "FieldValueRequired",
  "FieldValueDuplicate",
  "FieldValueInvalid",
  "FieldValueNotSupported",
  "FieldValueForbidden",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "InternalError",
  "FieldValueTypeInvalid",
];
const collidingError: fc.Arbitrary<FieldError> = fc.record({
  type: fc.constantFrom(...TYPES),
  field: fc.constantFrom("a", "a: Forbidden", "a: Invalid value", 'a: Invalid value: "x"', "a: Invalid value: 1", "b: c", "é"),
  badValue: fc.constantFrom("1", 1, 1.5, "x", '"x"', "a: b", "", "é", true, null, undefined, OMIT, ["a: b"], { a: 1 }),
  detail: fc.constantFrom("", "d", "d: e", '"x": d', "1: d", "Required value"),
});

describe("uniqueByMessage", () => {
  /** The definition: keep an error unless an earlier one printed the same message. */
  const byMessage = (errors: FieldError[]) => {
    const seen = new Set<string>();
    return errors.filter((e) => !seen.has(formatFieldError(e)) && !!seen.add(formatFieldError(e)));
  };

  it("keeps exactly the errors whose message no earlier error printed, in order", () => {
    fc.assert(
      fc.property(fc.array(collidingError, { maxLength: 40 }), (errors) => {
        expect(uniqueByMessage(errors)).toEqual(byMessage(errors));
      }),
      { numRuns: 2000 },
    );
  });

  it("merges a message split differently by a field with \": \" in it", () => {
    const plain = forbidden("a", "Required value");
    const cut = required("a: Forbidden");
    expect(formatFieldError(plain)).toBe(formatFieldError(cut));
    expect(uniqueByMessage([plain, cut])).toEqual([plain]);
    expect(uniqueByMessage([cut, plain])).toEqual([cut]);
  });

  it("keeps many errors of one field that differ only in their value", () => {
    const errors = Array.from({ length: 3000 }, (_, i) => invalid("spec.template.labels", `key ${i}`, "bad"));
    expect(uniqueByMessage([...errors, ...errors])).toEqual(errors);
  });
});

describe("dedupe (pod validation)", () => {
  it("drops an error whose type, field, detail and JSON bad value an earlier one had, and Required where the type was wrong", () => {
    const key = (e: FieldError) => `${e.type}\u0000${e.field}\u0000${e.detail}\u0000${JSON.stringify(e.badValue ?? null)}`;
    fc.assert(
      fc.property(fc.array(collidingError, { maxLength: 40 }), (errors) => {
        const mistyped = new Set(errors.filter((e) => e.type === "FieldValueTypeInvalid").map((e) => e.field));
        const seen = new Set<string>();
        const expected = errors.filter((e) => !(e.type === "FieldValueRequired" && mistyped.has(e.field)) && !seen.has(key(e)) && !!seen.add(key(e)));
        expect(dedupe(errors)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("ErrorSet", () => {
  it("adds an error unless one of the same field and key that is `same` was added", () => {
    const set = new ErrorSet(
      (e) => e.badValue,
      (a, b) => a.detail === b.detail,
    );
    expect(set.add(invalid("f", "v", "d"))).toBe(true);
    expect(set.add(invalid("f", "v", "d"))).toBe(false);
    expect(set.add(invalid("f", "w", "d"))).toBe(true);
    expect(set.add(invalid("f", "v", "e"))).toBe(true);
    expect(set.add(invalid("g", "v", "d"))).toBe(true);
    expect(set.add(required("f", "d"))).toBe(true);
  });
});

describe("byteLength", () => {
  it("is the UTF-8 length TextEncoder writes, lone surrogates included", () => {
    const utf8 = new TextEncoder();
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => byteLength(s) === utf8.encode(s).length));
    fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), (s) => byteLength(s) === utf8.encode(s).length));
    expect(byteLength("a\ud800b\udc00\ud83d\ude00")).toBe(1 + 3 + 1 + 3 + 4);
  });
});

describe("exceedsBytes", () => {
  it("is byteLength(s) > max", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 90 }), fc.integer({ min: 0, max: 300 }), (s, max) => exceedsBytes(s, max) === byteLength(s) > max));
  });
});

describe("qualifiedKind", () => {
  it("is GroupKind.String()", () => {
    expect(qualifiedKind("StatefulSet", "apps.ordinal.dev")).toBe("StatefulSet.apps.ordinal.dev");
    expect(qualifiedKind("Pod", "")).toBe("Pod");
  });
});

describe("toStatusCauses", () => {
  it("gives reason, body and field per error", () => {
    expect(toStatusCauses([required(fieldPath("spec", "containers"))])).toEqual([
      { reason: "FieldValueRequired", message: "Required value", field: "spec.containers" },
    ]);
  });
});
