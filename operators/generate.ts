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
    const value = new Float64Array(batch.size);
    for (let i = 0; i < batch.size; i++) value[i] = generator(batch.index[i]!, batch.offset[i]!);
    return { ...batch, value };
  });
}
