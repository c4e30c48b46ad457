import { mkdir, readFile, rename, writeFile } from "node:fs/promises";

/** File access the commands use (Node's fs in a process; a Map in tests). */
export interface CommandIO {
  readFile(path: string): Promise<string>;
  writeFile(path: string, data: string, opts?: { mode?: number }): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** Atomic replace (rename(2)); files a reader polls are written next to it and renamed over it. */
  rename(from: string, to: string): Promise<void>;
}

/** nodeIO gives the commands (token, register) Node's file system. */
export const nodeIO: CommandIO = {
  readFile: (p) => readFile(p, "utf8"),
  writeFile: (p, data, o) => writeFile(p, data, { mode: o?.mode }),
  mkdir: (p) => mkdir(p, { recursive: true }).then(() => undefined),
  rename: (from, to) => rename(from, to),
};
