import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import { DEFAULT_FLUSH_TIMEOUT, SinkCore, type SinkDriver } from './sink-core.js';

import { describeError } from './errors.js';
import type { RetryPolicy } from './retry.js';
import type { Sink, WrittenCounts } from '../../../operators/deliver.js';
import { SinkError } from './errors.js';

/** What a user may set on any batching sink (each sink documents its own defaults). */
export interface BatchSettings {
  /** Buffered data that makes a batch go out (bytes, records or events, as the sink counts). */
  readonly batchSize?: number;
  readonly retry?: RetryPolicy;
  /** Longest wait of buffered data, ms; 0: no age rule. */
  readonly maxAge?: number;
  /** What a flush (a stop) has not got acknowledged after this long (ms) is given up; default 10 s. */
  readonly flushTimeout?: number;
  readonly scheduler?: SchedulerLike;
  /** Jitter source of the backoff. */
  readonly random?: () => number;
}

/** One request to the destination: what it carries, for reports. */
export interface Request {
  /** Events whose data the request carries (fractional when a multi-line event is split). */
  readonly size: number;
  /** Bytes of the request body. */
  readonly bytes: number;
}

/** What the destination said of a request it took, beyond taking it. */
export interface Receipt {
  /** Events of the request it refused, saying why in `error` (a {@link PartialRefusal}). */
  readonly rejected?: number;
  readonly error?: SinkError;
  /** What it says it wrote (remote write 2.0's response headers). */
  readonly written?: WrittenCounts;
  /**
   * What the user should know of how the request went (remote write fell back to 1.0, a collector's warning): the
   * first one said is a sink's only one, as a destination that warns usually warns of every request.
   */
  readonly warning?: string;
}

/** Part of a request the destination acknowledged while the rest is still in flight or failed. */
export interface Stored {
  readonly size: number;
  readonly bytes: number;
}

/** The destination accepted a request but refused `rejected` of its events, saying why. */
export interface PartialRefusal extends Receipt {
  readonly rejected: number;
  readonly error: SinkError;
}

/** A destination that takes batches of chunks as one or several requests. */
export interface BatchProtocol<R extends Request> {
  /** The requests that deliver `chunks` (the buffered chunks of one batch, in write order). */
  prepare(chunks: readonly EncodedBatch[]): R[];
  /**
   * Sends one request; rejects with a {@link SinkError} whose `retryable` says whether trying
   * again may help. Resolves to a {@link Receipt} when the destination said more than yes: a
   * {@link PartialRefusal} when it took the request but refused some of its events (OTLP partial
   * success), what it wrote, a warning. A destination that stores a request in parts (a Kafka send spread over
   * brokers) calls `stored` with each part as it is acknowledged: that part is delivered at once, and a retry, a
   * give-up or a flush that runs out of time counts only the rest.
   */
  send(request: R, stored: (part: Stored) => void): Promise<Receipt | void>;
  /** Cuts the request in flight (a flush ran out of time); later sends must still work. */
  abort?(): void;
  /** Releases connections once the sink closed. */
  release?(): void | Promise<void>;
}

export interface BatchingOptions {
  /** Sink name for messages. */
  readonly name: string;
  /** The destination as messages show it (a URL without credentials). */
  readonly target: string;
  /** Buffered data that makes a batch go out at once: bytes, or records or events by `batchUnit`. */
  readonly batchSize: number;
  /**
   * What `batchSize` counts: bytes of chunks (default), their records (a remote-write series each), or their
   * events (a Kafka message each).
   */
  readonly batchUnit?: 'bytes' | 'records' | 'events';
  /**
   * The oldest buffered chunk waits at most this long (ms) before its batch goes out; 0: no age rule (size
   * and flush only).
   */
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
  /**
   * Timers of the age rule, retry backoff, flush timeout and stall watch; `asyncScheduler` unless a spec
   * injects one.
   */
  readonly scheduler?: SchedulerLike;
  /** Jitter source of the backoff. */
  readonly random?: () => number;
}

