/**
 * parseFlags reads `--name value`, `--name=value` and boolean `--name` options for the `ordinal`
 * subcommands implemented here (token, register). Unknown options and missing values are errors
 * that name the known options.
 */
export function parseFlags<S extends Record<string, "string" | "boolean">>(
  args: readonly string[],
  spec: S,
): { [K in keyof S]?: S[K] extends "boolean" ? boolean : string } {
  const out: Record<string, string | boolean> = {};
  const known = () => Object.keys(spec).map((k) => `--${k}`).join(", ");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument "${arg}"; options: ${known()}`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const kind = spec[name];
    if (!kind) throw new Error(`unknown option --${name}; options: ${known()}`);
    if (kind === "boolean") {
      if (eq >= 0) throw new Error(`option --${name} takes no value`);
      out[name] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") throw new Error(`option --${name} needs a value`);
    out[name] = value;
  }
  return out as { [K in keyof S]?: S[K] extends "boolean" ? boolean : string };
}
