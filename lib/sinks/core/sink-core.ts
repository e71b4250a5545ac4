import { Subject, type SchedulerLike } from 'rxjs';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { Sink, SinkReport, WrittenCounts } from '../../../operators/deliver.js';
import { SinkError } from './errors.js';
import { Settlement } from './settlement.js';
import { SpaceWait } from './space-wait.js';
import { backoff, type RetryPolicy } from './retry.js';
import { MAX_BACKOFF_MS } from '../../language/limits.js';
import { formatMs } from '../../format.js';

/**
 * What a sink kind supplies to {@link SinkCore}: how chunks reach its destination. The core has
 * counted a chunk as held before `send` sees it; the driver tells the core when chunks
 * settled ({@link SinkCore.delivered}, {@link SinkCore.failed}, {@link SinkCore.settle}).
 */
export interface SinkDriver {
  /** Hands one chunk (`chunk.bytes` bytes) on towards the destination (connecting if need be). */
  send(chunk: EncodedBatch): void;
  /** Whether the chain may write more; default: fewer held bytes than the core's `highWaterMark`. */
  hasRoom?(): boolean;
  /** A flush began: push out what is buffered. */
  flush?(): void;
  /** A flush ran out of time with data held: give it all up with `error` (cut what is in flight). */
  expire?(error: SinkError): void;
  /** Lets the destination go once the sink is closed and flushed (its rejection is the close's). */
  release(): void | Promise<void>;
}

/** How a destination that answers nothing is described (tcp "takes data", HTTP "acknowledges"). */
export interface SilenceWording {
  /** `<target> <expired> within N s of the flush`: "took nothing". */
  readonly expired: string;
  /**
   * `<target>: N events were <partly> since the flush began, but not the rest within N s`, when some were settled
   * since it began (written before it or after): "taken".
   */
  readonly partly: string;
  /** `<target> <stalled> for N s (…)`: "has taken no data". */
  readonly stalled: string;
  /** Why, when no error was seen: "is the endpoint overloaded or stuck?". */
  readonly quiet: string;
  /** `new events are dropped until it <resumes>`: "takes data again". */
  readonly resumes: string;
}

/** What a flush has not got settled after this long (ms) is given up (docs/sinks.md "Stalls"). */
export const DEFAULT_FLUSH_TIMEOUT = 10_000;

export interface SinkCoreOptions {
  /** Sink name: the prefix of every message. */
  readonly name: string;
  /** The destination as messages say it (a path, `host:port`, a URL without credentials). */
  readonly target: string;
  /** Detail of the error a write after `close` throws: "cannot write to <target>: the sink is closed". */
  readonly closedDetail: string;
  /** Held bytes past which `write` makes the chain wait (unless the driver says `hasRoom`). */
  readonly highWaterMark: number;
  /**
   * Flush deadline and stall rule (docs/sinks.md "Stalls: bounded catch-up"): what a flush has
   * not got settled after `flushTimeout` ms is given up, and a destination that settles nothing
   * for that long while data waits is stalled. Absent: no deadline, no stall watch.
   */
  readonly silence?: {
    readonly flushTimeout: number;
    readonly scheduler: SchedulerLike;
    readonly wording: SilenceWording;
  };
}

/**
 * The lifecycle every sink shares, written once: the `reports` subject, the {@link Settlement}
 * of the chunks taken (flush waits for exactly those), the backpressure wait, the guard against
 * writes after `close`, the flush deadline and stall rule, the wording of give-ups, and the
 * error policy (a {@link fail}ed sink refuses every later write). Each sink kind supplies only its
 * {@link SinkDriver}.
 */
export class SinkCore implements Sink {
  readonly reports = new Subject<SinkReport>();
  /** The last failure seen since data was last settled, for the stall and give-up messages. */
  lastError: SinkError | undefined;
  /**
   * The wait (ms) the destination asked for before the next attempt, when svc waits it, and when (its timers' time)
   * that attempt is sent; undefined once an attempt is answered. Only the silence rule's messages say it.
   */
  private waitAsked: { readonly ms: number; readonly ends: number } | undefined;
  /** Bytes taken and not settled yet. */
  private held = 0;
  /** Events delivered since the sink began: an expired flush tells how many arrived since it began. */
  private deliveredEvents = 0;
  private readonly settlement: Settlement;
  private readonly space = new SpaceWait();
  private driver!: SinkDriver;
  private closing: Promise<void> | undefined;
  /** Set by {@link fail}: every later write and flush fails with it. */
  private failure: SinkError | undefined;

