/**
 * Runs the entries of one file together, their starts wired as streams:
 *
 *   file start ──► clock of each group (shared, replayed) ──due at file start + phase_offset──► entry start
 *   values of the watched entry (after jitter) ──first tick that crosses──► due at its scheduled time + delay ──► entry start
 *   values of the watched entry (after jitter) ──does its latest value hold, since which tick?──► the `while` entry's gate
 *   spans of a traces entry ──► the exemplars and log records of the entries naming it (`from`), its span metrics
 *
 * The file's start is one instant, read from the scheduler once every entry is subscribed (or once `startAt`
 * gives it, with the timeline its timestamps are written on). A
 * clock group's stream carries that instant (t0) and the timestamp its `start_time` gives t0; the
 * entries of a group write timestamps on that one timeline (reference + time since t0). An entry
 * without a group anchors its timestamps by its own `start_time` at its own start. An `after`
 * entry starts `delay` after the scheduled time of the watched entry's first tick whose value
 * satisfies the comparison; if the watched entry ends without one, it never starts (and ends).
 */
import { liveScheduler } from './live-scheduler.js';
import {
  ReplaySubject,
  Subject,
  filter,
  map,
  mergeMap,
  of,
  shareReplay,
  switchMap,
  take,
  withLatestFrom,
  type Observable,
} from 'rxjs';
import type { SampleBatch } from '../../operators/model/batch.js';
import type { SpanBatch } from '../../operators/model/span.js';
import type { Entry } from '../config/types.js';
import type { After, While } from '../language/fields.js';
import { runEntry, type EntryOutcome, type EntryRun, type RunEntryOptions } from './run-entry.js';
import { anchorOf, type Anchor } from '../language/start-time.js';
import { dueAt, type EntryStart } from './chain/start.js';
import type { SignalHooks } from './chain/signal.js';
import type { Shard } from '../../operators/labels.js';
import type { Reading } from '../../operators/gate.js';

export interface FileRunOptions extends Omit<RunEntryOptions, 'start' | 'hooks'> {
  /**
   * This process's shard of the file's series: series s of the entry at position p of the file is
   * emitted by shard (p + s) mod count, so entries of a single series spread over the shards too.
   * An entry naming a traces entry's spans (span metrics, exemplars, trace_context) takes that entry's
   * position: its series 0 runs where the spans are made.
   */
  readonly shard?: Shard;
  /** Taps into each entry's chain (scrape buffers); the runner adds its own `onValues` for triggers. */
  readonly hooks?: (entry: Entry) => SignalHooks | undefined;
  /**
   * Ids of entries of the file that no longer run (`--state` starts a file again less its deleted
   * entries): a `while` or a `from` may name one, and hears nothing from it, as from an entry that has
   * produced nothing yet: the gate stays closed, no exemplar or record names a span.
   */
  readonly gone?: ReadonlySet<string>;
  /**
   * When the file starts, and at which instant of the timeline its timestamps are written on: the worker
   * threads of one run start together at the main thread's instant (workers.ts), so that a series written by
   * one worker has the timestamps it would have had on any other. Default: at once, at the scheduler's time.
   */
  readonly startAt?: Observable<number>;
}

export interface FileRun {
  /** One per entry, in file order. */
  readonly runs: readonly EntryRun[];
  /** Settles once every entry ended; never rejects. */
  readonly done: Promise<EntryOutcome[]>;
  /** Scheduler time at which entry `id` started; undefined while it has not (or never did). */
  startedAt(id: string): number | undefined;
  /**
   * Scheduler time of the watched entry's tick that met entry `id`'s `after` condition; undefined while none did.
   * Between it and {@link startedAt} the entry waits out its `after.delay`.
   */
  triggeredAt(id: string): number | undefined;
  /** Stops every entry (also those still waiting to start); resolves as `done`. */
  stop(): Promise<EntryOutcome[]>;
}

/** A clock group's start reference: the file start t0 (on the timestamps' timeline, see `startAt`) and the timestamp written for it. */
interface Clock {
  readonly t0: number;
  readonly reference: number;
}

/** The traces entry whose spans `entry` names (`exemplars`, `trace_context`) or counts (span metrics), if any. */
function spansRef(entry: Entry): string | undefined {
  return entry.exemplars?.from ?? entry.trace_context?.from ?? entry.span_metrics_of?.from;
}

/**
 * The ids of the entries that run in step with the clock: gates judge ticks as they arrive, and exemplars, log records
 * and span metrics name the spans made by then, so an entry with a `while` gate or naming spans, and the entry it
 * watches or names, emit no slot ahead of the clock (on virtual time, a wake-up of the clock per slot).
 */
