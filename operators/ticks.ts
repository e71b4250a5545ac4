import {
  Observable,
  asyncScheduler,
  type OperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import type { TickBatch } from './model/batch.js';
import { guarded } from './internal/guarded.js';
import { longTimer, MAX_TIMER_DELAY } from './long-timer.js';
import { RateSchedule } from './model/rate-schedule.js';
import {
  check,
  checkIncreasing,
  checkOptional,
  FINITE,
  FUNCTION,
  NON_NEGATIVE,
  POSITIVE_COUNT,
  SCHEDULER,
  OBSERVABLE,
  OBJECT,
  wholeNumberBelow,
} from './internal/arguments.js';

export interface TicksOptions {
  scheduler?: SchedulerLike;
  /** Run time in ms from the entry start: no tick at or after it, and the stream completes then. */
  duration?: number;
  /**
   * When the entry was due to start, in scheduler time; default: when its first schedule arrives. Slots and the
   * duration count from it, so a start that came late (a busy event loop, a timer's own delay) is caught up
   * rather than shifting every slot and timestamp of the entry.
   */
  start?: number;
  /**
   * Epoch ms written on tick 0, given the entry start in scheduler time. Default: the start itself. Anything but a
   * number within a Date's range (±8.64e15) errors the stream.
   */
  anchor?: (start: number) => number;
  /** Most ticks in one batch. */
  maxBatch?: number;
  /** Most batches emitted in one wake-up while catching up, before yielding to the event loop. */
  maxBatchesPerWake?: number;
  /** While the latest value is true nothing is emitted; ticks that fell due meanwhile are caught up. */
  paused?: Observable<boolean>;
  /**
   * How far ahead of the clock (ms) a wake-up emits slots; default 0. On virtual time nothing
   * waits for a slot's instant, so one wake-up may carry the slots of the next `ahead` ms (a
   * backfill). Slots are never emitted late for it: whatever reads a tick's scheduled time (an
   * `after` trigger) can still wait for it.
   */
  ahead?: number;
  /** Emit only these slots (a shard's); default: every slot. */
  slots?: SlotPattern;
  /**
   * Called once, when the run ends at its duration behind a rate it could not keep, with the number of its slots
   * (the pattern's, with `slots`) due before the duration and never emitted: the shortfall dropped.
   */
  onShortfall?: (slots: number) => void;
}

/**
 * Slots n whose `n mod period` is one of `residues` (ascending, each below `period`): the slots
 * of one shard of an entry whose label sets repeat every `period` ticks (lib/runtime/signals.ts).
 */
export interface SlotPattern {
  readonly period: number;
  readonly residues: readonly number[];
}

/**
 * The timer of an entry: turns rate schedules into batches of due ticks.
 *
 * The entry starts when the first schedule arrives (delay that arrival for a phase offset
 * or an `after` trigger), or at `start` when given. Slot n is due at the absolute deadline
 * `start + timeOf(n)`: each wake-up emits, as one batch, every tick due by then, so late
 * wake-ups are caught up and no drift accumulates. Timer delays are whole milliseconds, so at high rates a wake-up carries
 * many ticks. A later schedule replaces the current one from the moment it arrives. The run
 * ends at its duration whatever happens, even while paused; a source that completes before its first
 * schedule ends it then (the entry never started), one that completes after it changes nothing.
 *
 * ```
 * schedules: a---------------------
 *            ticks({ duration: 40 }), a = 100/s (one tick every 10 ms)
 * batches:   0-(1)-(2)-(3)-|            each batch holds the ticks due at that frame
 * ```
 *
 * With `slots`, only those slots are emitted, at their own deadlines (the others are skipped
 * without a cost each); batches hold up to `maxBatch` emitted slots.
 */
export function ticks(options: TicksOptions = {}): OperatorFunction<RateSchedule, TickBatch> {
  check('ticks', 'options', options, OBJECT);
  checkOptional('ticks', 'scheduler', options.scheduler, SCHEDULER);
  checkOptional('ticks', 'duration', options.duration, DURATION);
  checkOptional('ticks', 'start', options.start, FINITE);
  checkOptional('ticks', 'anchor', options.anchor, FUNCTION);
  checkOptional('ticks', 'maxBatch', options.maxBatch, POSITIVE_COUNT);
  checkOptional('ticks', 'maxBatchesPerWake', options.maxBatchesPerWake, POSITIVE_COUNT);
  checkOptional('ticks', 'paused', options.paused, OBSERVABLE);
  checkOptional('ticks', 'ahead', options.ahead, NON_NEGATIVE);
  checkOptional('ticks', 'onShortfall', options.onShortfall, FUNCTION);
  if (options.slots !== undefined) checkSlots(options.slots);
  const {
    scheduler = asyncScheduler,
    duration = Infinity,
    start: dueStart,
    anchor: anchorOf = (start: number) => start,
    maxBatch = 4096,
    maxBatchesPerWake = 8,
    paused: paused$,
    ahead = 0,
    slots = EVERY_SLOT,
    onShortfall,
  } = options;
  const { period, residues } = slots;
  const every = slots === EVERY_SLOT;
  const firstFrom = every ? EVERY_SLOT_FIRST : firstResidues(slots);
  /** The first slot of the pattern at or after `n`; Infinity when the pattern has none. */
  const slotFrom = (n: number): number => {
    if (residues.length === 0) return Infinity;
    const cycle = Math.floor(n / period);
    const j = firstFrom[n - cycle * period]!;
    return j < residues.length ? cycle * period + residues[j]! : (cycle + 1) * period + residues[0]!;
  };
  /** How many slots of the pattern come before `n`. */
  const slotsBelow = (n: number): number => {
    const cycle = Math.floor(n / period);
    return cycle * residues.length + firstFrom[n - cycle * period]!;
  };

  // The source is a parameter of `run` that none of its closures reads: a running timer does not hold the
  // upstream observables in memory.
  const run = (source: Observable<RateSchedule>, subscriber: Subscriber<TickBatch>) => {
    let schedule: RateSchedule | undefined;
    let start = 0;
    let anchor = 0;
    let next = 0;
    let endSlot = 0;
    let paused = false;
    // The timer's action: scheduled while `pending` is set, kept after it ran to be rescheduled in place, so a
    // scheduler that reuses its actions (the live one, `asyncScheduler`) makes none per wake-up.
    let action: SchedulerAction<void> | undefined;
    let pending: Subscription | undefined;
    // Ends the run at its duration even while paused by a destination that never frees up.
    let deadline: Subscription | undefined;

    const elapsed = () => scheduler.now() - start;

    /** Ends the run at its duration, telling the slots due before it that were never emitted, if any. */
    const end = () => {
      const missed = slotsBelow(endSlot) - slotsBelow(next);
      if (missed > 0) onShortfall?.(missed);
      subscriber.complete();
    };

    /**
     * Emits the slots due by `dueBy` ms (the pattern's, with `slots`), at most `maxBatch`; whether more may
     * be due.
     */
    const emitDue = (dueBy: number): boolean => {
      const current = schedule!;
      const due = Math.min(current.slotsDueBy(dueBy), endSlot);
      const index = new Float64Array(Math.min(maxBatch, Math.max(0, due - next)));
      let size = 0;
      if (every) {
        for (; size < index.length; size++) index[size] = next + size;
      } else if (residues.length > 0) {
        let cycle = Math.floor(next / period);
        let j = firstFrom[next - cycle * period]!;
        for (;;) {
          if (j === residues.length) (j = 0), cycle++;
          const n = cycle * period + residues[j++]!;
          if (n >= due || size === index.length) break;
          index[size++] = n;
        }
      }
      // Past the last slot emitted when the batch is full, else past every slot due.
      next = size > 0 && size === index.length ? index[size - 1]! + 1 : Math.max(next, due);
      if (size === 0) return false;
      const offset = new Float64Array(size);
      for (let i = 0; i < size; i++) offset[i] = current.timeOf(index[i]!);
      subscriber.next({
        size,
        anchor,
        start,
        index: size === index.length ? index : index.subarray(0, size),
        offset,
      });
      return size === maxBatch;
    };

    /** Runs `wake` in `delay` ms, on the timer's action when it has one. */
    const wakeIn = (delay: number) => {
      if (!action) {
        pending = scheduler.schedule(timer, delay);
        return;
      }
      const rescheduled = action.schedule(undefined, delay);
      // A scheduler that makes a new action instead (VirtualAction) adds it to the old one: detached, the new one
      // does not hold every action before it through a long virtual run.
      if (rescheduled !== action) action.remove(rescheduled);
      pending = rescheduled;
    };

    function timer(this: SchedulerAction<void>): void {
      action = this;
      pending = undefined;
      wake();
    }

    // Slot counting throws where a schedule cannot be counted exactly: the error goes down the stream.
    // Whoever calls it (its own timer, the deadline, a new schedule), a wake replaces the one scheduled:
    // left scheduled, that one would outlive the run.
    const wake = guarded(subscriber, () => {
      if (pending) {
        pending.unsubscribe();
        pending = action = undefined;
      }
      if (paused || subscriber.closed) return;
      const now = elapsed();
      let behind = emitDue(now + ahead);
      for (let batches = 1; behind && batches < maxBatchesPerWake && !paused && !subscriber.closed; batches++) {
        behind = emitDue(now + ahead);
      }
      if (subscriber.closed) return;
      if (next >= endSlot || now >= duration) {
        // Every slot before the end was emitted, or the run time is over and a shortfall
        // the rate could not sustain is dropped: either way the entry ends at its duration,
        // when the deadline timer (set at the first schedule) wakes it, if not now.
        if (now >= duration) end();
        return;
      }
      if (paused) return;
      const upcoming = slotFrom(next);
      // No slot of its own is left to wait for (a shard without series): the deadline ends the run.
      if (!behind && upcoming === Infinity) return;
      const delay = behind ? 0 : Math.min(Math.ceil(schedule!.timeOf(upcoming) - now), MAX_TIMER_DELAY);
      wakeIn(Math.max(0, delay));
    });

    const wakeSoon = () => {
      if (!pending && schedule && !subscriber.closed) wakeIn(0);
    };

    const pauses = paused$?.subscribe({
      next: (value) => {
        paused = value;
        if (!paused) wakeSoon();
      },
      error: (err) => subscriber.error(err),
    });

    const schedules = source.subscribe({
      next: guarded(subscriber, (value: RateSchedule) => {
        check('ticks', 'each value of its source', value, SCHEDULE);
        if (!schedule) {
          start = dueStart ?? scheduler.now();
          anchor = anchorOf(start);
          check('ticks', 'what anchor returns', anchor, EPOCH_MS);
          // Ending while paused runs the caller's `onShortfall` here, outside `wake`: what it throws goes down the stream.
          if (duration !== Infinity)
            deadline = longTimer(start + duration - scheduler.now(), scheduler).subscribe(
              guarded(subscriber, () => (paused ? end() : wake())),
            );
        } else {
          emitDue(elapsed());
          next = value.slotsBefore(elapsed());
        }
        schedule = value;
        endSlot = value.slotsBefore(duration);
        wake();
      }),
      error: (err) => subscriber.error(err),
      // Without a schedule the entry never starts: no duration runs out to end the stream.
      complete: () => {
        if (!schedule) subscriber.complete();
      },
    });

    return () => {
      pending?.unsubscribe();
      deadline?.unsubscribe();
      pauses?.unsubscribe();
      schedules.unsubscribe();
    };
  };
  return (source) => new Observable<TickBatch>((subscriber) => run(source, subscriber));
}

/** A run time: ms from the start, or Infinity for none. */
const DURATION = {
  type: 'number',
  test: (ms: number) => ms >= 0,
  expected: 'a number of ms ≥ 0 (Infinity: no end)',
} as const;
/** What `anchor` gives: a time every event is stamped from, which NaN or a number past a Date's range is not. */
const EPOCH_MS = {
  type: 'number',
  test: (ms: number) => Math.abs(ms) <= 8.64e15,
  expected: 'epoch ms, a number from -8.64e15 to 8.64e15',
} as const;
/** What the timer reads: a schedule, not a rate. */
const SCHEDULE = {
  type: 'object',
  test: (value: object) => value instanceof RateSchedule,
  expected: 'a RateSchedule (of(RateSchedule.constant(rate)))',
} as const;

/** Throws unless `slots` is a pattern: a period ≥ 1 and ascending residues below it (none: a shard without slots). */
function checkSlots(slots: SlotPattern): void {
  check('ticks', 'slots', slots, OBJECT);
  check('ticks', 'slots.period', slots.period, POSITIVE_COUNT);
  checkIncreasing('ticks', 'slots.residues', slots.residues, wholeNumberBelow(slots.period, 'slots.period'));
}

/** Every slot: the default pattern. */
const EVERY_SLOT: SlotPattern = { period: 1, residues: [0] };

/**
 * For each remainder r modulo the pattern's period, the place in `residues` of the first one at or after r (its
 * length when none is).
 */
function firstResidues({ period, residues }: SlotPattern): Uint32Array {
  const firstFrom = new Uint32Array(period);
  for (let r = period - 1, j = residues.length; r >= 0; r--) {
    while (j > 0 && residues[j - 1]! >= r) j--;
    firstFrom[r] = j;
  }
  return firstFrom;
}

/** {@link firstResidues} of {@link EVERY_SLOT}, shared by every timer that emits every slot. */
const EVERY_SLOT_FIRST = firstResidues(EVERY_SLOT);
