/** A recurring window measured from the entry start: a cycle of `every` ms, `for` ms long. */
export interface Window {
  readonly every: number;
  readonly for: number;
}

/**
 * A time within this fraction of itself of a whole microsecond is that microsecond: the few roundings of a
 * product or quotient (n / rate, period_secs × 1000, at × timescale) put a time that is exactly a whole
 * microsecond, where durations, windows and periods lie, a bit before or after it.
 */
const GRID_TOLERANCE = 2 ** -48;

/** `ms` in microseconds: a whole number when `ms` is that close to one (see {@link GRID_TOLERANCE}). */
export function microseconds(ms: number): number {
  const exact = ms * 1000;
  const whole = Math.round(exact);
  return Math.abs(exact - whole) <= Math.abs(exact) * GRID_TOLERANCE ? whole : exact;
}

/**
 * `ms` on the microsecond grid of durations when it is that close to it (see {@link GRID_TOLERANCE}), else `ms`:
 * a slot due exactly at a duration's end is not emitted before it (2.1/s: slot 21 at 10 000 ms, not 9 999.999…),
 * a spike of `interval_secs: 2.007` opens at 2007 ms, not just after it.
 */
export function onMicrosecondGrid(ms: number): number {
  const us = microseconds(ms);
  return Number.isInteger(us) ? us / 1000 : ms;
}

/**
 * Where `offset` (ms) lies in a cycle of `every` microseconds, in microseconds. On the grid both are whole numbers,
 * whose remainder is exact, so a time at a cycle's edge is at its edge (in ms, 0.6 % 0.2 is 0.19999999999999996,
 * which put a tick at the start of a 0.2 ms cycle in its tail).
 */
function positionIn(every: number, offset: number): number {
  return microseconds(offset) % every;
}

/** A cycle of `every` ms reckoned in microseconds, `every` converted once: its length, and where an offset lies in it. */
export interface MicrosecondCycle {
  /** The cycle's length, in microseconds. */
  readonly length: number;
  /** Where `offset` (ms) lies in the cycle, in microseconds: in `[0, length)`. */
  position(offset: number): number;
  /** Which cycle `offset` (ms) lies in, counted from 0: exact at a cycle's start (in ms, 0.3 / 0.1 is 2.999…). */
  index(offset: number): number;
}

/** The cycle of `every` ms on the microsecond grid ({@link MicrosecondCycle}). */
export function microsecondCycle(every: number): MicrosecondCycle {
  const length = microseconds(every);
  return {
    length,
    position: (offset) => positionIn(length, offset),
    index: (offset) => {
      const us = microseconds(offset);
      // What lies before the position is a whole number of cycles: the division rounds off only its last bits.
      return Math.round((us - (us % length)) / length);
    },
  };
}

/** Whether `offset` (ms) lies in the head of a window of `every` and `length` microseconds. */
function head(every: number, length: number, offset: number): boolean {
  return positionIn(every, offset) < length;
}

/** Whether `offset` (ms) lies in the tail of a window of `every` and `length` microseconds. */
function tail(every: number, length: number, offset: number): boolean {
  return positionIn(every, offset) >= every - length;
}

/**
 * The test "does `offset` (ms since the entry start) lie in the head `[0, for)` of its cycle", `window` converted to
 * microseconds once: what a chain asks per tick.
 */
export function inHeadOf(window: Window): (offset: number) => boolean {
  const [every, length] = [microseconds(window.every), microseconds(window.for)];
  return (offset) => head(every, length, offset);
}

/**
 * The test "does `offset` (ms since the entry start) lie in the tail `[every - for, every)` of its cycle", `window`
 * converted to microseconds once: what a chain asks per tick.
 */
export function inTailOf(window: Window): (offset: number) => boolean {
  const [every, length] = [microseconds(window.every), microseconds(window.for)];
  return (offset) => tail(every, length, offset);
}

/** True when `offset` (ms since the entry start) lies in the head `[0, for)` of its cycle (per tick: {@link inHeadOf}). */
export function inHead(window: Window, offset: number): boolean {
  return head(microseconds(window.every), microseconds(window.for), offset);
}

/**
 * True when `offset` (ms since the entry start) lies in the tail `[every - for, every)` of its cycle (per tick:
 * {@link inTailOf}).
 */
export function inTail(window: Window, offset: number): boolean {
  return tail(microseconds(window.every), microseconds(window.for), offset);
}

/** A window that happens once: from `at` ms after the entry start, `for` ms long; half-open, `[at, at + for)`. */
export interface OneShotWindow {
  readonly at: number;
  readonly for: number;
}

/**
 * `windows` as the one silence they make together: sorted, disjoint `[from, to)` spans, windows that touch or
 * overlap joined into one. What the runtime drops and what a preview marks are both read from these spans. A span
 * ends on the microsecond grid ({@link onMicrosecondGrid}): 0.1 + 0.2 ms is 0.30000000000000004, which silenced the
 * tick at 0.3 ms, the end of the window.
 */
export function mergedWindows(windows: readonly OneShotWindow[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const { at, for: length } of [...windows].sort((a, b) => a.at - b.at)) {
    const end = onMicrosecondGrid(at + length);
    const last = spans.at(-1);
    if (last && at <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([at, end]);
  }
  return spans;
}

/**
 * The test "does `offset` (ms since the entry start) lie in one of `windows`": the windows are merged once
 * ({@link mergedWindows}), then searched by bisection, so a capture's many windows cost little per tick.
 */
export function inAnyWindow(windows: readonly OneShotWindow[]): (offset: number) => boolean {
  const spans = mergedWindows(windows);
  return (offset) => {
    // The first span that ends after offset.
    let low = 0;
    let high = spans.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (spans[middle]![1] <= offset) low = middle + 1;
      else high = middle;
    }
    return low < spans.length && spans[low]![0] <= offset;
  };
}