export function clockLinkedIds(entries: readonly Entry[]): ReadonlySet<string> {
  return new Set(
    entries.flatMap((entry) =>
      [entry.while?.ref, spansRef(entry)].flatMap((ref) => (ref === undefined ? [] : [entry.id, ref])),
    ),
  );
}

/**
 * Starts every entry of a file (packs expanded, clock groups assigned: lib/compile). Throws at
 * once, having stopped the entries already started, when one cannot be built.
 */
export function startEntries(entries: readonly Entry[], options: FileRunOptions = {}): FileRun {
  const scheduler = options.scheduler ?? liveScheduler;
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const gone = options.gone ?? new Set();
  for (const entry of entries) {
    for (const field of ['after', 'while'] as const) {
      const ref = entry[field]?.ref;
      // An `after` on a gone entry would wait for ever: the restore starts it without its trigger.
      if (ref !== undefined && !byId.has(ref) && !(field === 'while' && gone.has(ref)))
        throw new Error(`${entry.id}: ${field}.ref names no entry of the file: "${ref}"`);
    }
    for (const field of ['exemplars', 'trace_context'] as const) {
      const ref = entry[field]?.from;
      if (ref !== undefined && !gone.has(ref) && byId.get(ref)?.signal_type !== 'traces')
        throw new Error(`${entry.id}: ${field}.from names no traces entry of the file: "${ref}"`);
    }
  }

  const fileStart = new ReplaySubject<number>(1);
  // Piped as a plain observable: operators lifted on a subject make a subject each (AnonymousSubject), and
  // every operator of each entry's chain after them too, about 1 KiB an entry.
  const fileStarted = fileStart.asObservable();
  const clocks = new Map<string, Observable<Clock>>();
  const clockOf = (entry: Entry): Observable<Clock> | undefined => {
    const group = entry.clock_group;
    if (group === undefined) return undefined;
    let clock = clocks.get(group);
    if (!clock) {
      // The group's start_time is its members' (lib/compile checks they agree).
      const reference = anchorOf(entry.start_time);
      clocks.set(
        group,
        (clock = fileStarted.pipe(
          take(1),
          map((t0) => ({ t0, reference: reference(t0) })),
          shareReplay(1),
        )),
      );
    }
    return clock;
  };

  // Of every watched entry: its value batches, and when it started (scheduler time).
  const values = new Map<string, Subject<SampleBatch>>();
  const starts = new Map<string, ReplaySubject<number>>();
  for (const { after, while: gate } of entries) {
    for (const ref of [after?.ref, gate?.ref]) {
      if (ref !== undefined && !values.has(ref)) {
        values.set(ref, new Subject());
        starts.set(ref, new ReplaySubject(1));
      }
    }
  }
  // Of every traces entry whose spans others name: its span batches.
  const spans = new Map<string, Subject<SpanBatch>>();
  for (const entry of entries) {
    const ref = spansRef(entry);
    if (ref !== undefined && !spans.has(ref)) spans.set(ref, new Subject());
  }
  const clockLinked = clockLinkedIds(entries);
  const startedAt = new Map<string, number>();
  const triggeredAt = new Map<string, number>();
  // From the scheduler's time to the timeline the timestamps are written on (`startAt`'s).
  let shift = 0;

  const trigger = (id: string, after: After): Observable<number> => {
    const holds = after.op === '>' ? (v: number) => v > after.value : (v: number) => v < after.value;
    return values.get(after.ref)!.pipe(
      map((batch) => firstOffset(batch, holds)),
      filter((offset): offset is number => offset !== undefined),
      take(1),
      withLatestFrom(starts.get(after.ref)!),
      // Due `delay` after the crossing tick's scheduled time (not the wake-up that carried it).
      mergeMap(([offset, watchedStart]) => {
        triggeredAt.set(id, watchedStart + offset);
        return dueAt(watchedStart + offset + (after.delay ?? 0), scheduler);
      }),
    );
  };

  const startOf = (entry: Entry): Observable<EntryStart> => {
    const clock = clockOf(entry);
    // Due at the file start plus its phase offset (scheduler time), however long the entries before it took.
    const begin = entry.after
      ? trigger(entry.id, entry.after)
      : fileStarted.pipe(
          take(1),
          switchMap((t0) => dueAt(t0 - shift + (entry.phase_offset ?? 0), scheduler)),
        );
    const anchor: Observable<Anchor> = clock
      ? clock.pipe(
          map(
            (c): Anchor =>
              (start) =>
                c.reference + (start - c.t0),
          ),
        )
      : of(anchorOf(entry.start_time));
    return begin.pipe(
      take(1),
      // Its timer counts from the instant it was due (and calls the anchor with it): its tick 0, its timestamps
      // and what entries waiting for it count from are those of the schedule, not of a late wake-up.
      switchMap((at) =>
        anchor.pipe(
          take(1),
          map((stamp) => ({ at, anchor: startingAt(entry.id, stamp) })),
        ),
      ),
    );
  };
  // Made outside startOf: the anchor lives as long as the entry's timer, and a closure of startOf would hold
  // the start's observables with it.
  const startingAt =
    (id: string, stamp: Anchor): Anchor =>
    (start) => {
      startedAt.set(id, start);
      starts.get(id)?.next(start);
      return stamp(start + shift);
    };

  // Spans do not cross threads: an entry naming spans is placed on the shards as its traces entry is,
  // so its first series (its only one, often) runs where the spans are made.
  const positionOf = new Map(entries.map((entry, position) => [entry.id, position]));
  const shardPosition = (entry: Entry, position: number): number => {
    const ref = spansRef(entry);
    return (ref === undefined ? undefined : positionOf.get(ref)) ?? position;
  };

  const runs: EntryRun[] = [];
  try {
    for (const [position, entry] of entries.entries()) {
      const own = options.hooks?.(entry);
      const watched = values.get(entry.id);
      const onValues = watched
        ? (batch: SampleBatch) => {
            own?.onValues?.(batch);
            watched.next(batch);
          }
        : own?.onValues;
      const shard = options.shard && entryShard(options.shard, shardPosition(entry, position));
      const condition = entry.while && holding(values.get(entry.while.ref)!, starts.get(entry.while.ref)!, entry.while);
      const ahead = clockLinked.has(entry.id) ? undefined : options.ahead;
      const named = spans.get(entry.id);
      const onSpans = named
        ? (batch: SpanBatch) => {
            own?.onSpans?.(batch);
            named.next(batch);
          }
        : own?.onSpans;
      const ref = spansRef(entry);
      const run = runEntry(entry, {
        ...options,
        ahead,
        hooks: { ...own, ...(onValues && { onValues }), ...(onSpans && { onSpans }) },
        start: startOf(entry),
        condition,
        spans: ref === undefined ? undefined : spans.get(ref),
        shard,
      });
      runs.push(run);
      // An entry that ended stops being watched: entries still waiting for it never start.
      if (watched) void run.done.then(() => watched.complete());
    }
  } catch (error) {
    runs.forEach((run) => void run.stop());
    throw error;
  }
  // Every entry is subscribed: the file starts now, or when it is told to. A clock group's reference is on the
  // timestamps' timeline, as the instants its members' anchors are given.
  const begin = (at?: number): void => {
    const now = scheduler.now();
    shift = (at ?? now) - now;
    fileStart.next(now + shift);
  };
  if (options.startAt) options.startAt.pipe(take(1)).subscribe(begin);
  else begin();

  const done = Promise.all(runs.map((run) => run.done));
  return {
    runs,
    done,
    startedAt: (id) => startedAt.get(id),
    triggeredAt: (id) => triggeredAt.get(id),
    stop() {
      runs.forEach((run) => void run.stop());
      return done;
    },
  };
}

