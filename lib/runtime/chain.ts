import { takeUntil, type Observable, type Observer, type SchedulerLike } from 'rxjs';
import { ticks } from '../../operators/ticks.js';
import { deliver, type Delivery, type Sink } from '../../operators/deliver.js';
import type { Entry, StartTime } from '../config/types.js';
import { entrySchedule } from './schedule.js';
import { signalPipeline, UnsupportedEntryError, type SignalHooks } from './signals.js';

export { UnsupportedEntryError };

export interface ChainDeps extends SignalHooks {
  readonly scheduler: SchedulerLike;
  readonly sink: Sink;
  /** Emits once to stop the entry: it stops ticking, delivers what it has, flushes, completes. */
  readonly stop: Observable<unknown>;
  /** Fed `true`/`false` as the sink holds the timer back; the same subject pauses the timer. */
  readonly backpressure: Observable<boolean> & Observer<boolean>;
}

/**
 * The observable chain of one entry: schedule → timer → the signal's pipeline (generator map,
 * jitter, gap filter, label injection, encoder map) → sink subscriber. It emits one
 * {@link Delivery} per chunk written and completes after the sink flushed.
 */
export function entryChain(entry: Entry, deps: ChainDeps): Observable<Delivery> {
  const { scheduler, sink, stop, backpressure } = deps;
  if (entry.after) throw new UnsupportedEntryError(`${entry.id}: after triggers are not supported in this version yet`);
  const pipeline = signalPipeline(entry, deps);
  return entrySchedule(entry, scheduler).pipe(
    ticks({ scheduler, duration: entry.duration, anchor: anchorOf(entry.start_time), paused: backpressure }),
    takeUntil(stop),
    pipeline,
    deliver(sink, { onError: entry.on_sink_error, backpressure }),
  );
}

/** The timestamp written on tick 0, given the entry's start time read from its scheduler. */
export function anchorOf(startTime: StartTime): (start: number) => number {
  switch (startTime.kind) {
    case 'now':
      return (start) => start;
    case 'absolute':
      return () => startTime.epochMs;
    case 'relative':
      return (start) => start + startTime.offsetMs;
  }
}
