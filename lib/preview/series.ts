/**
 * What a preview keeps of an entry's batches: per point of the time grid, the few numbers its chart draws. Each
 * accumulator is told where a row falls on the grid (`point`, already bounded to [0, points)) and what it was;
 * the series are read once the run ended. Memory is bounded by the grid, never by the events.
 */
import { quantileOf } from '../../operators/summary.js';
import { SEVERITIES } from '../language/fields.js';
import type { PreviewSeries } from './types.js';
import { ERROR_RATIO } from './points.js';

/** Label sets a gauge or counter preview draws one line each for; past it, `min`, `mean` and `max`. */
export const MAX_LINES = 8;

/** The quantiles of a histogram or summary preview's band. */
export const BAND_QUANTILES = [0.5, 0.9, 0.99] as const;

/**
 * Observations one step keeps to work out its quantiles: past it, every other one is dropped and only every
 * 2nd (4th, …) is kept from then on, so the quantiles stay those of an even sample of the step.
 */
export const MAX_STEP_OBSERVATIONS = 8192;

const nulls = (points: number) => new Array<number | null>(points).fill(null);

/** Gauges and counters: the last sample of each label set in a step, or min, mean and max of every sample in it. */
export class ValueLines {
  private readonly lines = new Map<string, (number | null)[]>();
  private many = false;
  private readonly min: (number | null)[];
  private readonly max: (number | null)[];
  private readonly sum: Float64Array;
  private readonly count: Float64Array;

  constructor(private readonly points: number) {
    this.min = nulls(points);
    this.max = nulls(points);
    this.sum = new Float64Array(points);
    this.count = new Float64Array(points);
  }

  add(point: number, series: string, value: number): void {
    this.min[point] = Math.min(this.min[point] ?? value, value);
    this.max[point] = Math.max(this.max[point] ?? value, value);
    this.sum[point]! += value;
    this.count[point]!++;
    if (this.many) return;
    let line = this.lines.get(series);
    if (!line) {
      if (this.lines.size === MAX_LINES) {
        // Too many label sets to draw a line each: only the aggregates are drawn.
        this.many = true;
        this.lines.clear();
        return;
      }
      this.lines.set(series, (line = nulls(this.points)));
    }
    line[point] = value;
  }

  series(): PreviewSeries[] {
    if (!this.many) return [...this.lines].map(([key, values]) => ({ name: `{${key}}`, values }));
    const mean = Array.from(this.count, (n, i) => (n === 0 ? null : this.sum[i]! / n));
    return [
      { name: 'min', values: this.min },
      { name: 'mean', values: mean },
      { name: 'max', values: this.max },
    ];
  }
}

/** Events per second in each step, one line per kind of event (a severity). */
export class RateLines {
  private readonly counts = new Map<string, Float64Array>();

  constructor(
    private readonly points: number,
    private readonly stepMs: number,
  ) {}

  add(point: number, kind: string, events = 1): void {
    let counts = this.counts.get(kind);
    if (!counts) this.counts.set(kind, (counts = new Float64Array(this.points)));
    counts[point]! += events;
  }

  /** Per second, null where no event of any kind fell (a gap, or before the start): 0 where only others did. */
  series(order: (kinds: string[]) => string[] = (kinds) => kinds): PreviewSeries[] {
    const any = new Float64Array(this.points);
    for (const counts of this.counts.values()) for (let i = 0; i < this.points; i++) any[i]! += counts[i]!;
    return order([...this.counts.keys()]).map((kind) => ({
      name: kind,
      values: Array.from(this.counts.get(kind)!, (n, i) => (any[i] === 0 ? null : (n * 1000) / this.stepMs)),
    }));
  }
}

/** Severities in their order of gravity, least first. */
export function bySeverity(kinds: string[]): string[] {
  const rank = (kind: string) => SEVERITIES.indexOf(kind as (typeof SEVERITIES)[number]);
  return [...kinds].sort((a, b) => rank(a) - rank(b));
}

/**
 * Spans per second and the share of them that failed (status error, raised or seen from a call), per step.
 */
export class SpanLines {
  private readonly spans: Float64Array;
  private readonly errors: Float64Array;

  constructor(
    points: number,
    private readonly stepMs: number,
  ) {
    this.spans = new Float64Array(points);
    this.errors = new Float64Array(points);
  }

  add(point: number, spans: number, errors: number): void {
    this.spans[point]! += spans;
    this.errors[point]! += errors;
  }

  series(): PreviewSeries[] {
    const none = (i: number) => this.spans[i] === 0;
    return [
      { name: 'spans/s', values: Array.from(this.spans, (n, i) => (none(i) ? null : (n * 1000) / this.stepMs)) },
      { name: ERROR_RATIO, values: Array.from(this.errors, (n, i) => (none(i) ? null : n / this.spans[i]!)) },
    ];
  }
}

/**
 * A quantile band: the p50, p90 and p99 of the observations made in each step. Rows arrive in time order (one
 * entry's chain is sequential), so only the current step's observations are held.
 */
export class QuantileBand {
  private readonly bands: (number | null)[][];
  private point = -1;
  private held: number[] = [];
  /** Observations of the step seen so far, and every how many one is kept. */
  private seen = 0;
  private stride = 1;

  constructor(points: number) {
    this.bands = BAND_QUANTILES.map(() => nulls(points));
  }

  add(point: number, value: number): void {
    if (point !== this.point) {
      this.close();
      this.point = point;
    }
    if (this.seen++ % this.stride !== 0) return;
    this.held.push(value);
    if (this.held.length === MAX_STEP_OBSERVATIONS) {
      this.held = this.held.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
    }
  }

  series(): PreviewSeries[] {
    this.close();
    return BAND_QUANTILES.map((q, i) => ({ name: `p${q * 100}`, values: this.bands[i]! }));
  }

  private close(): void {
    if (this.held.length > 0) {
      const sorted = Float64Array.from(this.held).sort();
      BAND_QUANTILES.forEach((q, i) => {
        this.bands[i]![this.point] = quantileOf(sorted, q);
      });
    }
    this.held = [];
    this.seen = 0;
    this.stride = 1;
  }
}
