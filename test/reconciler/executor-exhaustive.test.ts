// The executor's switch over Action["type"] is exhaustive (issue 20): it ends in assertNever, so
// adding an action type to src/core/actions.ts without a case in the executor does not compile.
// Checked with the TypeScript compiler on the real files, actions.ts given one more action type.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { assertNever } from "../../src/core/actions.ts";

const ACTIONS = path.resolve("src/core/actions.ts");
const EXECUTOR = path.resolve("src/reconciler/executor.ts");

/** executorErrors type-checks executor.ts (and what it imports) and returns its errors; `extra` is added to the Action union first. */
function executorErrors(extra?: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.resolve("tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error("tsconfig.json does not parse");
  // The executor needs no ambient types (node, workers) nor the DOM library: leaving them out makes the check a few times faster.
  const options = { ...parsed.options, types: [], lib: ["lib.es2022.d.ts"] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (extra === undefined || path.resolve(fileName) !== ACTIONS) return read(fileName, languageVersion, ...rest);
    const text = readFileSync(ACTIONS, "utf8");
    if (!text.includes("export type Action =\n")) throw new Error("actions.ts no longer declares `export type Action =` on a line of its own");
    return ts.createSourceFile(fileName, text.replace("export type Action =\n", `export type Action =\n  | ${extra}\n`), languageVersion);
  };
  const program = ts.createProgram({ rootNames: [EXECUTOR], options, host });
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(EXECUTOR)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the executor's switch over action types", () => {
  // As it is, it compiles: `npm test` runs tsc first.
  it("does not compile once an action type without a case is added", () => {
    const errors = executorErrors(`{ type: "restartPod"; name: string }`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/"restartPod".*not assignable to parameter of type 'never'/s);
  }, 60_000);

  it("assertNever throws at run time for a value outside the type, naming it", () => {
    // @ts-expect-error: only `never` is accepted, which is the point.
    expect(() => assertNever({ type: "restartPod" })).toThrow('no case for action type "restartPod"');
  });
});
