/**
 * The preview's JSON, as `POST /preview` answers it and `svc plot` and the web console draw it (docs/plot.md): types
 * only, which the console's browser code reads too.
 */

/** What the entries of a file make over a span of virtual time, on a grid of `points` steps. */
export interface Preview {
  /** Epoch ms of point 0: the file's start, as its timestamps write it (its `start_time`). */
  readonly from: number;
  /** Milliseconds each point covers: point i covers [from + i·step, from + (i + 1)·step). */
  readonly step: number;
  readonly points: number;
  /** In file order (span metrics after their traces entry). */
  readonly entries: PreviewEntry[];
}

/** One entry's chart. */
export interface PreviewEntry {
  readonly id: string;
  readonly signal: 'metrics' | 'logs' | 'traces';
  readonly type: 'gauge' | 'counter' | 'histogram' | 'summary' | 'logs' | 'traces';
  /** What the values mean: `value`, `events/s` (logs), `spans/s` (traces), `milliseconds` or `seconds` (span metrics' durations). */
  readonly unit: string;
  /** See docs/plot.md for the lines of each type. Each has `points` values, null where its step has none. */
  readonly series: PreviewSeries[];
  readonly marks: PreviewMark[];
}

/** One line of a chart: a value per point of the grid, null where the step has none. */
export interface PreviewSeries {
  /** What the line is: a label set (`{host="a"}`), `min`, `mean`, `max`, `p50`, a severity, `spans/s`. */
  readonly name: string;
  readonly values: (number | null)[];
}

/** A moment, or a span of time, of an entry's preview. */
export interface PreviewMark {
  /**
   * `start`: the entry started (at once or after its phase offset); `after`: its `after` trigger started it;
   * `spike`: a cardinality spike's window; `incident`: a traces incident's window.
   */
  readonly kind: 'start' | 'end' | 'after' | 'while' | 'burst' | 'gap' | 'spike' | 'incident';
  /** Epoch milliseconds, on the preview's time axis. */
  readonly at: number;
  /** Epoch milliseconds where a window (a burst, a gap, a spike, an incident, an open `while` gate) ends; absent on a moment. */
  readonly until?: number;
  /** What the mark stands for: `after cpu > 80`, `phase_offset 30s`, `×5`, `spike pod: 1000 values`, `incident checkout`. */
  readonly label?: string;
}
