/** The one strict parser and the command table: typos are errors with a suggestion, --help works for every command, exit codes. */
import { describe, expect, it } from "vitest";
import { closest, parseCommandLine, parseDuration, UsageError } from "../../src/cli/args.ts";
import { main } from "../../src/cli/main.ts";
import { cliWorld } from "./helpers.ts";

describe("parseCommandLine", () => {
  const opts = { namespace: { type: "string" as const, short: "n" }, watch: { type: "boolean" as const } };
  it.each([
    [["--namspace", "x"], /unknown option --namspace; did you mean --namespace\?/],
    [["--namespace"], /option --namespace needs a value/],
    [["--namespace="], /option --namespace needs a value/],
    [["--watch=yes"], /option --watch takes no value/],
    [["a", "b"], /too many arguments: b/],
  ])("%j is a usage error", (args, msg) => {
    expect(() => parseCommandLine(args, opts, { max: 1 })).toThrow(UsageError);
    expect(() => parseCommandLine(args, opts, { max: 1 })).toThrow(msg);
  });
  it("reads short and long options and positionals", () => {
    expect(parseCommandLine(["-n", "prod", "web", "--watch"], opts, { min: 1, max: 1 })).toEqual({ values: { namespace: "prod", watch: true }, positionals: ["web"] });
  });
  it("closest suggests only near names", () => {
    expect(closest("timout", ["timeout", "namespace"])).toBe("timeout");
    expect(closest("zzz", ["timeout"])).toBeUndefined();
  });
  it.each([
    ["90", 90_000],
    ["30s", 30_000],
    ["1m30s", 90_000],
    ["2h", 7_200_000],
  ])("parseDuration(%s)", (s, ms) => expect(parseDuration(s)).toBe(ms));
  it("parseDuration refuses junk", () => expect(() => parseDuration("5 minutes")).toThrow(/duration like 30s/));
});

describe("ordinal main", () => {
  const commands = ["serve", "reconcile", "get", "rollout status", "rollout history", "rollout undo", "rollout pause", "rollout resume", "rollout restart", "set image", "manifests", "register", "token"];
  it.each(commands)("ordinal %s --help prints usage and exits 0 (no cluster needed)", async (cmd) => {
    const w = cliWorld();
    expect(await main([...cmd.split(" "), "--help"], w.ctx)).toBe(0);
    expect(w.out.join("\n")).toMatch(/usage: ordinal/);
  });
  it.each([
    [["bogus"], /unknown command "bogus"/],
    [["rollot", "status", "web"], /unknown command "rollot"; did you mean "rollout"\?/],
    [["rollout", "statsu", "web"], /unknown command "statsu"; did you mean "rollout status"\?/],
    [["rollout"], /usage: ordinal rollout <status\|history\|undo\|pause\|resume\|restart>/],
    [["rollout", "statsu", "web"], /usage: ordinal rollout/],
    [["rollout", "status"], /missing NAME/],
    [["get", "--nmespace", "x"], /did you mean --namespace/],
    [["reconcile"], /--once is required/],
    [["serve", "--prot", "1"], /did you mean --port/],
    [["token", "--bogus"], /unknown option --bogus/],
    [["token", "--generate-key", "d"], /did you mean --generate-keys\?/],
    [["register", "--url", "https://a:1", "--dryrun"], /did you mean --dry-run\?/],
    [["register", "--url", "https://a:1", "extra"], /unexpected argument "extra"/],
  ])("%j exits 2 with a message", async (argv, msg) => {
    const w = cliWorld();
    expect(await main(argv, w.ctx)).toBe(2);
    expect(w.err.join("\n")).toMatch(msg);
  });
});

describe("short options with =", () => {
  it("reads -n=demo as the namespace demo, as kubectl does", () => {
    const opts = { namespace: { type: "string" as const, short: "n" }, all: { type: "boolean" as const, short: "A" } };
    expect(parseCommandLine(["web", "-n=demo"], opts).values.namespace).toBe("demo");
    expect(parseCommandLine(["-n", "demo"], opts).values.namespace).toBe("demo");
    expect(parseCommandLine(["--namespace=demo"], opts).values.namespace).toBe("demo");
  });
});