/** Default ceiling of one request's chunk bytes: big enough that a slow round trip is not the bottleneck. */
const MIN_REQUEST_BYTES = 1 << 20;

/** Bytes of chunks one request carries at most by default: the larger of `batchSize` (bytes) and 1 MiB. */
export function defaultRequestBytes(batchSize: number): number {
  return Math.max(batchSize, MIN_REQUEST_BYTES);
}

/**
 * The batching core of `http_push`, `logstore`, `remote_write` and `broker`: a {@link Sink} that buffers
 * chunks and sends them as batches through `protocol`, one request at a time (so the destination sees the
 * data in order).
 *
 * - A batch goes out when `batchSize` bytes (or records, or events) are buffered, or a request's
 *   `maxRequestBytes`, when the oldest chunk is `maxAge` old, or on `flush`. While a request is in flight,
 *   what arrives meanwhile goes out together in the next one (up to `maxRequestBytes`): a slow round trip
 *   gives bigger requests, not a growing queue.
 * - Each request is tried up to `retry.maxAttempts` times when the failure is retryable (a
 *   network error, 429, 5xx), with exponential backoff and full jitter; a refusal (other 4xx)
 *   is not retried. Given up, its data is dropped and reported `failed`; acknowledged, it is
 *   reported `delivered`.
 * - A request the destination took but refused some events of (a {@link PartialRefusal}: OTLP partial
 *   success) delivers the rest and fails those, numbered by `refusal` as the how-manieth such request in a
 *   row: one wholly taken request ends the streak, so the run can say it once per streak.
 * - A part of a request the destination acknowledged on its own (the `stored` callback of
 *   {@link BatchProtocol.send}: a Kafka send whose other brokers took their messages) is reported `delivered` at
 *   once; the retries, the give-up and a flush that runs out of time count only the rest.
 * - Backpressure: once `maxBufferedBytes` are held, `write` returns a promise that resolves
 *   when a request settled, so a slow or stalled destination holds the chain back and memory
 *   stays bounded.
 * - `flush` sends everything buffered and resolves when it is delivered (rejects with the
 *   reported failure when some was given up). What is still unacknowledged `flushTimeout`
 *   after a flush is given up, so a stalled destination cannot hold a stop for long. `close`
 *   flushes, then releases the protocol's connections.
 * - Stall: when the destination settles nothing for `flushTimeout` while data waits (it does
 *   not answer, or every retry of a request fails), the writer is let go and every chunk
 *   written from then on is dropped and reported `failed` at once, until a request settles.
 *   So the chain is held back at most `flushTimeout`, and once the destination answers again
 *   it gets what was held (at most `maxBufferedBytes`), then new data at the entry's rate.
 */
export function batchingSink<R extends Request>(protocol: BatchProtocol<R>, options: BatchingOptions): Sink {
  const { name, target, batchSize, scheduler = asyncScheduler } = options;
  const maxRequestBytes = options.maxRequestBytes ?? defaultRequestBytes(batchSize);
  const core = new SinkCore({
    name,
    target,
    closedDetail: `cannot write to ${target}: the sink is closed`,
    highWaterMark: options.maxBufferedBytes ?? 4 * maxRequestBytes,
    silence: {
      flushTimeout: options.flushTimeout ?? DEFAULT_FLUSH_TIMEOUT,
      scheduler,
      wording: {
        expired: 'acknowledged nothing',
        partly: 'acknowledged',
        stalled: 'acknowledged nothing',
        quiet: 'is the endpoint overloaded or stuck?',
        resumes: 'answers again',
      },
    },
  });
  return core.attach(new Batcher(core, protocol, { ...options, scheduler, maxRequestBytes }));
}

/**
 * Buffers chunks and sends them as batches, one request at a time. Chunks are counted from the
 * sink's start: `taken` left the buffer for a request, `flushUpTo` are wanted out by a flush,
 * `dropUpTo` are given up by an expired flush.
 */
