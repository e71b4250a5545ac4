import { Observable, type Observer, type OperatorFunction } from 'rxjs';
import { byteLength, type EncodedBatch } from './batch.js';

/**
 * A destination for encoded chunks (the bytes, and the batch they were encoded from).
 *
 * `write` returns `undefined` when the chunk was taken at once, or a promise when the caller
 * must wait before writing more: that promise is how a slow destination applies backpressure
 * to the chain. A failed write throws, or rejects the returned promise, with an error whose
 * message tells the user what to fix.
 */
export interface Sink {
  write(chunk: EncodedBatch): void | Promise<void>;
  /** Resolves once everything written so far has reached the destination. */
  flush(): Promise<void>;
  /** Flushes, then releases the destination. Idempotent. */
  close(): Promise<void>;
}

const EMPTY_BATCH = { size: 0, anchor: 0, index: new Float64Array(0), offset: new Float64Array(0) };

/** The outcome of writing one chunk. */
export interface Delivery {
  /** Events in the chunk. */
  readonly size: number;
  /** Bytes in the chunk (UTF-8). */
  readonly bytes: number;
  /** Set when the sink failed and the chunk was dropped (`onError: 'warn'`). */
  readonly error?: Error;
}

export interface DeliverOptions {
  /** `warn`: report the failure as a {@link Delivery} and keep going; `fail`: error the stream. */
  readonly onError?: 'warn' | 'fail';
  /**
   * Told `true` while a write is waiting on the destination and `false` once it is released:
   * feed it to {@link ticks}' `paused` so a slow destination holds the timer back instead of
   * letting chunks queue without bound.
   */
  readonly backpressure?: Pick<Observer<boolean>, 'next'>;
}

/**
 * Sink subscriber: writes every chunk to `sink` in order and reports each outcome. When the
 * source completes, it waits for pending writes, flushes the sink, then completes: stop
 * means flush.
 *
 * ```
 * chunks:      a---b---c---|
 *              deliver(sink)
 * deliveries:  a---b---c---(f|)   f: flush done (nothing emitted for it)
 * ```
 */
export function deliver(sink: Sink, options: DeliverOptions = {}): OperatorFunction<EncodedBatch, Delivery> {
  const { onError = 'warn', backpressure } = options;
  return (source) =>
    new Observable<Delivery>((subscriber) => {
      const queue: EncodedBatch[] = [];
      let waiting = false;
      let sourceDone = false;

      const failed = (chunk: EncodedBatch, bytes: number, cause: unknown) => {
        const error = cause instanceof Error ? cause : new Error(String(cause));
        if (onError === 'fail') subscriber.error(error);
        else subscriber.next({ size: chunk.size, bytes, error });
      };

      const finish = () => {
        sink.flush().then(
          () => subscriber.complete(),
          (cause) => {
            failed({ size: 0, data: '', source: EMPTY_BATCH }, 0, cause);
            subscriber.complete();
          },
        );
      };

      const pump = () => {
        while (!waiting && queue.length > 0 && !subscriber.closed) {
          const chunk = queue.shift()!;
          const bytes = byteLength(chunk.data);
          let pending: void | Promise<void>;
          try {
            pending = sink.write(chunk);
          } catch (cause) {
            failed(chunk, bytes, cause);
            continue;
          }
          if (!pending) {
            subscriber.next({ size: chunk.size, bytes });
            continue;
          }
          waiting = true;
          backpressure?.next(true);
          pending.then(
            () => subscriber.next({ size: chunk.size, bytes }),
            (cause) => failed(chunk, bytes, cause),
          ).finally(() => {
            waiting = false;
            backpressure?.next(false);
            pump();
          });
        }
        if (!waiting && queue.length === 0 && sourceDone && !subscriber.closed) finish();
      };

      const subscription = source.subscribe({
        next: (chunk) => {
          queue.push(chunk);
          pump();
        },
        error: (err) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          pump();
        },
      });
      return () => subscription.unsubscribe();
    });
}
