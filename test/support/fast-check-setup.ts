/**
 * Vitest setup (node project): every fast-check property runs with a fixed seed (FC_SEED to
 * change it) so the default suite is deterministic; a failure prints the seed and the path that
 * replays it, and the file's rerun is `FC_SEED=<seed> npx vitest run <file>`.
 */
import fc from "fast-check";
import { fcSeed } from "./random.ts";

fc.configureGlobal({ seed: fcSeed });
