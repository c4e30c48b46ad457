import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import type { CommandIO } from "../webhook-config/register-command.ts";

/** nodeIO gives the runtime-neutral commands (token, register) Node's file system. */
export const nodeIO: CommandIO = {
  readFile: (p) => readFile(p, "utf8"),
  writeFile: (p, data, o) => writeFile(p, data, { mode: o?.mode }),
  mkdir: (p) => mkdir(p, { recursive: true }).then(() => undefined),
  rename: (from, to) => rename(from, to),
};
