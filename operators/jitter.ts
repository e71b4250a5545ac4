import { map, type MonoTypeOperatorFunction } from 'rxjs';
import type { SampleBatch } from './model/batch.js';
import { SplitMix64 } from '../lib/random.js';
import { check, INTEGER, NON_NEGATIVE } from './internal/arguments.js';

/**
 * Adds uniform noise in `[-amount, +amount)` to every value. The noise of tick n is drawn from
 * SplitMix64 output n of `seed`: the same seed gives the same noise on every run and machine,
 * however the ticks are batched.
 *
 * ```
 * values:  10--10--10--10--|
 *          jitter(1, 42)
 * values:  a---b---c---d---|   each within [9, 11)
 * ```
 */
export function jitter<B extends SampleBatch>(amount: number, seed = 0): MonoTypeOperatorFunction<B> {
  check('jitter', 'amount', amount, NON_NEGATIVE);
  check('jitter', 'seed', seed, INTEGER);
  const random = new SplitMix64(seed);
  return map((batch) => {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, index, value: before } = batch;
    const value = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      value[i] = before[i]! + (2 * random.unit(index[i]!) - 1) * amount;
    }
    return { ...batch, value };
  });
}
