import type { ReplayTimes } from '../language/types.js';
import { microseconds, onMicrosecondGrid } from '../../operators/model/window.js';

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
  // In microseconds, converted once: on the grid, 90 ms at timescale 0.7 (62.99999999999999 ms) is the row at 63 ms,
  // and 123.3 ms is where a 41.1 ms pass starts over (in ms, 123.3 % 41.1 is 41.09999999999999: the last row).
  const rows = Float64Array.from(times.at, microseconds);
  const span = microseconds(times.span);
  const last = rows.length - 1;
  return (at) => {
    const t = microseconds(at * timescale);
    if (!repeat && t >= span) return last;
    const within = t % span;
    // Binary search: the last row whose time is at or before `within`.
    let [low, high] = [0, last];
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (rows[mid]! <= within) low = mid;
      else high = mid - 1;
    }
    return low;
  };
}
