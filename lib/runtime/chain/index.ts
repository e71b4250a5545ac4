/**
 * The observable chain of one entry. Its files follow the chain, and `entryChain` reads as it:
 *
 * ```
 *  start.ts     when the entry starts, and the anchor of its timestamps (phase offset, clock group, after)
 *  schedule.ts  its rate, switched by its burst window
 *  timer.ts     due ticks in batches (ticks), a shard's slots only
 *  signal.ts    generate → jitter → gate → gaps → labels (per signal type)
 *  encoder.ts   encode: batch → bytes
 *  sink.ts      deliver: bytes → destination (the sink is built by runEntry, run-entry.ts)
 * ```
 */
import { switchMap, take, takeUntil, tap, type Observable, type Observer, type SchedulerLike } from 'rxjs';
import { deliver, type Delivery, type Sink } from '../../../operators/deliver.js';
import { encode } from '../../../operators/encode.js';
import type { Entry } from '../../config/types.js';
import { entryEncoder } from './encoder.js';
import { entrySchedule } from './schedule.js';
import { signalPipeline, type PipelineOptions } from './signal.js';
import { entryStart, type EntryStart } from './start.js';
import { entryTicks, shardSlots } from './timer.js';
import { optional } from './optional.js';
import { UnsupportedEntryError } from './unsupported.js';

export interface ChainDeps extends PipelineOptions {
  readonly scheduler: SchedulerLike;
  /** Where the chain delivers: the entry's sink ({@link entrySink} of sink.ts, or one a test injects). */
  readonly sink: Sink;
  /** Emits once to stop the entry: it stops ticking, delivers what it has, flushes, completes. */
  readonly stop: Observable<unknown>;
  /** Fed `true`/`false` as the sink holds the timer back; the same subject pauses the timer. */
  readonly backpressure: Observable<boolean> & Observer<boolean>;
  /**
   * Emits once, when the entry starts, the instant it was due to and the anchor of its timestamps;
   * completing without a value means it never starts (an `after` trigger that never fired).
   * Default: {@link entryStart}.
   * An entry with `after` needs it: only the entries run together can fire it (file-run.ts).
   */
  readonly start?: Observable<EntryStart>;
  /** How far ahead of the clock the timer may emit slots (ms; `ticks`' `ahead`): on virtual time only. */
  readonly ahead?: number;
  /** Told the events due before the entry's duration that it could not keep up with and dropped. */
  readonly onShortfall?: (events: number) => void;
  /**
   * Told the scheduled time (ms after the entry start) of the last slot of each batch the timer emits: how far its
   * timestamps reached, which on virtual time runs up to `ahead` past the clock.
   */
  readonly onSlots?: (offset: number) => void;
}

/**
 * The observable chain of one entry: start → schedule → timer → signal (generate, jitter, gate,
 * gaps, labels) → encode → deliver. It emits one {@link Delivery} per chunk written and completes
 * after the sink flushed and closed. Throws at once when the entry's encoder cannot be built.
 */
export function entryChain(entry: Entry, deps: ChainDeps): Observable<Delivery> {
  // The closures below read these, not `deps`, which holds the start's observables.
  const { scheduler, sink, stop, backpressure, ahead, onShortfall, onSlots } = deps;
  if (entry.after && !deps.start) {
    throw new UnsupportedEntryError(
      `${entry.id}: an after trigger watches another entry; run the entries of its file together (startEntries)`,
    );
  }
  const slots = shardSlots(entry, deps.shard, deps.onValues !== undefined);
  const signal = signalPipeline(entry, { ...deps, slots });
  const encoder = entryEncoder(entry);
  return (deps.start ?? entryStart(entry, scheduler)).pipe(
    take(1),
    switchMap(({ at, anchor }) =>
      entrySchedule(entry).pipe(
        entryTicks(entry, { scheduler, start: at, anchor, paused: backpressure, ahead, slots, onShortfall }),
      ),
    ),
    // Only when someone listens: svc-server runs thousands of chains that do not.
    optional(
      onSlots &&
        tap((batch) => {
          if (batch.size > 0) onSlots(batch.offset[batch.size - 1]!);
        }),
    ),
    takeUntil(stop),
    signal,
    encode(encoder),
    deliver(sink, { onError: entry.on_sink_error, backpressure, close: true }),
  );
}
