import type { BudgetClock } from "../../src/http/bytes-in-flight.ts";

/** fakeBudgetClock returns a BodyBudget clock that stands still until `advance`, which runs what falls due. */
export function fakeBudgetClock(): BudgetClock & { advance(ms: number): void } {
  let t = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => t,
    after: (ms, fn) => {
      const timer = { at: t + ms, fn };
      timers.push(timer);
      return () => void (timers = timers.filter((x) => x !== timer));
    },
    advance(ms) {
      t += ms;
      const due = timers.filter((x) => x.at <= t);
      timers = timers.filter((x) => x.at > t);
      for (const x of due) x.fn();
    },
  };
}
