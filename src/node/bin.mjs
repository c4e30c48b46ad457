#!/usr/bin/env node
// The `ordinal` command: loads the TypeScript sources through tsx, then runs the CLI.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./cli.ts");
process.exitCode = await main(process.argv.slice(2));
