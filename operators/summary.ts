import type { OperatorFunction } from 'rxjs';
import type { Labelled, ObservationBatch, SampleBatch } from './model/batch.js';
import { boundText, expandRows, type SeriesTotals } from './internal/series-rows.js';
import { checkIncreasing, PROBABILITY } from './internal/arguments.js';
import { between } from '../lib/random.js';

export const DEFAULT_QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;

/**
 * Summary: writes every tick as its series set — one `{quantile="q"}` row per quantile, then
 * `_sum` and `_count`. Quantiles are taken over the observations of that tick alone (the
 * window is one tick), by linear interpolation between order statistics; `_sum` and `_count`
 * are cumulative since the entry start, per label set.
 *
 * ```
 * observations:  [1, 2, 3, 4]----|
 *                summary([0.5])
 * rows:          (abc)-----------|   a = {quantile="0.5"} 2.5, b = _sum 10, c = _count 4
 * ```
 */
export function summary(
  quantiles: readonly number[] = DEFAULT_QUANTILES,
): OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>> {
  checkIncreasing('summary', 'quantiles', quantiles, PROBABILITY);
  const rows = [
    ...quantiles.map((q) => ({ suffix: '', label: ['quantile', boundText(q)] as const })),
    { suffix: '_sum' },
    { suffix: '_count' },
  ];
  return expandRows<SeriesTotals>({
    operator: 'summary',
    rows,
    initial: () => ({ sum: 0, count: 0 }),
    record: (state, observations, out, at) => {
      const sorted = Float64Array.from(observations).sort();
      for (let k = 0; k < quantiles.length; k++) out[at + k] = quantileOf(sorted, quantiles[k]!);
      for (const observation of observations) state.sum += observation;
      state.count += observations.length;
      out[at + quantiles.length] = state.sum;
      out[at + quantiles.length + 1] = state.count;
    },
  });
}

/** Quantile q of sorted values, interpolating linearly between ranks (an infinite one holds its side); NaN when empty. */
export function quantileOf(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = q * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return between(sorted[below]!, sorted[above]!, rank - below);
}