  constructor(private readonly options: SinkCoreOptions) {
    const silence = options.silence;
    // Stalled: let the writer held back by backpressure go; write drops from then on.
    this.settlement = new Settlement(
      silence && { after: silence.flushTimeout, scheduler: silence.scheduler, onStall: () => this.space.release(true) },
    );
  }

  /** Connects the core to its driver (once, before the first write). */
  attach(driver: SinkDriver): this {
    this.driver = driver;
    return this;
  }

  /** A {@link SinkError} of this sink. */
  error(detail: string, options?: { cause?: unknown; retryable?: boolean; lasting?: boolean }): SinkError {
    return new SinkError(this.options.name, detail, options);
  }

  write = (chunk: EncodedBatch): void | Promise<void> => {
    if (this.failure) throw this.failure;
    if (this.closing) throw this.error(this.options.closedDetail);
    const { bytes } = chunk;
    if (this.settlement.stalled) {
      this.reports.next({ kind: 'failed', size: chunk.size, bytes, error: this.stalledError() });
      return undefined;
    }
    this.held += bytes;
    this.settlement.issue();
    this.driver.send(chunk);
    return this.hasRoom() ? undefined : this.space.wait();
  };

  /** The destination acknowledged `size` events in `bytes` bytes, saying it wrote `written` when it says so. */
  delivered(size: number, bytes: number, written?: WrittenCounts): void {
    this.lastError = undefined;
    this.waitAsked = undefined;
    this.deliveredEvents += size;
    this.reports.next(written ? { kind: 'delivered', size, bytes, written } : { kind: 'delivered', size, bytes });
  }

  /**
   * The destination stored `size` events (`bytes` bytes) of a chunk still held, the rest of it pending: delivered,
   * and progress for the stall rule.
   */
  deliveredPart(size: number, bytes: number): void {
    this.settlement.progress();
    this.delivered(size, bytes);
  }

  /** Something the user should know of how delivery goes, that loses nothing. */
  warn(message: string): void {
    this.reports.next({ kind: 'warning', message });
  }

  /**
   * `size` events in `bytes` bytes were given up with `error`; `refusal`: the receiver took the request and
   * refused these, the how-manieth request in a row (see SinkReport).
   */
  failed(size: number, bytes: number, error: Error, refusal?: number): Error {
    this.reports.next(
      refusal === undefined ? { kind: 'failed', size, bytes, error } : { kind: 'failed', size, bytes, error, refusal },
    );
    return error;
  }

  /** The next `units` chunks taken (`size` events, `bytes` bytes) given up with no failure: nobody is left to take them. */
  settleDropped(units: number, size: number, bytes: number): void {
    if (size > 0) this.reports.next({ kind: 'dropped', size, bytes });
    this.settle(units, bytes);
  }

  /**
   * After attempt `attempt` failed with `error`: the delay before the next one, reported as
   * `retrying`; or, when the error is final or no attempt is left, the error to give up with.
   */
  nextAttempt(
    error: SinkError,
    attempt: number,
    retry: RetryPolicy,
    random: () => number = Math.random,
  ): number | SinkError {
    this.lastError = error;
    this.waitAsked = undefined;
    if (!error.retryable || attempt >= retry.maxAttempts) {
      return attempt > 1 ? this.error(`${error.detail} (gave up after ${attempt} attempts)`, { cause: error }) : error;
    }
    // A wait the destination asked for is honoured, up to the longest backoff svc allows.
    const asked = error.retryAfter ?? 0;
    const delay = Math.max(backoff(retry, attempt, random), Math.min(asked, MAX_BACKOFF_MS));
    const silence = this.options.silence;
    if (silence && asked > 0 && delay <= asked) this.waitAsked = { ms: asked, ends: silence.scheduler.now() + delay };
    this.reports.next({ kind: 'retrying', attempt, delay, error });
    return delay;
  }

  /** The next `units` chunks taken (`bytes` bytes) settled; `error` marks them given up. */
  settle(units: number, bytes: number, error?: Error): void {
    this.held -= bytes;
    this.settlement.settle(units, error);
    this.wakeWriter();
  }

  /** Lets a writer held back by backpressure go once there is room again. */
  wakeWriter(): void {
    this.space.release(this.hasRoom());
  }

