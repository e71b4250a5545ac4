import { Observable, type Observer, type OperatorFunction, type Subscriber, type Subscription } from 'rxjs';
import type { EncodedBatch } from './model/batch.js';
import { guarded } from './internal/guarded.js';
import {
  check,
  checkOptional,
  oneOf,
  withMethods,
  BOOLEAN,
  OBJECT,
  OBSERVABLE,
  PROMISE,
} from './internal/arguments.js';

/**
 * A destination for encoded chunks (the bytes, and the batch they were encoded from).
 *
 * `write` returns `undefined` when the chunk was taken at once, or a promise when the caller
 * must wait before writing more: that promise is how a slow destination applies backpressure
 * to the chain. Anything else (the boolean of a Node stream's `write`), or a `flush` that
 * returns no promise, errors {@link deliver}'s stream with a TypeError saying so. A write the sink refuses throws, or rejects the returned promise, with an
 * error whose message tells the user what to fix.
 *
 * A sink that delivers later than `write` (a buffer, a socket, a batch sent over HTTP) tells
 * what became of the data on {@link Sink.reports}: acknowledgements and failures that happen
 * after `write` returned, and retries. Each `failed` report, and each `write` that throws, gives up
 * its own events, whatever its error object (several chunks may be lost to one error). A promise that
 * rejects (a write's wait, `flush`, `close`) with an error already reported or thrown tells of a loss
 * already counted; {@link deliver} counts it once.
 */
export interface Sink {
  write(chunk: EncodedBatch): void | Promise<void>;
  /**
   * Resolves once everything written so far has reached the destination; rejects when some of
   * it was given up (with the error that was reported for it).
   */
  flush(): Promise<void>;
  /** Flushes, then releases the destination. Idempotent. */
  close(): Promise<void>;
  /**
   * Outcomes that happen after `write` returned. Without it, a write that returned (or whose
   * promise resolved) counts as delivered at once. An error on it errors {@link deliver}'s stream.
   */
  readonly reports?: Observable<SinkReport>;
}

/** What a receiver says it wrote of a request (remote write 2.0's `X-Prometheus-Remote-Write-*-Written` headers). */
export interface WrittenCounts {
  readonly samples: number;
  readonly histograms: number;
  readonly exemplars: number;
}

/** What a sink tells about data it took earlier. */
export type SinkReport =
  /**
   * The destination acknowledged `size` events (`bytes` bytes sent): moves `last_successful_write_at`;
   * `written`: what it says it wrote of them, when it says so.
   */
  | { readonly kind: 'delivered'; readonly size: number; readonly bytes: number; readonly written?: WrittenCounts }
  /**
   * `size` events were given up (`warn` drops them): a sink failure. `refusal` is set when the receiver took
   * the request but refused these events (an OTLP partial success): the how-manieth request in a row it
   * refused some of, 1 starting a streak (which is worth telling; the rest of it only counting).
   */
  | {
      readonly kind: 'failed';
      readonly size: number;
      readonly bytes: number;
      readonly error: Error;
      readonly refusal?: number;
    }
  /**
   * `size` events were given up with no failure: nobody is left to take them (the reader of stdout went away).
   * They count as dropped, never as a sink error.
   */
  | { readonly kind: 'dropped'; readonly size: number; readonly bytes: number }
  /** Attempt `attempt` failed with `error`; the next one follows in `delay` ms. Nothing is lost yet. */
  | { readonly kind: 'retrying'; readonly attempt: number; readonly delay: number; readonly error: Error }
  /** Something the user should know, once, that loses nothing (remote write 2.0 refused, 1.0 sent instead). */
  | { readonly kind: 'warning'; readonly message: string };

/**
 * One outcome of the sink subscriber: a chunk `written` (handed to the sink, counted in
 * `total_events` even while still buffered, or when the sink refused it: a `failed` then follows), or a
 * {@link SinkReport}.
 */
export type Delivery = { readonly kind: 'written'; readonly size: number; readonly bytes: number } | SinkReport;

