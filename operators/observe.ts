import { map, type OperatorFunction } from 'rxjs';
import type { ObservationBatch, TickBatch } from './model/batch.js';

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
export function observe<B extends TickBatch>(sample: (i: number, at: number) => number, perTick: number): OperatorFunction<B, B & ObservationBatch> {
  return map((batch) => {
    const observations = new Array<Float64Array>(batch.size);
    for (let i = 0; i < batch.size; i++) {
      const first = batch.index[i]! * perTick;
      const at = batch.offset[i]!;
      const values = new Float64Array(perTick);
      for (let j = 0; j < perTick; j++) values[j] = sample(first + j, at);
      observations[i] = values;
    }
    return { ...batch, observations };
  });
}
