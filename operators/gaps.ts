import { filter, map, pipe, type MonoTypeOperatorFunction } from 'rxjs';
import { selectTicks, type TickBatch } from './model/batch.js';
import { inTail, type Window } from './model/window.js';

/**
 * Gap filter: drops every tick scheduled in the tail `[every - for, every)` of a cycle,
 * measured from the entry start. Dropped slots keep their numbers, so counters and
 * sequences resume as if time had passed.
 *
 * ```
 * ticks:  0-1-2-3-4-5-6-7-|
 *         gaps({ every: 4 ticks, for: 2 ticks })
 * ticks:  0-1-----4-5-----|
 * ```
 */
export function gaps<B extends TickBatch>(window: Window): MonoTypeOperatorFunction<B> {
  return pipe(
    map((batch: B) => {
      let kept: number[] | undefined;
      for (let i = 0; i < batch.size; i++) {
        const silent = inTail(window, batch.offset[i]!);
        if (silent && !kept) kept = Array.from({ length: i }, (_, j) => j);
        else if (!silent && kept) kept.push(i);
      }
      return kept ? selectTicks(batch, kept) : batch;
    }),
    filter((batch) => batch.size > 0),
  );
}