export interface DeliverOptions {
  /** `warn`: report the failure as a {@link Delivery} and keep going; `fail`: error the stream. */
  readonly onError?: 'warn' | 'fail';
  /**
   * Told `true` while a write is waiting on the destination and `false` once it is released:
   * feed it to {@link ticks}' `paused` so a slow destination holds the timer back instead of
   * letting chunks queue without bound.
   */
  readonly backpressure?: Pick<Observer<boolean>, 'next'>;
  /**
   * Once the source completes, close the sink (flush, then release it) instead of only flushing it, so that
   * what the close loses is counted as a failure here too; once an error ends the stream (a failure under `fail`,
   * an upstream error), close it before erroring, reporting what it still delivered or gave up of what it held;
   * unsubscribed before either (a `take` after deliver), close it too, without telling how the close ends.
   * Default false: the sink stays open for the caller.
   */
  readonly close?: boolean;
}

/**
 * Sink subscriber: writes every chunk to `sink` in order and reports each outcome: `written`
 * per chunk taken, then whatever the sink reports later (`delivered`, `failed`, `retrying`);
 * a sink without `reports` counts as `delivered` as soon as a write returns. When the source
 * completes, it waits for pending writes, flushes (or, with `close`, closes) the sink, then completes: stop
 * means flush.
 * Under `fail`, the first failure (thrown, rejected or reported) is reported, then errors the
 * stream: an error that arrives without a `failed` before it came from upstream, not the sink. With `close`, an
 * error (the sink's or upstream's) first closes the sink and reports what the close delivered or gave up.
 *
 * ```
 * chunks:      a-------b-------c-------|
 *              deliver(sink)
 * deliveries:  (AA')---(BB')---(CC')-----|   A: written a, A': delivered a (at once without `reports`, else when
 *                                           the sink reports it); | once flush() resolves, with no value of its own
 * ```
 *
 * The completion waits for `flush()`'s promise: in `TestScheduler.run` it comes after the run's
 * frames, so wait for it (`lastValueFrom`) rather than expecting it in marbles (docs/operators.md).
 */
