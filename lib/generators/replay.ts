import type { ReplayTimes } from '../language/types.js';
import { onMicrosecondGrid } from '../../operators/model/window.js';

/**
 * The row of a replayed CSV in force `at` ms after the entry start: the last row at or before
 * `at × timescale` on the CSV's own time. With `repeat` the CSV starts over after its span;
 * without it the last row holds.
 */
export function replayRow(times: ReplayTimes, repeat: boolean, timescale: number): (at: number) => number {
  const { at: rows, span } = times;
  const last = rows.length - 1;
  return (at) => {
    // On the grid: 90 ms at timescale 0.7 is 62.99999999999999, which read the row before the one at 63 ms.
    const t = onMicrosecondGrid(at * timescale);
    if (t >= span && !repeat) return last;
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
