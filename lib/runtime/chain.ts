import { switchMap, take, takeUntil, type Observable, type Observer, type SchedulerLike } from 'rxjs';
import { ticks } from '../../operators/ticks.js';
import { deliver, type Delivery, type Sink } from '../../operators/deliver.js';
import { samplesPerEvent } from '../language/limits.js';
import type { Entry } from '../config/types.js';
import { entrySchedule, entryStart, type Anchor } from './schedule.js';
import { shardSlots, signalPipeline, UnsupportedEntryError, type PipelineOptions } from './signals.js';

/** Samples and observations one batch of ticks may carry (a tick more than that goes alone). */
const BATCH_COST = 4096;

export interface ChainDeps extends PipelineOptions {
  readonly scheduler: SchedulerLike;
  readonly sink: Sink;
  /** Emits once to stop the entry: it stops ticking, delivers what it has, flushes, completes. */
  readonly stop: Observable<unknown>;
  /** Fed `true`/`false` as the sink holds the timer back; the same subject pauses the timer. */
  readonly backpressure: Observable<boolean> & Observer<boolean>;
  /**
   * Emits once, when the entry starts, the anchor of its timestamps; completing without a value
   * means it never starts (an `after` trigger that never fired). Default: {@link entryStart}.
   * An entry with `after` needs it: only the entries run together can fire it (file-run.ts).
   */
  readonly start?: Observable<Anchor>;
  /** How far ahead of the clock the timer may emit slots (ms; `ticks`' `ahead`): on virtual time only. */
  readonly ahead?: number;
}

/**
 * Ticks per batch: what one batch costs (observations drawn, samples written) stays bounded, so
 * a catch-up after backpressure allocates and blocks no more than a batch of plain metrics.
 */
function ticksPerBatch(entry: Entry): number {
  return Math.max(1, Math.floor(BATCH_COST / (samplesPerEvent(entry) + (entry.observations_per_tick ?? 0))));
}

/**
 * The observable chain of one entry: start → schedule → timer → the signal's pipeline (generator map,
 * jitter, gap filter, label injection, encoder map) → sink subscriber. It emits one
 * {@link Delivery} per chunk written and completes after the sink flushed.
 */
export function entryChain(entry: Entry, deps: ChainDeps): Observable<Delivery> {
  const { scheduler, sink, stop, backpressure } = deps;
  if (entry.after && !deps.start) {
    throw new UnsupportedEntryError(
      `${entry.id}: an after trigger watches another entry; run the entries of its file together (startEntries)`,
    );
  }
  // A shard's timer emits only the shard's slots when it can tell them (signals.ts).
  const slots = shardSlots(entry, deps);
  const pipeline = signalPipeline(entry, { ...deps, slots });
  return (deps.start ?? entryStart(entry, scheduler)).pipe(
    take(1),
    switchMap((anchor) =>
      entrySchedule(entry).pipe(
        ticks({
          scheduler,
          duration: entry.duration,
          anchor,
          paused: backpressure,
          maxBatch: ticksPerBatch(entry),
          ahead: deps.ahead,
          slots,
        }),
      ),
    ),
    takeUntil(stop),
    pipeline,
    deliver(sink, { onError: entry.on_sink_error, backpressure }),
  );
}