/**
 * The shard of the entry at `position`'s own series (numbered from 0) that gives the file's series (p + s)
 * mod count to `shard`.
 */
function entryShard({ index, count }: Shard, position: number): Shard {
  return { count, index: (((index - position) % count) + count) % count };
}

/**
 * Whether the watched entry's latest value satisfies the `while` comparison, at each batch of its values, since the
 * scheduled time of the first tick of the batch's last run of ticks that agree (`started`: the watched entry's
 * start), however late the wake-up that carried them.
 */
function holding(values: Observable<SampleBatch>, started: Observable<number>, gate: While): Observable<Reading> {
  const holds = gate.op === '>' ? (v: number) => v > gate.value : (v: number) => v < gate.value;
  return values.pipe(
    filter((batch) => batch.size > 0),
    withLatestFrom(started),
    map(([batch, start]) => {
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size, value, offset } = batch;
      let first = size - 1;
      const latest = holds(value[first]!);
      while (first > 0 && holds(value[first - 1]!) === latest) first--;
      return { holds: latest, since: start + offset[first]! };
    }),
  );
}

/** Scheduled offset of the first tick of `batch` whose value holds, if any. */
function firstOffset(batch: SampleBatch, holds: (value: number) => boolean): number | undefined {
  const { size, value, offset } = batch;
  for (let i = 0; i < size; i++) if (holds(value[i]!)) return offset[i];
  return undefined;
}
