import type { ReplayTimes } from '../language/types.js';
import { microsecondCycle, microseconds, onMicrosecondGrid } from '../../operators/model/window.js';

/**
 * The CSV time (ms from its first row, before `repeat` wraps it) of the tick scheduled `at` ms after the entry start.
 * On the grid: 90 ms at timescale 0.7 is 62.99999999999999, which read the row before the one at 63 ms.
 */
export function replayTime(at: number, timescale: number): number {
  return onMicrosecondGrid(at * timescale);
}

/**
 * The row of a replayed CSV in force `at` ms after the entry start: the last row at or before
 * `at × timescale` on the CSV's own time. With `repeat` the CSV starts over after its span;
 * without it the last row holds. Times are compared in microseconds, on the grid of durations.
 */
export function replayRow(times: ReplayTimes, repeat: boolean, timescale: number): (at: number) => number {
  const { at: rows } = times;
  const last = rows.length - 1;
  // On the grid: 90 ms at timescale 0.7 is 62.99999999999999, which read the row before the one at 63 ms, and in ms
  // 123.3 % 41.1 is 41.09999999999999, which read the last row of a 41.1 ms pass where it starts over.
  const pass = microsecondCycle(times.span);
  return (at) => {
    const t = replayTime(at, timescale);
    if (!repeat && microseconds(t) >= pass.length) return last;
    const within = pass.position(t);
    // Binary search: the last row whose time is at or before `within`.
    let [low, high] = [0, last];
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (microseconds(rows[mid]!) <= within) low = mid;
      else high = mid - 1;
    }
    return low;
  };
}
