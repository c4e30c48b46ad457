/**
 * The shard Durable Objects of the workers tests (vitest.config.ts: RECONCILE_SHARDS 3), shared by
 * shards.test.ts and faults.test.ts: a stub by index, and a reset that leaves every shard as one
 * that never ran (reset() alone leaves alarms and storage behind).
 */
import { abortAllDurableObjects, env, type listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import type { Env } from "../../src/worker/env.ts";

/** RECONCILE_SHARDS in vitest.config.ts. */
export const SHARDS = 3;

/** The bindings with the SHARDS namespace typed for cloudflare:test's helpers. */
export const bindings = env as unknown as Env & { SHARDS: Parameters<typeof listDurableObjectIds>[0] & NonNullable<Env["SHARDS"]> };

/** The stub of shard `index` (named shard-<index>, as the Worker names them). */
export const stubOf = (index: number) => bindings.SHARDS.get(bindings.SHARDS.idFromName(`shard-${index}`)) as Parameters<typeof runInDurableObject>[0];

/** Deletes every shard's alarm and storage, then aborts the objects: the next test starts clean. */
export async function resetShards(): Promise<void> {
  for (let i = 0; i < SHARDS; i++) {
    await runInDurableObject(stubOf(i), async (_o, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
  }
  await abortAllDurableObjects();
}