export function deliver(sink: Sink, options: DeliverOptions = {}): OperatorFunction<EncodedBatch, Delivery> {
  check('deliver', 'sink', sink, withMethods('write', 'flush', 'close'));
  checkOptional('deliver', 'sink.reports', sink.reports, OBSERVABLE);
  check('deliver', 'options', options, OBJECT);
  const { onError = 'warn', backpressure, close = false } = options;
  check('deliver', 'onError', onError, oneOf(['warn', 'fail']));
  checkOptional('deliver', 'backpressure', backpressure, withMethods('next'));
  check('deliver', 'close', close, BOOLEAN);
  const acknowledges = sink.reports !== undefined;
  // The source is a parameter of `run` that none of its closures reads: a running delivery does not hold the
  // upstream observables (operators and their arguments) in memory.
  const run = (source: Observable<EncodedBatch>, subscriber: Subscriber<Delivery>) => {
    const queue: EncodedBatch[] = [];
    // The errors of the failures counted: a promise that rejects with one of them tells of no new loss.
    const counted = new WeakSet<Error>();
    let waiting = false;
    let sourceDone = false;
    let subscription: Subscription | undefined;
    // With `close`, the error that ends the stream once the close told what it gave up: no chunk is taken meanwhile.
    let ending: Error | undefined;
    // The final close has begun: an error it ends with closes nothing again.
    let closing = false;
    const open = () => !subscriber.closed && ending === undefined;

    // Every report and every throw gives up its own events; a rejected promise may repeat one (`again`).
    const failed = (size: number, bytes: number, cause: unknown, again: boolean, refusal?: number) => {
      const error = cause instanceof Error ? cause : new Error(String(cause));
      if (again && counted.has(error)) return;
      counted.add(error);
      subscriber.next(
        refusal === undefined
          ? { kind: 'failed', size, bytes, error }
          : { kind: 'failed', size, bytes, error, refusal },
      );
      if (onError === 'fail') end(error);
    };
    // Every chunk handed to `write` counts in `total_events`, one the sink refused too: its `failed` follows, so
    // `total_events` − `dropped_events` stays what was delivered.
    const taken = (size: number, bytes: number) => subscriber.next({ kind: 'written', size, bytes });
    const written = (size: number, bytes: number) => {
      taken(size, bytes);
      if (!acknowledges) subscriber.next({ kind: 'delivered', size, bytes });
    };
    const refused = (size: number, bytes: number, cause: unknown, again: boolean) => {
      taken(size, bytes);
      failed(size, bytes, cause, again);
    };

    // A sink of the caller's own may return what the contract does not say (a Node stream's `write` gives a
    // boolean): told as such, rather than as a `.then` missing deep inside deliver.
    const settle = (method: 'flush' | 'close'): Promise<void> => {
      const settled = sink[method]();
      check('deliver', `what sink.${method}() returns`, settled, PROMISE);
      return settled;
    };

    // Without `close` the sink stays the caller's; with it, the events the sink still holds are delivered or given
    // up by the close, and counted, before the stream errors: none is left neither delivered nor dropped.
    const end = (error: unknown) => {
      if (!close || closing) return subscriber.error(error);
      if (ending) return;
      ending = error instanceof Error ? error : new Error(String(error));
      subscription?.unsubscribe();
      queue.length = 0;
      const ended = ending;
      guarded(subscriber, () =>
        settle('close')
          .catch((cause: unknown) => failed(0, 0, cause, true))
          .finally(() => subscriber.error(ended)),
      )();
    };

    // What a sink throws where it should reject, or a contract it breaks, ends the stream as an error does.
    const guard = <A extends unknown[]>(work: (...args: A) => void) => guarded({ error: end }, work);

    const finish = () => {
      closing = close;
      settle(close ? 'close' : 'flush').then(
        () => subscriber.complete(),
        (cause) => {
          failed(0, 0, cause, true);
          if (open()) subscriber.complete();
        },
      );
    };

    // Every entry into the sink goes through here: a sink that throws where it should reject
    // (flush) errors the stream instead of escaping it.
    const pump = guard(() => {
      while (!waiting && queue.length > 0 && open()) {
        const chunk = queue.shift()!;
        const { bytes } = chunk;
        let pending: void | Promise<void>;
        try {
          pending = sink.write(chunk);
        } catch (cause) {
          refused(chunk.size, bytes, cause, false);
          continue;
        }
        checkOptional('deliver', 'what sink.write() returns', pending, PROMISE);
        if (!pending) {
          written(chunk.size, bytes);
          continue;
        }
        waiting = true;
        backpressure?.next(true);
        pending
          .then(
            () => written(chunk.size, bytes),
            (cause) => refused(chunk.size, bytes, cause, true),
          )
          // Runs the caller's `backpressure` observer in a promise continuation: what it throws ends the stream
          // rather than rejecting a promise nobody holds.
          .finally(
            guard(() => {
              waiting = false;
              backpressure?.next(false);
              pump();
            }),
          );
      }
      if (!waiting && queue.length === 0 && sourceDone && open()) finish();
    });

    // A `reports` that errors is a broken sink, not a failed delivery: the stream ends with its error.
    const reports = sink.reports?.subscribe({
      next: guard((report: SinkReport) => {
        if (report.kind !== 'failed') return subscriber.next(report);
        failed(report.size, report.bytes, report.error, false, report.refusal);
      }),
      error: end,
    });

    subscription = source.subscribe({
      next: (chunk) => {
        if (ending) return;
        queue.push(chunk);
        pump();
      },
      error: end,
      complete: () => {
        sourceDone = true;
        // A stop while the sink holds the chain back: flush now, so a stalled destination's
        // flush timeout starts at once. The final flush below reports the outcome.
        if (waiting) guard(() => void settle('flush').catch(() => undefined))();
        pump();
      },
    });
    if (ending) subscription.unsubscribe();
    return () => {
      subscription?.unsubscribe();
      reports?.unsubscribe();
      // Unsubscribed before the final close began (a `take` after deliver): the sink is this stream's to release,
      // so it is closed, sending what it holds; nobody is left to be told how that ends.
      if (close && !closing && ending === undefined) {
        closing = true;
        Promise.resolve()
          .then(() => sink.close())
          .catch(() => undefined);
      }
    };
  };
  return (source) => new Observable<Delivery>((subscriber) => run(source, subscriber));
}