class Batcher<R extends Request> implements SinkDriver {
  private readonly buffer: EncodedBatch[] = [];
  private bufferedBytes = 0;
  /** Records or events of the buffered chunks, when `batchSize` counts them. */
  private bufferedUnits = 0;
  private ageTimer: Subscription | undefined;
  /** The oldest buffered chunk is `maxAge` old: the buffer is due. */
  private aged = false;
  private flushUpTo = 0;
  private taken = 0;
  private sending = false;
  /** Set when a flush timed out: the chunks up to `dropUpTo` are given up with this error. */
  private dropping: SinkError | undefined;
  private dropUpTo = 0;
  /** Ends the current backoff wait early. */
  private wake: (() => void) | undefined;
  /** Rejects the wait for the request in flight (a flush timed out). */
  private cut: ((error: Error) => void) | undefined;
  /** A receipt's warning was said (see Receipt.warning). */
  private warned = false;
  /** Requests in a row the destination took but refused some events of (a partial refusal). */
  private refusals = 0;

  constructor(
    private readonly core: SinkCore,
    private readonly protocol: BatchProtocol<R>,
    private readonly options: BatchingOptions & { readonly scheduler: SchedulerLike; readonly maxRequestBytes: number },
  ) {}

  send(chunk: EncodedBatch): void {
    this.buffer.push(chunk);
    this.bufferedBytes += chunk.bytes;
    this.bufferedUnits += this.unitsOf(chunk);
    this.armAge();
    this.kick();
  }

  flush(): void {
    this.flushUpTo = this.taken + this.buffer.length;
    this.kick();
  }

  /** A flush ran out of time: give up everything held now, the request in flight included. */
  expire(error: SinkError): void {
    this.dropping = error;
    this.dropUpTo = this.taken + this.buffer.length;
    this.flushUpTo = Math.max(this.flushUpTo, this.dropUpTo);
    this.wake?.();
    this.cut?.(error);
    this.protocol.abort?.();
    this.kick();
  }

  release(): void | Promise<void> {
    this.ageTimer?.unsubscribe();
    this.ageTimer = undefined;
    return this.protocol.release?.();
  }

  private unitsOf(chunk: EncodedBatch): number {
    return this.options.batchUnit === 'events' ? chunk.size : chunk.frames.ends.length;
  }

  private due(): boolean {
    const buffered =
      this.options.batchUnit === 'records' || this.options.batchUnit === 'events'
        ? this.bufferedUnits
        : this.bufferedBytes;
    // A request's worth of bytes waits for nothing more; waiting on would let the high-water
    // mark hold the writer back until the age rule fired.
    const full = buffered >= this.options.batchSize || this.bufferedBytes >= this.options.maxRequestBytes;
    return this.buffer.length > 0 && (full || this.aged || this.flushUpTo > this.taken);
  }

  /** Starts the age rule's timer for the oldest buffered chunk, unless it runs or is off. */
  private armAge(): void {
    if (!this.ageTimer && !this.aged && this.options.maxAge > 0)
      this.ageTimer = this.options.scheduler.schedule(this.onAge, this.options.maxAge);
  }

  private readonly onAge = (): void => {
    this.ageTimer = undefined;
    this.aged = true;
    this.kick();
  };

  private kick(): void {
    if (!this.sending && this.due()) void this.sendLoop();
  }

  /** Removes the next batch from the buffer: whole chunks, up to maxRequestBytes (or all to drop). */
  private takeBatch(): { chunks: EncodedBatch[]; bytes: number } {
    const { buffer } = this;
    let n = 0;
    let bytes = 0;
    if (this.dropping) while (n < buffer.length && this.taken + n < this.dropUpTo) bytes += buffer[n++]!.bytes;
    else
      while (n < buffer.length && (n === 0 || bytes + buffer[n]!.bytes <= this.options.maxRequestBytes))
        bytes += buffer[n++]!.bytes;
    const chunks = buffer.splice(0, n);
    this.bufferedBytes -= bytes;
    for (const chunk of chunks) this.bufferedUnits -= this.unitsOf(chunk);
    this.taken += n;
    // A remainder left by the size cap is as old as what just left: it is due at once.
    this.ageTimer?.unsubscribe();
    this.ageTimer = undefined;
    this.aged = buffer.length > 0;
    return { chunks, bytes };
  }

