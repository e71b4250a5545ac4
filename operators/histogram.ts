import type { OperatorFunction } from 'rxjs';
import type { Labelled, ObservationBatch, SampleBatch } from './model/batch.js';
import { boundText, bucketOf, expandRows, type SeriesTotals } from './internal/series-rows.js';
import { checkNativeOptions, ExponentialBuckets, type NativeHistogramOptions } from './internal/exponential-buckets.js';
import { check, checkIncreasing, OBJECT } from './internal/arguments.js';

export type { NativeHistogramOptions };

/** The Prometheus client libraries' default buckets. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/**
 * A native histogram's settings when none are given, as Prometheus' client_golang would choose them: schema 3 (the
 * schema its documented bucket factor 1.1 selects), its `DefNativeHistogramZeroThreshold` 2^-128, and at most 160
 * populated buckets (client_golang has no default cap; 160 is OpenTelemetry's default exponential histogram size).
 */
export const DEFAULT_NATIVE: NativeHistogramOptions = { schema: 3, zeroThreshold: 2 ** -128, maxBuckets: 160 };

/** What a histogram writes beside its classic buckets. */
export interface HistogramOptions {
  /** Also record a native histogram of the same observations, written as one more row of each event. */
  readonly native?: NativeHistogramOptions;
}

/**
 * Histogram: records every tick's observations into cumulative buckets, per label set, and
 * writes the tick as its series set — one `_bucket{le="b"}` row per bound (cumulative over
 * bounds), `le="+Inf"`, `_sum` and `_count`, all cumulative since the entry start. With `native`
 * it records the same observations into a native histogram too (as {@link nativeHistogram}) and
 * writes it as a last row: the series without suffix, its `native` column set, its value the count.
 *
 * ```
 * observations:  [0.2, 3]---[0.7]--------|
 *                histogram([1])
 * rows:          (abcd)-----(efgh)-------|   a = _bucket{le="1"} 1, b = le="+Inf" 2, c = _sum 3.2, d = _count 2,
 *                                            e = le="1" 2, f = le="+Inf" 3, g = _sum 3.9, h = _count 3
 * ```
 */
export function histogram(
  buckets: readonly number[] = DEFAULT_BUCKETS,
  options: HistogramOptions = {},
): OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>> {
  checkIncreasing('histogram', 'buckets', buckets);
  check('histogram', 'options', options, OBJECT);
  const { native } = options;
  if (native) checkNativeOptions('histogram', 'native', native);
  const bounds = [...buckets, Infinity];
  const rows = [
    ...bounds.map((bound) => ({ suffix: '_bucket', label: ['le', boundText(bound)] as const })),
    { suffix: '_sum' },
    { suffix: '_count' },
    ...(native ? [{ suffix: '', native: true as const }] : []),
  ];
  type State = SeriesTotals & { perBucket: Float64Array; native?: ExponentialBuckets };
  return expandRows<State>({
    operator: 'histogram',
    rows,
    initial: () => ({
      sum: 0,
      count: 0,
      perBucket: new Float64Array(bounds.length),
      ...(native && { native: new ExponentialBuckets(native) }),
    }),
    record: (state, observations, out, at) => {
      for (const observation of observations) {
        state.perBucket[bucketOf(bounds, observation)]!++;
        state.sum += observation;
      }
      state.count += observations.length;
      let cumulative = 0;
      for (let b = 0; b < bounds.length; b++) out[at + b] = cumulative += state.perBucket[b]!;
      out[at + bounds.length] = state.sum;
      out[at + bounds.length + 1] = state.count;
      if (!state.native) return;
      for (const observation of observations) state.native.record(observation);
      out[at + bounds.length + 2] = state.count;
    },
    native: native && ((state) => state.native!.snapshot()),
  });
}
