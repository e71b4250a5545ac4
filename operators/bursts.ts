import { map, type MonoTypeOperatorFunction } from 'rxjs';
import { checkBurst, type Burst, type RateSchedule } from './model/rate-schedule.js';

/**
 * Burst rate switch: multiplies the rate of a schedule by `multiplier` in the head
 * `[0, for)` of every `every` cycle, measured from the entry start. It acts on the
 * schedule stream, upstream of {@link ticks}, because a burst changes when ticks fall due
 * rather than which ticks survive. Every extra event of a burst is a tick of its own.
 *
 * ```
 * schedules:  r----------------------------
 *             bursts({ every: 100, for: 20, multiplier: 4 })
 * schedules:  b----------------------------   b: 4r in [0, 20), r in [20, 100), repeating
 * ```
 */
export function bursts(burst: Burst): MonoTypeOperatorFunction<RateSchedule> {
  checkBurst('bursts', burst);
  return map((schedule) => schedule.withBurst(burst, 'bursts'));
}
