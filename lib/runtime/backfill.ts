/**
 * A backfill: the entries of a file run together (file-run.ts) on virtual time, so the events of
 * each entry's whole `duration` are produced as fast as the sinks take them, with the timestamps a
 * real-time run started now would write (`start_time: -24h` backfills the last day).
 */
import { liveScheduler } from './live-scheduler.js';
import type { SchedulerLike } from 'rxjs';
import type { Entry } from '../config/types.js';
import { BackfillScheduler } from './backfill-scheduler.js';
import { startEntries, type FileRun, type FileRunOptions } from './file-run.js';
import { anchorOf } from '../language/start-time.js';
import { formatStartTime } from '../compile/format.js';
import { formatDuration } from '../format.js';

/**
 * How far ahead of the virtual clock a timer emits slots: a wake-up per slot would cost more than
 * the slot, and emitting early changes nothing a slot's scheduled time decides (timestamps,
 * windows, when an `after` entry starts). Batches stay bounded by the timer's own limits.
 */
export const AHEAD_MS = 60_000;

export interface BackfillOptions
  extends Omit<FileRunOptions, 'scheduler' | 'sinkScheduler' | 'onBackpressure' | 'ahead'> {
  /** Real time: where the virtual clock starts, and the sinks' own timers. Default: liveScheduler. */
  readonly scheduler?: SchedulerLike;
  /**
   * The virtual clock to run on, made by a caller whose hooks read the time or that fixes the start (a preview);
   * default: one starting at `scheduler`'s now.
   */
  readonly clock?: BackfillScheduler;
}

export interface Backfill extends FileRun {
  /** The virtual clock the entries run on: `now()` is how far the backfill got. */
  readonly clock: SchedulerLike;
  /** Where the virtual clock started: the real time the backfill was started at. */
  readonly start: number;
  /**
   * The virtual instant an entry that has ended ended at: the end of its duration, or now when it
   * was stopped before (or never started). Its sink's flush takes real time, while the clock moves
   * on with the other entries.
   */
  endedAt(id: string): number;
}

/** The ids of the entries without a finite `duration`: a backfill of them would never end. */
export function unboundedEntries(entries: readonly Entry[]): string[] {
  return entries
    .filter((entry) => entry.duration === undefined || !Number.isFinite(entry.duration))
    .map((entry) => entry.id);
}

/** Why `entries` cannot be backfilled, naming the entries without a finite `duration`; undefined when they can. */
export function backfillRefusal(entries: readonly Entry[]): string | undefined {
  const unbounded = unboundedEntries(entries);
  return unbounded.length > 0
    ? `a backfill needs a finite duration on every entry; none on: ${unbounded.join(', ')}`
    : undefined;
}

const UNITS: readonly (readonly [string, number])[] = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * A warning when a backfill started at `now` (real time) would stamp `entry`, one of `entries` (each with a finite
 * duration), past now:
 * from `start_time: now`, the default, it writes the entry's duration into the future, which a TSDB then
 * holds as its newest data and a log store refuses. (An `after` entry is counted from the run's start.)
 */
export function futureWarnings(entry: Entry, now: number, entries: readonly Entry[]): string[] {
  const phase = entry.phase_offset ?? 0;
  const duration = entry.duration!;
  const ahead = anchorOf(entry.start_time)(now + phase) + duration - now;
  if (ahead <= 0) return [];
  // The entries of a clock group share one start_time: the one that fills the past for all of them.
  const group = entries.filter(
    (other) => other === entry || (entry.clock_group && other.clock_group === entry.clock_group),
  );
  const lead = Math.max(...group.map((other) => (other.phase_offset ?? 0) + other.duration!));
  // In start_time's own syntax (one number, one unit), so it can be pasted into the file.
  const [unit, ms] = UNITS.find(([, ms]) => lead % ms === 0) ?? ['s', 1000];
  const fill = `-${lead / ms}${unit}`;
  return [
    `the backfill writes timestamps up to ${formatDuration(ahead)} past now (start_time ${formatStartTime(entry.start_time)}, duration ${formatDuration(duration)}): start_time: ${fill} (or earlier) fills the past up to now`,
  ];
}

/**
 * Starts a backfill of `entries` (compiled: packs expanded, clock groups assigned). Throws when an
 * entry has no finite `duration`, or (as {@link startEntries}) when one cannot be built. `done`
 * settles once every entry ended; it rejects only when an action of the clock throws.
 */
export function backfillEntries(entries: readonly Entry[], options: BackfillOptions = {}): Backfill {
  const refusal = backfillRefusal(entries);
  if (refusal) throw new Error(refusal);
  const real = options.scheduler ?? liveScheduler;
  const clock = options.clock ?? new BackfillScheduler(real.now());
  const start = clock.now();
  const fileRun = startEntries(entries, {
    ...options,
    scheduler: clock,
    sinkScheduler: real,
    onBackpressure: (held) => void clock.holdWhile(held),
    ahead: AHEAD_MS,
  });
  const driven = clock.run(fileRun.done);
  return {
    ...fileRun,
    clock,
    start,
    endedAt(id) {
      const started = fileRun.startedAt(id);
      const duration = entries.find((entry) => entry.id === id)?.duration ?? Infinity;
      return Math.min(clock.now(), started === undefined ? Infinity : started + duration);
    },
    done: driven.then(() => fileRun.done),
  };
}
