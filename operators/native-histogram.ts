import type { OperatorFunction } from 'rxjs';
import type { Labelled, ObservationBatch, SampleBatch } from './model/batch.js';
import { expandRows } from './internal/series-rows.js';
import { checkNativeOptions, ExponentialBuckets, type NativeHistogramOptions } from './internal/exponential-buckets.js';
import { DEFAULT_NATIVE } from './histogram.js';

/**
 * Native histogram: records every tick's observations into Prometheus' sparse exponential buckets, per label set,
 * cumulative since the entry start, and writes the tick as one row: the series without suffix, its `native` column
 * holding the histogram (schema, zero bucket, spans, absolute counts, count, sum), its value the count. When more
 * than `maxBuckets` buckets are populated the resolution is halved (schema lowered, bucket pairs merged), as
 * Prometheus' client_golang does. State is kept per subscription: subscribed again, it starts from zero.
 *
 * ```
 * observations:  [0.2, 3]-----[-1, 0]---|
 *                nativeHistogram({ schema: 0, zeroThreshold: 0.001, maxBuckets: 160 })
 * rows:          a------------b---------|   a = 2 {positive: 0.2 in (1/8, 1/4], 3 in (2, 4]}
 *                                           b = 4 {the same, zero bucket 1, negative: 1 in (1/2, 1]}
 * ```
 */
export function nativeHistogram(
  options: NativeHistogramOptions = DEFAULT_NATIVE,
): OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>> {
  checkNativeOptions('nativeHistogram', 'options', options);
  return expandRows<ExponentialBuckets>({
    operator: 'nativeHistogram',
    rows: [{ suffix: '', native: true }],
    initial: () => new ExponentialBuckets(options),
    record: (state, observations, out, at) => {
      for (const observation of observations) state.record(observation);
      out[at] = state.count;
    },
    native: (state) => state.snapshot(),
  });
}
