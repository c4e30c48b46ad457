#!/usr/bin/env node
// The `ordinal` command in a checkout: loads the TypeScript sources through tsx, then runs the CLI
// (the container image runs the bundle `npm run build:node` makes instead).
import { register } from "tsx/esm/api";

register();
const { main } = await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