  /**
   * The destination failed for good: `error` (made {@link SinkError.lasting}) is reported for the `size`
   * events (`bytes` bytes) still held, rejects the backpressure and flush waits, and every later write and
   * flush.
   */
  fail(failure: SinkError, size: number, bytes: number): void {
    if (this.failure) return;
    const error = this.error(failure.detail, { cause: failure.cause, lasting: true });
    this.failure = error;
    if (this.settlement.pending > 0) this.failed(size, bytes, error);
    this.held = 0;
    this.space.fail(error);
    this.settlement.abandon(error);
  }

  /** The error the sink failed with ({@link fail}), if any. */
  get failedWith(): SinkError | undefined {
    return this.failure;
  }

  flush = (): Promise<void> => {
    if (this.failure) return Promise.reject(this.failure);
    const before = this.deliveredEvents;
    const done = this.settlement.flush(); // before the driver's flush: a batch can settle synchronously
    this.driver.flush?.();
    const silence = this.options.silence;
    if (silence && this.settlement.pending > 0) {
      const timer = silence.scheduler.schedule(
        () => this.expire(silence.flushTimeout, this.deliveredEvents - before),
        silence.flushTimeout,
      );
      const stop = () => timer.unsubscribe();
      done.then(stop, stop);
    }
    return done;
  };

  close = (): Promise<void> => {
    this.closing ??= this.flush().then(
      () => this.release(undefined),
      (error: unknown) => this.release(error),
    );
    return this.closing;
  };

  private async release(flushError: unknown): Promise<void> {
    try {
      await this.driver.release();
    } finally {
      this.reports.complete();
    }
    const error = flushError ?? this.failure;
    if (error) throw error;
  }

  private hasRoom(): boolean {
    return this.driver.hasRoom?.() ?? this.held < this.options.highWaterMark;
  }

  /** Gives up what a flush has not got settled `flushTimeout` ms after it began, `delivered` events having arrived. */
  private expire(flushTimeout: number, delivered: number): void {
    if (this.settlement.pending === 0) return;
    const { target, silence } = this.options;
    const last = this.lastError ? ` (last error: ${this.lastErrorWords(this.lastError)})` : '';
    const within = `within ${flushTimeout / 1000} s of the flush`;
    // A Kafka send whose other broker stored its share, or a batch's first requests, did arrive: "nothing" would lie.
    // They are counted since the flush began, events written after it included: not a share of what it waited for.
    const what =
      delivered > 0
        ? `${target}: ${delivered} event${delivered === 1 ? ' was' : 's were'} ${silence!.wording.partly} since the flush began, but not the rest ${within}`
        : `${target} ${silence!.wording.expired} ${within}`;
    const detail = `${what}; the data still held was dropped${last}`;
    this.driver.expire?.(this.error(detail, { cause: this.lastError }));
  }

  /**
   * The last error as the stall and give-up messages repeat it, with the wait its destination asked for when svc
   * waits it: a sink told to come back in an hour sends nothing meanwhile, even to a destination that recovered,
   * where its stall message said only that new events are dropped "until it answers again". Once the wait is over,
   * the attempt after it is out and unanswered (an answer forgets the wait), and the message says so.
   */
  private lastErrorWords(error: SinkError): string {
    const wait = this.waitAsked;
    if (wait === undefined) return error.detail;
    const asked = `${error.detail}; it asked for a wait of ${formatMs(wait.ms)} before the next attempt`;
    const longest = `${formatMs(MAX_BACKOFF_MS)} (its longest backoff)`;
    const capped = wait.ms > MAX_BACKOFF_MS;
    if (this.options.silence!.scheduler.now() >= wait.ends)
      return `${asked}, which svc sent ${capped ? `after ${longest}` : 'then'} and has had no answer to since`;
    return `${asked}${capped ? `: svc waits ${longest} and` : ', and svc'} sends nothing to it until then`;
  }

  /** The failure of a chunk written while stalled, saying the last error seen. */
  private stalledError(): SinkError {
    const { target, silence } = this.options;
    const { flushTimeout, wording } = silence!;
    const why = this.lastError ? `last error: ${this.lastErrorWords(this.lastError)}` : wording.quiet;
    return this.error(
      `${target} ${wording.stalled} for ${flushTimeout / 1000} s (${why}): new events are dropped until it ${wording.resumes}`,
      {
        cause: this.lastError,
      },
    );
  }
}
