/**
 * sleepUntil waits until `now()` shows `at` (epoch ms), by `sleep`: once for the time left, then
 * again for what the clock still shows left. A timer may end before the clock shows its time: Node's
 * timers run on a monotonic clock of their own and end up to 1 ms early by Date.now, so a shell
 * that judges "due" by its clock right after a timer would find it not due yet. Stops when the clock
 * did not move while it slept (a test's own clock that only the test moves).
 */
export async function sleepUntil(at: number, now: () => number, sleep: (ms: number) => Promise<void>): Promise<void> {
  for (let left = at - now(); left > 0; ) {
    await sleep(left);
    const rest = at - now();
    if (rest >= left) return;
    left = rest;
  }
}
