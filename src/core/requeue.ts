/**
 * earlierMs returns the sooner of two "look again after" delays (milliseconds), either of which
 * may be absent: the planner's phases, the pass's sets and the ImageList actuator each may ask to
 * be looked at again, and the pass honours the earliest request.
 */
export function earlierMs(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
