import {
  Observable,
  asyncScheduler,
  distinctUntilChanged,
  map,
  of,
  switchMap,
  type MonoTypeOperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { selectTicks, type SampleBatch, type TickBatch } from './model/batch.js';
import { longTimer } from './long-timer.js';
import { guarded } from './internal/guarded.js';
import {
  check,
  checkOptional,
  FUNCTION,
  NON_NEGATIVE,
  SCHEDULER,
  OBSERVABLE,
  OBJECT,
  type Rule,
} from './internal/arguments.js';

export interface GateOptions<B extends TickBatch> {
  /** How long (ms) the condition must hold before the gate opens; default 0. */
  readonly open?: number;
  /** How long (ms) the condition must fail before the gate closes; default 0. */
  readonly close?: number;
  /** Makes the one last tick passed after a close from the first batch that arrives closed (see {@link snapTo}). */
  readonly snap?: (batch: B) => B;
  readonly scheduler?: SchedulerLike;
  /** Told each time the gate opens (true) or closes (false), at the scheduler time it does. */
  readonly onEdge?: (open: boolean) => void;
}

/** A reading of a gate's condition that says since when (scheduler time) it holds or fails. */
export interface Reading {
  readonly holds: boolean;
  readonly since: number;
}

/**
 * Passes batches only while the gate is open. `condition` says whether the watched entry's
 * current value satisfies the comparison; the gate opens once it has held for `open` ms and
 * closes once it has failed for `close` ms (scheduler time), counted from when a boolean arrives,
 * or from a {@link Reading}'s `since` (the scheduled time of the watched tick, which a wake-up may
 * deliver late). A flip back within the delay cancels the pending edge. The gate is closed until the condition first holds, and keeps its state when
 * `condition` completes. A batch is judged by the state when it arrives, an edge due at that very
 * instant included, whichever of the two the scheduler runs first (so a backfill on virtual time
 * and a run on real time agree to the millisecond). A value of `condition` that arrives at that
 * instant with no delay to run is not ordered with the batch: the batch sees the state before or
 * after it, as the scheduler runs them (docs/timing.md, while gates). With `snap`, the first
 * batch that arrives after a close gives one last tick (its first, remade by `snap`). A throw in
 * `snap` or `onEdge` errors the stream. Each subscription has its own gate and watches `condition` anew.
 *
 * ```
 * condition: f-t-------f-----t--f---|
 * ticks:     a-b-c-d-e-f-g-h-i-j-k-l-m-|
 *            gate(condition, { open: 2 ticks, close: 2 ticks, snap })
 * ticks:     ------d-e-f-g-S-----------|   S: h's slot, snapped; t..f shorter than `open` never opens
 * ```
 */
export function gate<B extends TickBatch>(
  condition: Observable<boolean | Reading>,
  options: GateOptions<B> = {},
): MonoTypeOperatorFunction<B> {
  check('gate', 'condition', condition, OBSERVABLE);
  check('gate', 'options', options, OBJECT);
  const { open: openDelay = 0, close: closeDelay = 0, snap, scheduler = asyncScheduler, onEdge } = options;
  check('gate', 'open', openDelay, NON_NEGATIVE);
  check('gate', 'close', closeDelay, NON_NEGATIVE);
  check('gate', 'scheduler', scheduler, SCHEDULER);
  checkOptional('gate', 'snap', snap, FUNCTION);
  checkOptional('gate', 'onEdge', onEdge, FUNCTION);
  return (source) =>
    new Observable<B>((subscriber) => {
      let open = false;
      let snapDue = false;
      // The edge a delay is running for, and when it is due: a batch at that instant sees it made.
      let pending: { readonly open: boolean; readonly at: number } | undefined;
      const turn = (next: boolean) => {
        pending = undefined;
        if (next === open) return;
        open = next;
        snapDue = !open && snap !== undefined;
        onEdge?.(open);
      };
      const edges = condition
        .pipe(
          map((reading) => {
            if (typeof reading === 'boolean') return { holds: reading, since: scheduler.now() };
            // Anything else would read as a condition that fails: a gate shut without a word.
            check('gate', 'each value of condition', reading, READING);
            return reading;
          }),
          distinctUntilChanged((previous, next) => previous.holds === next.holds),
          switchMap(({ holds, since }) => {
            const delay = holds ? openDelay : closeDelay;
            if (delay === 0) {
              pending = undefined;
              return of(holds);
            }
            pending = { open: holds, at: since + delay };
            return longTimer(pending.at - scheduler.now(), scheduler).pipe(map(() => holds));
          }),
        )
        // `turn` runs the caller's `onEdge`, and a batch's handler its `snap`: what they throw goes down the stream.
        .subscribe({ next: guarded(subscriber, turn), error: (error: unknown) => subscriber.error(error) });
      const ticks = source.subscribe({
        next: guarded(subscriber, (batch: B) => {
          if (pending && scheduler.now() >= pending.at) turn(pending.open);
          if (open) subscriber.next(batch);
          else if (snapDue) {
            snapDue = false;
            subscriber.next(snap!(batch));
          }
        }),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        edges.unsubscribe();
        ticks.unsubscribe();
      };
    });
}

/** What a condition may say besides a boolean. */
const READING: Rule = {
  type: 'object',
  test: (reading: Reading) => typeof reading.holds === 'boolean' && Number.isFinite(reading.since),
  expected: 'a boolean or a Reading {holds: boolean, since: scheduler time}',
};

/** A `snap` for {@link gate}: the batch's first tick, carrying `value`. */
export function snapTo<B extends SampleBatch>(value: number): (batch: B) => B {
  return (batch) => ({ ...selectTicks(batch, [0]), value: Float64Array.of(value) });
}