  private async sendLoop(): Promise<void> {
    this.sending = true;
    try {
      while (this.due()) {
        const { chunks, bytes } = this.takeBatch();
        const failure = await this.sendBatch(chunks);
        if (this.dropping && this.taken >= this.dropUpTo) this.dropping = undefined;
        this.core.settle(chunks.length, bytes, failure);
      }
    } finally {
      this.sending = false;
      if (this.buffer.length > 0) this.armAge();
    }
  }

  /** Delivers one batch; resolves to the error part of it was given up with, if any. */
  private async sendBatch(chunks: readonly EncodedBatch[]): Promise<Error | undefined> {
    if (this.dropping) return this.drop(eventsOf(chunks), 0);
    let requests: R[];
    try {
      requests = this.protocol.prepare(chunks);
    } catch (cause) {
      // A batch the protocol cannot frame fails alone.
      const error =
        cause instanceof SinkError
          ? cause
          : this.core.error(`cannot build a request: ${describeError(cause)}`, { cause });
      return this.core.failed(eventsOf(chunks), 0, error);
    }
    let failure: Error | undefined;
    for (const request of requests) failure = (await this.attempt(request)) ?? failure;
    return failure;
  }

  /**
   * Sends one request with retries; resolves to the error it was given up with, if any. A part the destination
   * said it stored is delivered at once: later attempts, the give-up and a cut count only the rest.
   */
  private async attempt(request: R): Promise<Error | undefined> {
    const { core } = this;
    let left = { size: request.size, bytes: request.bytes };
    for (let n = 1; ; n++) {
      if (this.dropping) return this.drop(left.size, left.bytes);
      try {
        const receipt = await new Promise<Receipt | void>((resolve, reject) => {
          // Once cut, the request's remainder is given up: a part acknowledged later cannot be delivered too.
          let cut = false;
          this.cut = (error) => {
            cut = true;
            reject(error);
          };
          const stored = (part: Stored): void => {
            if (cut) return;
            core.deliveredPart(part.size, part.bytes);
            left = { size: left.size - part.size, bytes: left.bytes - part.bytes };
          };
          this.protocol.send(request, stored).then(resolve, reject);
        });
        this.cut = undefined;
        // Marked as it is said: a warning whose request was cut (a flush out of time) was not, and the next one is.
        if (receipt?.warning && !this.warned) {
          this.warned = true;
          core.warn(receipt.warning);
        }
        if (!receipt?.error || !receipt.rejected || receipt.rejected <= 0) {
          this.refusals = 0;
          core.delivered(left.size, left.bytes, receipt?.written);
          return undefined;
        }
        // The refused events fail, the others are delivered; bytes are shared out by events.
        const rejected = Math.min(receipt.rejected, left.size);
        const refusedBytes = Math.round((left.bytes * rejected) / left.size);
        if (rejected < left.size) core.delivered(left.size - rejected, left.bytes - refusedBytes);
        return core.failed(rejected, refusedBytes, receipt.error, ++this.refusals);
      } catch (cause) {
        this.cut = undefined;
        const error =
          cause instanceof SinkError
            ? cause
            : core.error(`cannot send to ${this.options.target}: ${describeError(cause)}`, { cause, retryable: true });
        if (this.dropping) return this.drop(left.size, left.bytes);
        const next = core.nextAttempt(error, n, this.options.retry, this.options.random);
        if (typeof next !== 'number') return core.failed(left.size, left.bytes, next);
        await this.pause(next);
      }
    }
  }

  /** Gives up `size` events with the expired flush's error (the request in flight, then the chunks behind it). */
  private drop(size: number, bytes: number): Error {
    return this.core.failed(size, bytes, this.dropping!);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.options.scheduler.schedule(() => this.wake?.(), ms);
      this.wake = () => {
        timer.unsubscribe();
        this.wake = undefined;
        resolve();
      };
    });
  }
}

function eventsOf(chunks: readonly EncodedBatch[]): number {
  return chunks.reduce((n, c) => n + c.size, 0);
}
