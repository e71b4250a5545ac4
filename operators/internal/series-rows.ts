import { defer, map, type OperatorFunction } from 'rxjs';
import type { Labelled, ObservationBatch, SampleBatch } from '../model/batch.js';
import type { NativeHistogram } from '../model/native-histogram.js';
import { seriesOf, type Series } from '../model/series.js';
import { check, type Rule } from './arguments.js';

/** The running totals of one series of a histogram or summary. */
export interface SeriesTotals {
  sum: number;
  count: number;
}

export interface RowsOptions<S extends SeriesTotals> {
  /** The operator, named in what a batch it cannot read errors with. */
  readonly operator: string;
  /** Label and name suffix of each row, built once per label set; `native`: the row carries the native histogram. */
  readonly rows: readonly {
    readonly suffix: string;
    readonly label?: readonly [string, string];
    readonly native?: true;
  }[];
  readonly initial: () => S;
  /** Records one tick's observations into the state and writes its row values into `out`. */
  readonly record: (state: S, observations: Float64Array, out: Float64Array, at: number) => void;
  /** The native histogram of the state after a tick, for the row marked `native`. */
  readonly native?: (state: S) => NativeHistogram;
}

/**
 * Expands every event (tick) of a labelled observation batch into the fixed rows of its series
 * set — one sample per row — keeping running state per label set, created afresh for each
 * subscription (as `scan` does), so a chain subscribed again starts from zero. Shared by
 * `histogram` and `summary`: they differ only in the rows and in how a tick's observations
 * update the state.
 */
export function expandRows<S extends SeriesTotals>(
  options: RowsOptions<S>,
): OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>> {
  return (source) => defer(() => source.pipe(map(rowsExpander(options))));
}

/** One subscription's expansion: its own state per label set. */
function rowsExpander<S extends SeriesTotals>({
  operator,
  rows,
  initial,
  record,
  native,
}: RowsOptions<S>): (batch: Labelled<ObservationBatch>) => Labelled<SampleBatch> {
  const perEvent = rows.length;
  const nativeRow = native ? rows.findIndex((row) => row.native) : -1;
  // By label set (its key: one set may come as several objects), for as long as the run: the
  // totals are cumulative, so each series' state is the one memory that grows with cardinality.
  const states = new Map<string, { state: S; rowSeries: Series[] }>();
  let lastSeries: Series | undefined;
  let lastFound: { state: S; rowSeries: Series[] } | undefined;
  const stateOf = (series: Series) => {
    if (series === lastSeries) return lastFound!;
    let found = states.get(series.key);
    if (!found) {
      const rowSeries = rows.map(({ suffix, label }) =>
        seriesOf(label ? { ...series.labels, [label[0]]: label[1] } : series.labels, suffix),
      );
      states.set(series.key, (found = { state: initial(), rowSeries }));
    }
    lastSeries = series;
    return (lastFound = found);
  };

  return (batch) => {
    check(operator, 'each value of its source', batch, OBSERVED);
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size: events, anchor, index: fromIndex, offset: fromOffset, series: fromSeries, observations } = batch;
    const size = events * perEvent;
    const index = new Float64Array(size);
    const offset = new Float64Array(size);
    const value = new Float64Array(size);
    const series = new Array<Series>(size);
    const natives = nativeRow < 0 ? undefined : new Array<NativeHistogram | undefined>(size);
    for (let i = 0; i < events; i++) {
      const { state, rowSeries } = stateOf(fromSeries[i]!);
      const at = i * perEvent;
      record(state, observations[i]!, value, at);
      if (natives) natives[at + nativeRow] = native!(state);
      const tickIndex = fromIndex[i]!;
      const tickOffset = fromOffset[i]!;
      for (let r = 0; r < perEvent; r++) {
        index[at + r] = tickIndex;
        offset[at + r] = tickOffset;
        series[at + r] = rowSeries[r]!;
      }
    }
    const rowBatch = { size, anchor, index, offset, value, series, events };
    return natives ? { ...rowBatch, native: natives } : rowBatch;
  };
}

/** What the rows are made of: without either column a JavaScript caller's chain would fail on a read of undefined. */
const OBSERVED: Rule = {
  type: 'object',
  test: (batch: Partial<Labelled<ObservationBatch>>) =>
    Array.isArray(batch.observations) && Array.isArray(batch.series),
  expected: 'a labelled batch of observations (observe(…), labels(…) before it)',
};

/** Prometheus' text form of a bucket bound or quantile: shortest round trip, `+Inf`. */
export function boundText(bound: number): string {
  return bound === Infinity ? '+Inf' : String(bound);
}

/** Index of the first bound ≥ the observation (bounds ascending, last +Inf; NaN lands there too). */
export function bucketOf(bounds: readonly number[], observation: number): number {
  let low = 0;
  let high = bounds.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (observation <= bounds[mid]!) high = mid;
    else low = mid + 1;
  }
  return low;
}
