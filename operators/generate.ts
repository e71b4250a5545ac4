import { map, type OperatorFunction } from 'rxjs';
import type { TickBatch } from './model/batch.js';
import { check, FUNCTION } from './internal/arguments.js';

/** The value of tick `index`, scheduled `offset` ms after the entry start. Pure. */
export type ValueGenerator = (index: number, offset: number) => number;

/**
 * Generator map: gives every tick a value computed from its slot number and scheduled time.
 *
 * ```
 * ticks:   0---1---2---3--|
 *          generate((n) => 10 + n)
 * values:  10--11--12--13-|
 * ```
 */
export function generate<B extends TickBatch>(
  generator: ValueGenerator,
): OperatorFunction<B, B & { readonly value: Float64Array }> {
  check('generate', 'generator', generator, FUNCTION);
  return map((batch) => {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, index, offset } = batch;
    const value = new Float64Array(size);
    for (let i = 0; i < size; i++) value[i] = generator(index[i]!, offset[i]!);
    return { ...batch, value };
  });
}
