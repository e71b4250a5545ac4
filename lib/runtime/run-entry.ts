import { liveScheduler } from './live-scheduler.js';
import { BehaviorSubject, Subject, type Observable, type SchedulerLike } from 'rxjs';
import type { Delivery, Sink } from '../../operators/deliver.js';
import type { Entry } from '../config/types.js';
import { entryChain, type ChainDeps } from './chain/index.js';
import { EntryStats } from './stats.js';
import type { Shard } from '../../operators/labels.js';
import type { SignalHooks } from './chain/signal.js';
import { entrySink } from './chain/sink.js';
import type { SinkDeps } from '../sinks/kinds/index.js';
import { SinkError } from '../sinks/core/errors.js';

export interface RunEntryOptions {
  readonly scheduler?: SchedulerLike;
  /**
   * The sink's own timers (buffer age, retries, flush deadlines): the destination lives in real
   * time even when the chain runs on virtual time (a backfill). Default: `scheduler`.
   */
  readonly sinkScheduler?: SchedulerLike;
  /** Told of the entry's backpressure (true while its sink holds the timer back): a virtual clock waits meanwhile. */
  readonly onBackpressure?: (held: Observable<boolean>) => void;
  /** How far ahead of the clock (ms) the timer may emit slots: on virtual time only (a backfill). */
  readonly ahead?: number;
  /** Where the `stdout` sink writes. */
  readonly stdout?: NodeJS.WritableStream;
  /** Builds the entry's sink (tests inject failing or slow ones). */
  readonly createSink?: (entry: Entry) => Sink;
  /**
   * How the sink opens beyond its configuration: a worker thread appends to the file the main thread
   * truncated (workers.ts); the server opens the paths it checked below its file root as real paths.
   */
  readonly sinkDeps?: Pick<SinkDeps, 'appendFiles' | 'realPaths'>;
  /** Taps into the entry's chain (values for `after` triggers, samples for scrape buffers). */
  readonly hooks?: SignalHooks;
  /** Emit only this shard of the entry's series; default: all of them. */
  readonly shard?: Shard;
  /**
   * When the entry starts (its clock group or `after` trigger, file-run.ts); default: at once or after its
   * phase offset.
   */
  readonly start?: ChainDeps['start'];
  /** Whether the entry's `while` condition holds, as the watched entry's values arrive (file-run.ts). */
  readonly condition?: ChainDeps['condition'];
  /** The spans of the traces entry its `exemplars` or `trace_context` names (file-run.ts). */
  readonly spans?: ChainDeps['spans'];
}

/** How an entry ended: cleanly, or with the error that stopped it. */
export interface EntryOutcome {
  readonly error?: Error;
  /** The error is the sink's (`on_sink_error: fail`), not one of the entry's own chain. */
  readonly inSink?: boolean;
}

/** One running entry: its live statistics, a way to stop it, and its end. */
export interface EntryRun {
  readonly entry: Entry;
  readonly stats: EntryStats;
  /** Settles once the entry ended and its sink flushed and closed; never rejects. */
  readonly done: Promise<EntryOutcome>;
  /** Stops ticking, delivers and flushes what was produced, closes the sink; resolves as `done`. */
  stop(): Promise<EntryOutcome>;
}

/** Starts one entry's chain. Throws at once when its sink or encoder cannot be built (the sink it built closed). */
export function runEntry(entry: Entry, options: RunEntryOptions = {}): EntryRun {
  const scheduler = options.scheduler ?? liveScheduler;
  const stats = new EntryStats(scheduler.now());
  const sink =
    options.createSink?.(entry) ??
    entrySink(entry, {
      stdout: options.stdout,
      scheduler: options.sinkScheduler ?? scheduler,
      ...options.sinkDeps,
      resized: (bytes) => stats.resized(bytes),
    });
  const stop = new Subject<void>();
  const onDelivery = options.hooks?.onDelivery;
  // The first failure deliver counted: under `fail` it is the one that ends the chain, though the close after it
  // may count more; a chain error that is this one is the sink's.
  let firstFailure: Error | undefined;
  // A failure after which the sink can take nothing more (a full disk): it stops the entry.
  let lasting: SinkError | undefined;
  const record = (delivery: Delivery) => {
    if (delivery.kind === 'failed') firstFailure ??= delivery.error;
    if (delivery.kind === 'failed' && delivery.error instanceof SinkError && delivery.error.lasting && !lasting) {
      lasting = delivery.error;
      stop.next();
    }
    stats.record(delivery, scheduler.now());
    onDelivery?.(delivery);
  };
  const backpressure = new BehaviorSubject(false);
  options.onBackpressure?.(backpressure);
  // Neither the chain nor `options` is held by the closures below: their observables (operators and their
  // arguments, the start's) would stay in memory as long as the entry, beside the subscribers that run it.
  const ended = outcomeOf(
    chainOrClose(sink, () =>
      entryChain(entry, {
        ...options.hooks,
        scheduler,
        sink,
        stop,
        backpressure,
        start: options.start,
        condition: options.condition,
        spans: options.spans,
        shard: options.shard,
        ahead: options.ahead,
        onShortfall: (events) => (stats.missedEvents += events),
        onSlots: (offset) => (stats.slotsThrough = offset),
      }),
    ),
    record,
  );
  const done = ended.then(async (error): Promise<EntryOutcome> => {
    stats.end(scheduler.now());
    // Deliver closed the sink, counting what the close delivered or lost, whether the chain completed (a stop
    // completes it too) or errored.
    if (!error && lasting) return { error: lasting, inSink: true };
    return error ? { error, inSink: error === firstFailure } : {};
  });

  return {
    entry,
    stats,
    done,
    stop() {
      stop.next();
      return done;
    },
  };
}

/**
 * The entry's chain, built after its sink: a chain that cannot be built (an encoder, an unsupported entry) closes
 * the sink before the error is thrown, or its file handle or socket would stay open with nothing to close it.
 */
function chainOrClose(sink: Sink, build: () => Observable<Delivery>): Observable<Delivery> {
  try {
    return build();
  } catch (error) {
    // Nothing was written: the close has nothing to deliver or lose, and the build's error is the one to tell.
    // A close that throws or rejects would hide it.
    Promise.resolve()
      .then(() => sink.close())
      .catch(() => undefined);
    throw error;
  }
}

/**
 * Subscribes to an entry's chain, each delivery to `record`; settles with the error that ended it, if any.
 * Sink failures were counted as deliver reported them; an error is the entry's own.
 */
function outcomeOf(chain: Observable<Delivery>, record: (delivery: Delivery) => void): Promise<Error | undefined> {
  // `chain` is read here only, by no closure: the entry's subscribers do not hold it.
  let settle!: (error: Error | undefined) => void;
  const outcome = new Promise<Error | undefined>((resolve) => (settle = resolve));
  chain.subscribe({ next: record, error: (error: Error) => settle(error), complete: () => settle(undefined) });
  return outcome;
}
