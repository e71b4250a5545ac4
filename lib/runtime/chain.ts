import { delay, identity, of, takeUntil, type MonoTypeOperatorFunction, type Observable, type Observer, type SchedulerLike } from 'rxjs';
import { RateSchedule } from '../../operators/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { bursts } from '../../operators/bursts.js';
import { generate } from '../../operators/generate.js';
import { jitter } from '../../operators/jitter.js';
import { gaps } from '../../operators/gaps.js';
import { labels } from '../../operators/labels.js';
import { encode } from '../../operators/encode.js';
import { deliver, type Delivery, type Sink } from '../../operators/deliver.js';
import type { SampleBatch } from '../../operators/batch.js';
import type { Entry, StartTime } from '../config/types.js';
import { valueGenerator } from '../generators/value.js';
import { createMetricEncoder } from '../encoders/index.js';

export interface ChainDeps {
  readonly scheduler: SchedulerLike;
  readonly sink: Sink;
  /** Emits once to stop the entry: it stops ticking, delivers what it has, flushes, completes. */
  readonly stop: Observable<unknown>;
  /** Fed `true`/`false` as the sink holds the timer back; the same subject pauses the timer. */
  readonly backpressure: Observable<boolean> & Observer<boolean>;
}

/** Unsupported here until the signal's generator exists: said plainly rather than faked. */
export class UnsupportedEntryError extends Error {}

/**
 * The observable chain of one entry: schedule → timer → generator map → jitter → gap filter
 * → label injection → encoder map → sink subscriber. It emits one {@link Delivery} per
 * chunk written and completes after the sink flushed.
 */
export function entryChain(entry: Entry, deps: ChainDeps): Observable<Delivery> {
  const { scheduler, sink, stop, backpressure } = deps;
  if (entry.signal_type !== 'metrics' || !entry.generator || !entry.name) {
    throw new UnsupportedEntryError(`${entry.id}: signal_type ${entry.signal_type} is not supported in this version yet`);
  }
  if (entry.after) throw new UnsupportedEntryError(`${entry.id}: after triggers are not supported in this version yet`);

  const schedule = of(RateSchedule.constant(entry.rate)).pipe(
    optional(entry.phase_offset !== undefined && delay<RateSchedule>(entry.phase_offset, scheduler)),
    optional(entry.bursts && bursts(entry.bursts)),
  );
  return schedule.pipe(
    ticks({ scheduler, duration: entry.duration, anchor: anchorOf(entry.start_time), paused: backpressure }),
    takeUntil(stop),
    generate(valueGenerator(entry.generator)),
    optional(entry.jitter !== undefined && jitter<SampleBatch>(entry.jitter, entry.jitter_seed)),
    optional(entry.gaps && gaps<SampleBatch>(entry.gaps)),
    labels<SampleBatch>({ static: entry.labels, dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes }),
    encode(createMetricEncoder(entry.encoder, { name: entry.name })),
    deliver(sink, { onError: entry.on_sink_error, backpressure }),
  );
}

/** An operator the entry asks for, or the identity when it does not. */
function optional<T>(operator: MonoTypeOperatorFunction<T> | false | undefined): MonoTypeOperatorFunction<T> {
  return operator || identity;
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
