// Entry of the built `ordinal` (npm run build:node → dist/node/ordinal.mjs; the container image).
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
