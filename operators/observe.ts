import { map, type OperatorFunction } from 'rxjs';
import type { ObservationBatch, TickBatch } from './model/batch.js';
import { check, FUNCTION, type Rule } from './internal/arguments.js';

/** Observations a tick at most: the scenario language's bound of `observations_per_tick` (its batch is one buffer). */
export const MAX_OBSERVATIONS_PER_TICK = 10_000;

const PER_TICK: Rule = {
  type: 'number',
  test: (value: number) => Number.isInteger(value) && value >= 0 && value <= MAX_OBSERVATIONS_PER_TICK,
  expected: `a whole number from 0 to ${MAX_OBSERVATIONS_PER_TICK}`,
};

/**
 * Generator map for histogram and summary entries: gives tick n, scheduled `at` ms after the
 * start, the observations `sample(n × perTick + j, at)` for j in [0, perTick), so they depend on
 * the tick alone.
 *
 * ```
 * ticks:         0-------1-------|
 *                observe(sample, 3)
 * observations:  [a,b,c]-[d,e,f]-|
 * ```
 */
export function observe<B extends TickBatch>(
  sample: (i: number, at: number) => number,
  perTick: number,
): OperatorFunction<B, B & ObservationBatch> {
  check('observe', 'sample', sample, FUNCTION);
  check('observe', 'perTick', perTick, PER_TICK);
  return map((batch) => {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, index, offset } = batch;
    const observations = new Array<Float64Array>(size);
    // One buffer for the batch, a view of it per tick: a typed array of its own per tick would
    // be a separate allocation (and a buffer to sweep) each, past V8's 64 bytes held in the heap.
    const all = new Float64Array(size * perTick);
    for (let i = 0; i < size; i++) {
      const first = index[i]! * perTick;
      const at = offset[i]!;
      const from = i * perTick;
      for (let j = 0; j < perTick; j++) all[from + j] = sample(first + j, at);
      observations[i] = all.subarray(from, from + perTick);
    }
    return { ...batch, observations };
  });
}
