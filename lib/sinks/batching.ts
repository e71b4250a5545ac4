import { asyncScheduler, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import { byteLength, type EncodedBatch } from '../../operators/batch.js';
import { SinkError, type Sink, type SinkReport } from './sink.js';
import { describeError } from './errors.js';
import { backoff, type RetryPolicy } from './retry.js';
import { Settlement } from './settlement.js';
import { SpaceWait } from './space.js';

/** One request to the destination: what it carries, for reports. */
export interface Request {
  /** Events whose data the request carries (fractional when a multi-line event is split). */
  readonly size: number;
  /** Bytes of the request body. */
  readonly bytes: number;
}

/** A destination that takes batches of chunks as one or several requests. */
export interface BatchTransport<R extends Request> {
  /** The requests that deliver `chunks` (the buffered chunks of one batch, in write order). */
  prepare(chunks: readonly EncodedBatch[]): R[];
  /**
   * Sends one request; rejects with a {@link SinkError} whose `retryable` says whether trying
   * again may help.
   */
  send(request: R): Promise<void>;
  /** Cuts the request in flight (a flush ran out of time); later sends must still work. */
  abort?(): void;
  /** Releases connections once the sink closed. */
  release?(): void;
}

export interface BatchingOptions {
  /** Sink name for messages. */
  readonly name: string;
  /** The destination as messages show it (a URL without credentials). */
  readonly target: string;
  /** Bytes of buffered data that make a batch go out at once. */
  readonly batchSize: number;
  /** The oldest buffered chunk waits at most this long (ms) before its batch goes out. */
  readonly maxAge: number;
  readonly retry: RetryPolicy;
  /**
   * One request carries at most about this many bytes of chunks (whole chunks, at least one);
   * default the larger of `batchSize` and 1 MiB.
   */
  readonly maxRequestBytes?: number;
  /** Bytes held (buffered and in flight) past which `write` makes the chain wait; default 4 × maxRequestBytes. */
  readonly maxBufferedBytes?: number;
  /**
   * What a flush (a stop) has not got acknowledged after this long (ms) is given up; default
   * 10 s. A destination that acknowledges nothing for this long while data waits is stalled.
   */
  readonly flushTimeout?: number;
  /** Timers of the age rule, retry backoff, flush timeout and stall watch; `asyncScheduler` unless a spec injects one. */
  readonly scheduler?: SchedulerLike;
  /** Jitter source of the backoff. */
  readonly random?: () => number;
}

/** Default ceiling of one request's chunk bytes: big enough that a slow round trip is not the bottleneck. */
const MIN_REQUEST_BYTES = 1 << 20;
export const DEFAULT_FLUSH_TIMEOUT = 10_000;

/**
 * The batching core of `http_push` and `logstore`: a {@link Sink} that buffers chunks and sends
 * them as batches through `transport`, one request at a time (so the destination sees the
 * data in order).
 *
 * - A batch goes out when `batchSize` bytes are buffered, when the oldest chunk is `maxAge`
 *   old, or on `flush`. While a request is in flight, what arrives meanwhile goes out together
 *   in the next one (up to `maxRequestBytes`): a slow round trip gives bigger requests, not a
 *   growing queue.
 * - Each request is tried up to `retry.maxAttempts` times when the failure is retryable (a
 *   network error, 429, 5xx), with exponential backoff and full jitter; a refusal (other 4xx)
 *   is not retried. Given up, its data is dropped and reported `failed`; acknowledged, it is
 *   reported `delivered`.
 * - Backpressure: once `maxBufferedBytes` are held, `write` returns a promise that resolves
 *   when a request settled, so a slow or stalled destination holds the chain back and memory
 *   stays bounded.
 * - `flush` sends everything buffered and resolves when it is delivered (rejects with the
 *   reported failure when some was given up). What is still unacknowledged `flushTimeout`
 *   after a flush is given up, so a stalled destination cannot hold a stop for long. `close`
 *   flushes, then releases the transport.
 * - Stall: when the destination settles nothing for `flushTimeout` while data waits (it does
 *   not answer, or every retry of a request fails), the writer is let go and every chunk
 *   written from then on is dropped and reported `failed` at once, until a request settles.
 *   So the chain is held back at most `flushTimeout`, and once the destination answers again
 *   it gets what was held (at most `maxBufferedBytes`), then new data at the entry's rate.
 */
export function batchingSink<R extends Request>(transport: BatchTransport<R>, options: BatchingOptions): Sink {
  const { name, target, batchSize, maxAge, retry, scheduler = asyncScheduler, random = Math.random } = options;
  const maxRequestBytes = options.maxRequestBytes ?? Math.max(batchSize, MIN_REQUEST_BYTES);
  const maxBufferedBytes = options.maxBufferedBytes ?? 4 * maxRequestBytes;
  const flushTimeout = options.flushTimeout ?? DEFAULT_FLUSH_TIMEOUT;
  const reports = new Subject<SinkReport>();
  const space = new SpaceWait();
  // Stalled: let the writer held back by backpressure go; write drops from then on.
  const settlement = new Settlement({ after: flushTimeout, scheduler, onStall: () => space.release(true) });

  const buffer: EncodedBatch[] = [];
  const sizes: number[] = [];
  let bufferedBytes = 0;
  let inFlightBytes = 0;
  let ageTimer: Subscription | undefined;
  let aged = false;
  /** Chunks that `flush` wants out: everything written before the latest flush. */
  let flushUpTo = 0;
  let taken = 0;
  let sending = false;
  let closing: Promise<void> | undefined;
  /** Set when a flush timed out: the chunks up to `dropUpTo` are given up with this error. */
  let dropping: SinkError | undefined;
  let dropUpTo = 0;
  let lastError: SinkError | undefined;
  /** Ends the current backoff wait early. */
  let wake: (() => void) | undefined;
  /** Rejects the wait for the request in flight (a flush timed out). */
  let cut: ((error: Error) => void) | undefined;

  const due = (): boolean => buffer.length > 0 && (bufferedBytes >= batchSize || aged || flushUpTo > taken);

  const onAge = (): void => {
    ageTimer = undefined;
    aged = true;
    kick();
  };

  const kick = (): void => {
    if (!sending && due()) void sendLoop();
  };

  /** Removes the next batch from the buffer: whole chunks, up to maxRequestBytes (or all to drop). */
  const takeBatch = (): { chunks: EncodedBatch[]; bytes: number } => {
    let n = 0;
    let bytes = 0;
    if (dropping) while (n < buffer.length && taken + n < dropUpTo) bytes += sizes[n++]!;
    else while (n < buffer.length && (n === 0 || bytes + sizes[n]! <= maxRequestBytes)) bytes += sizes[n++]!;
    const chunks = buffer.splice(0, n);
    sizes.splice(0, n);
    bufferedBytes -= bytes;
    inFlightBytes += bytes;
    taken += n;
    // A remainder left by the size cap is as old as what just left: it is due at once.
    ageTimer?.unsubscribe();
    ageTimer = undefined;
    aged = buffer.length > 0;
    return { chunks, bytes };
  };

  const sendLoop = async (): Promise<void> => {
    sending = true;
    try {
      while (due()) {
        const { chunks, bytes } = takeBatch();
        const failure = await sendBatch(chunks);
        inFlightBytes -= bytes;
        settlement.settle(chunks.length, failure);
        if (dropping && taken >= dropUpTo) dropping = undefined;
        wakeWriter();
      }
    } finally {
      sending = false;
      if (buffer.length > 0 && !ageTimer && !aged) ageTimer = scheduler.schedule(onAge, maxAge);
    }
  };

  /** Delivers one batch; resolves to the error part of it was given up with, if any. */
  const sendBatch = async (chunks: readonly EncodedBatch[]): Promise<Error | undefined> => {
    if (dropping) return failed(eventsOf(chunks), 0, dropping);
    let requests: R[];
    try {
      requests = transport.prepare(chunks);
    } catch (cause) {
      // A batch the transport cannot frame fails alone.
      const error = cause instanceof SinkError ? cause : new SinkError(name, `cannot build a request: ${describeError(cause)}`, { cause });
      return failed(eventsOf(chunks), 0, error);
    }
    let failure: Error | undefined;
    for (const request of requests) failure = (await attempt(request)) ?? failure;
    return failure;
  };

  /** Sends one request with retries; resolves to the error it was given up with, if any. */
  const attempt = async (request: R): Promise<Error | undefined> => {
    for (let n = 1; ; n++) {
      if (dropping) return failed(request.size, request.bytes, dropping);
      try {
        await new Promise<void>((resolve, reject) => {
          cut = reject;
          transport.send(request).then(resolve, reject);
        });
        cut = undefined;
        lastError = undefined;
        reports.next({ kind: 'delivered', size: request.size, bytes: request.bytes });
        return undefined;
      } catch (cause) {
        cut = undefined;
        const error = cause instanceof SinkError ? cause : new SinkError(name, `cannot send to ${target}: ${describeError(cause)}`, { cause, retryable: true });
        if (dropping) return failed(request.size, request.bytes, dropping);
        lastError = error;
        if (!error.retryable || n >= retry.maxAttempts) {
          const gaveUp = n > 1 ? new SinkError(name, `${error.detail} (gave up after ${n} attempts)`, { cause: error }) : error;
          return failed(request.size, request.bytes, gaveUp);
        }
        const delay = backoff(retry, n, random);
        reports.next({ kind: 'retrying', attempt: n, delay, error });
        await pause(delay);
      }
    }
  };

  const failed = (size: number, bytes: number, error: Error): Error => {
    reports.next({ kind: 'failed', size, bytes, error });
    return error;
  };

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = scheduler.schedule(() => wake?.(), ms);
      wake = () => {
        timer.unsubscribe();
        wake = undefined;
        resolve();
      };
    });

  /** A flush ran out of time: give up everything held now, the request in flight included. */
  const expire = (): void => {
    if (settlement.pending === 0) return;
    const last = lastError ? ` (last error: ${lastError.detail})` : '';
    dropping = new SinkError(name, `${target} acknowledged nothing within ${flushTimeout / 1000} s of the flush; the data still held was dropped${last}`, { cause: lastError });
    dropUpTo = taken + buffer.length;
    flushUpTo = Math.max(flushUpTo, dropUpTo);
    wake?.();
    cut?.(dropping);
    transport.abort?.();
    kick();
  };

  /** The failure of a chunk written while stalled (one error object per report: each counts). */
  const stalledError = (): SinkError => {
    const why = lastError ? `last error: ${lastError.detail}` : 'is the endpoint overloaded or stuck?';
    return new SinkError(name, `${target} acknowledged nothing for ${flushTimeout / 1000} s (${why}): new events are dropped until it answers again`, { cause: lastError });
  };

  const wakeWriter = (): void => {
    space.release(bufferedBytes + inFlightBytes < maxBufferedBytes);
  };

  const flush = (): Promise<void> => {
    flushUpTo = taken + buffer.length;
    const done = settlement.flush(); // before kick: a batch can settle synchronously
    kick();
    if (settlement.pending > 0) {
      const timer = scheduler.schedule(expire, flushTimeout);
      const stop = () => timer.unsubscribe();
      done.then(stop, stop);
    }
    return done;
  };

  return {
    reports,
    write(chunk: EncodedBatch): void | Promise<void> {
      if (closing) throw new SinkError(name, `cannot write to ${target}: the sink is closed`);
      const bytes = byteLength(chunk.data);
      if (settlement.stalled) {
        reports.next({ kind: 'failed', size: chunk.size, bytes, error: stalledError() });
        return undefined;
      }
      buffer.push(chunk);
      sizes.push(bytes);
      bufferedBytes += bytes;
      settlement.issue();
      if (!ageTimer && !aged) ageTimer = scheduler.schedule(onAge, maxAge);
      kick();
      if (bufferedBytes + inFlightBytes < maxBufferedBytes) return undefined;
      return space.wait();
    },
    flush,
    close(): Promise<void> {
      closing ??= flush().finally(() => {
        ageTimer?.unsubscribe();
        ageTimer = undefined;
        transport.release?.();
        reports.complete();
      });
      return closing;
    },
  };
}

function eventsOf(chunks: readonly EncodedBatch[]): number {
  return chunks.reduce((n, c) => n + c.size, 0);
}
