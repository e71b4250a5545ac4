import { filter, identity, map, pipe, type MonoTypeOperatorFunction } from 'rxjs';
import { selectTicks, type TickBatch } from './model/batch.js';
import { inAnyWindow, inTailOf, type OneShotWindow, type Window } from './model/window.js';
import { check, checkList, checkWindow, NON_NEGATIVE, OBJECT, POSITIVE } from './internal/arguments.js';

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
  return silence(recurring('gaps', window));
}

/**
 * One-shot gap filter: drops every tick scheduled in one of `windows`, each `[at, at + for)` from the entry
 * start, happening once (an outage that happened, not one that recurs). Windows may overlap or touch: together
 * they are one silence. Dropped slots keep their numbers, as with {@link gaps}, so the value after a window is
 * the one due at that moment, nothing caught up.
 *
 * ```
 * ticks:  0-1-2-3-4-5-6-7-|
 *         gapWindows([{ at: 1 tick, for: 2 ticks }, { at: 5 ticks, for: 1 tick }])
 * ticks:  0-----3-4---6-7-|
 * ```
 */
export function gapWindows<B extends TickBatch>(windows: readonly OneShotWindow[]): MonoTypeOperatorFunction<B> {
  return silence(oneShot('gapWindows', windows));
}

/**
 * Both silences in one stage: drops every tick {@link gaps}`(window)` or {@link gapWindows}`(windows)` would drop,
 * testing each tick once; either may be absent (neither: every tick is kept).
 *
 * ```
 * ticks:  0-1-2-3-4-5-6-7-|
 *         silences({ every: 4 ticks, for: 1 tick }, [{ at: 1 tick, for: 1 tick }])
 * ticks:  0---2---4-5-6---|
 * ```
 */
export function silences<B extends TickBatch>(
  window: Window | undefined,
  windows: readonly OneShotWindow[] | undefined,
): MonoTypeOperatorFunction<B> {
  return !window && !windows ? identity : silence(silenceTest(window, windows));
}

/**
 * Whether {@link silences}`(window, windows)` drops a tick at `offset` (ms of the entry's clock): for a reader that
 * asks at an instant, as svc-server's statistics say whether an entry is in a gap.
 */
export function silenceTest(
  window: Window | undefined,
  windows: readonly OneShotWindow[] | undefined,
): (offset: number) => boolean {
  const inGap = window ? recurring('silences', window) : never;
  const inWindow = windows ? oneShot('silences', windows) : never;
  return (offset) => inGap(offset) || inWindow(offset);
}

const never = () => false;

/** `operator` names the caller in what a wrong argument throws. */
function recurring(operator: string, window: Window): (offset: number) => boolean {
  checkWindow(operator, 'window', window);
  return inTailOf(window);
}

function oneShot(operator: string, windows: readonly OneShotWindow[]): (offset: number) => boolean {
  checkList(operator, 'windows', windows);
  windows.forEach((window, i) => {
    check(operator, `windows[${i}]`, window, OBJECT);
    check(operator, `windows[${i}].at`, window.at, NON_NEGATIVE);
    check(operator, `windows[${i}].for`, window.for, POSITIVE);
  });
  return inAnyWindow(windows);
}

/** Drops the ticks whose offset from the entry start is `silent`, and the batches left empty. */
function silence<B extends TickBatch>(silent: (offset: number) => boolean): MonoTypeOperatorFunction<B> {
  return pipe(
    map((batch: B) => {
      let kept: number[] | undefined;
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size, offset } = batch;
      for (let i = 0; i < size; i++) {
        const dropped = silent(offset[i]!);
        if (dropped && !kept) kept = Array.from({ length: i }, (_, j) => j);
        else if (!dropped && kept) kept.push(i);
      }
      return kept ? selectTicks(batch, kept) : batch;
    }),
    filter((batch) => batch.size > 0),
  );
}
