import type { Delivery, WrittenCounts } from '../../operators/deliver.js';

/** The statistics record of one entry (spec: "Scenario statistics record"). */
export interface StatsRecord {
  total_events: number;
  bytes_emitted: number;
  current_rate: number;
  errors: number;
  /** Seconds since the entry started. */
  uptime: number;
  consecutive_failures: number;
  total_sink_failures: number;
  /** Events the sink gave up (dropped after its retries, refused, or cut at a stop): lost, and counted here. */
  dropped_events: number;
  last_sink_error: string | null;
  last_successful_write_at: string | null;
  /** Had sink failures and delivered nothing in the last {@link DEGRADED_AFTER_MS}. */
  degraded: boolean;
  /** Attempts the sink retried (a reconnect, a resent batch); nothing was lost by them yet. */
  sink_retries: number;
  /** What the sink warned of, once each (remote write 2.0 refused, 1.0 sent instead). */
  sink_warnings: string[];
  /** What the receiver says it wrote (remote write 2.0's response headers); null until one says so. */
  receiver_written: WrittenCounts | null;
  /**
   * Events the receiver took in a request and refused (OTLP partial success: rejected data points, log records
   * or spans); each such request is a sink failure too.
   */
  receiver_rejected: number;
  /**
   * Events due before the entry's duration that were never made: it fell behind a rate the machine or the sink
   * could not keep, and the shortfall was dropped at the duration (docs/timing.md).
   */
  missed_events: number;
}

/** No delivery for this long after sink failures makes an entry `degraded` (spec: 30 s). */
export const DEGRADED_AFTER_MS = 30_000;

/** How far back `current_rate` looks. */
const RATE_WINDOW_MS = 5000;

/**
 * Live counters of one entry, fed by its deliveries. Time is passed in by the caller (read
 * from the entry's scheduler), so the record is deterministic under virtual time.
 */
export class EntryStats {
  totalEvents = 0;
  bytes = 0;
  errors = 0;
  consecutiveFailures = 0;
  totalSinkFailures = 0;
  droppedEvents = 0;
  /** Events the sink acknowledged (written, for a sink that acknowledges nothing). */
  deliveredEvents = 0;
  lastSinkError: string | undefined;
  lastSuccessfulWriteAt: number | undefined;
  sinkRetries = 0;
  /** What the sink warned of, in order. */
  readonly sinkWarnings: string[] = [];
  /** Events a receiver refused in requests it took (partial success). */
  receiverRejected = 0;
  /** Requests a receiver took but refused some events of. */
  refusedRequests = 0;
  /** Streaks of such requests begun (one request wholly taken ends a streak), and the error that began the last. */
  refusalStreaks = 0;
  lastRefusal: string | undefined;
  /** Events due before the duration that were never made (the rate was not kept). */
  missedEvents = 0;
  /**
   * Scheduled time (ms after the entry start) of the latest slot its timer emitted; -1 before the first. A backfill's
   * timer runs ahead of its virtual clock, so this, not the clock, says how far its timestamps reached.
   */
  slotsThrough = -1;
  /** Sums of what the receiver said it wrote; undefined until it said so. */
  receiverWritten: { samples: number; histograms: number; exemplars: number } | undefined;
  /** Samples of the total for `current_rate`. */
  private readonly recent = new RateWindow();
  /** When the entry ended (its sink closed); undefined while it runs. */
  private endedAt: number | undefined;

  /** @param startedAt when the entry started; a `--workers` run moves it to the instant its workers start at, once all are ready. */
  constructor(public startedAt: number) {}

  /** Marks the entry ended at `now`: its record no longer moves with the clock (see {@link asOf}). */
  end(now: number): void {
    this.endedAt ??= now;
  }

  /**
   * The instant the record is read at: `now` while the entry runs, its end once it ended. An ended entry's
   * `uptime`, `current_rate` and `degraded` stay as they were at its end, rather than growing (uptime) or
   * decaying (the rate, over an ever longer span) as long as it stays listed.
   */
  asOf(now: number): number {
    return this.endedAt === undefined ? now : Math.min(now, this.endedAt);
  }

  /**
   * Counts one outcome of the sink subscriber: written chunks add events and bytes (buffered
   * ones included), acknowledgements reset `consecutive_failures` and move
   * `last_successful_write_at`, failures are counted.
   */
  record(delivery: Delivery, now: number): void {
    switch (delivery.kind) {
      case 'written':
        this.totalEvents += delivery.size;
        this.bytes += delivery.bytes;
        this.sample(now);
        return;
      case 'delivered':
        this.deliveredEvents += delivery.size;
        this.consecutiveFailures = 0;
        this.lastSuccessfulWriteAt = now;
        if (delivery.written) this.addWritten(delivery.written);
        return;
      case 'failed':
        this.errors++;
        this.consecutiveFailures++;
        this.totalSinkFailures++;
        this.droppedEvents += delivery.size;
        this.lastSinkError = delivery.error.message;
        if (delivery.refusal !== undefined) this.addRefusal(delivery.size, delivery.refusal, delivery.error.message);
        return;
      case 'dropped':
        this.droppedEvents += delivery.size;
        return;
      case 'retrying':
        this.sinkRetries++;
        return;
      case 'warning':
        this.sinkWarnings.push(delivery.message);
        return;
    }
  }

  /** A chunk the sink wrote with `bytes` more bytes (negative: fewer) than it was given: `bytes_emitted` counts those written. */
  resized(bytes: number): void {
    this.bytes += bytes;
  }

  private addRefusal(events: number, inARow: number, message: string): void {
    this.receiverRejected += events;
    this.refusedRequests++;
    if (inARow !== 1) return;
    this.refusalStreaks++;
    this.lastRefusal = message;
  }

  private addWritten({ samples, histograms, exemplars }: WrittenCounts): void {
    const sums = (this.receiverWritten ??= { samples: 0, histograms: 0, exemplars: 0 });
    sums.samples += samples;
    sums.histograms += histograms;
    sums.exemplars += exemplars;
  }

  /**
   * True when the entry had sink failures and nothing was delivered for
   * {@link DEGRADED_AFTER_MS}, counted from the last delivery (or from the start when nothing
   * was ever delivered). `now` is passed in: the rule never reads the clock itself; an ended entry is judged at its end.
   */
  degraded(now: number): boolean {
    const at = this.asOf(now);
    return this.totalSinkFailures > 0 && at - (this.lastSuccessfulWriteAt ?? this.startedAt) >= DEGRADED_AFTER_MS;
  }

  /** Events written to the sink that it has neither delivered nor given up: what a flush still has to settle. */
  heldEvents(): number {
    return Math.max(0, this.totalEvents - this.deliveredEvents - this.droppedEvents);
  }

  /**
   * True when sink errors let nothing through: failures, and no delivery ever. A CLI run with
   * such an entry exits 1 whatever `on_sink_error` says (design.md §4).
   */
  neverDelivered(): boolean {
    return this.totalSinkFailures > 0 && this.lastSuccessfulWriteAt === undefined;
  }

  /**
   * Events per second over the last few seconds; 0 until two writes (or a write and a later reading) span
   * some time.
   */
  currentRate(now: number): number {
    if (this.recent.empty) return 0;
    this.sample(now);
    const span = now - this.recent.oldestTime;
    return span > 0 ? ((this.totalEvents - this.recent.oldestTotal) * 1000) / span : 0;
  }

  /** The record at `readAt`, or at the entry's end once it ended ({@link asOf}). */
  snapshot(readAt: number): StatsRecord {
    const now = this.asOf(readAt);
    return {
      total_events: this.totalEvents,
      bytes_emitted: this.bytes,
      current_rate: this.currentRate(now),
      errors: this.errors,
      uptime: (now - this.startedAt) / 1000,
      consecutive_failures: this.consecutiveFailures,
      total_sink_failures: this.totalSinkFailures,
      dropped_events: this.droppedEvents,
      last_sink_error: this.lastSinkError ?? null,
      last_successful_write_at:
        this.lastSuccessfulWriteAt === undefined ? null : new Date(this.lastSuccessfulWriteAt).toISOString(),
      degraded: this.degraded(now),
      sink_retries: this.sinkRetries,
      sink_warnings: [...this.sinkWarnings],
      receiver_written: this.receiverWritten ? { ...this.receiverWritten } : null,
      receiver_rejected: this.receiverRejected,
      missed_events: this.missedEvents,
    };
  }

  private sample(now: number): void {
    this.recent.sample(now, this.totalEvents);
  }
}

/** Samples at least this far apart (ms) are kept: a window holds at most 20 of them, and the one before. */
const SAMPLE_SPACING_MS = RATE_WINDOW_MS / 20;
/** Room for every sample a window keeps, the one before it and the one being added. */
const WINDOW_SAMPLES = 24;

/**
 * (time, total events as of that time) samples of the last rate window, oldest first; the first one taken at the
 * first write. A rate counts the events after its oldest sample: events written at the instant it was taken are
 * before the window (2 ticks per second are 2/s, not 3/s over the first second). The samples are kept in place in a
 * ring of numbers, not as an array a sample: ten thousand entries writing once a second would otherwise make as
 * many arrays a second, each living the window's 5 s, long enough to be promoted to the old generation.
 */
class RateWindow {
  /** Time and total of each sample, in pairs, from slot `first` on, `count` of them, wrapping round. */
  // Numbers kept unboxed in the array itself (a typed array would add its buffer, allocated outside the heap).
  private readonly samples: number[] = new Array<number>(2 * WINDOW_SAMPLES).fill(Number.NaN);
  private first = 0;
  private count = 0;

  get empty(): boolean {
    return this.count === 0;
  }

  get oldestTime(): number {
    return this.samples[2 * this.first]!;
  }

  get oldestTotal(): number {
    return this.samples[2 * this.first + 1]!;
  }

  /** Takes the total `total` at `now`: a new sample, or the latest moved on when it is too recent. */
  sample(now: number, total: number): void {
    const { samples } = this;
    const last = this.count > 0 ? this.slot(this.count - 1) : -1;
    if (last >= 0 && samples[2 * last] === now) samples[2 * last + 1] = total;
    else if (last < 0 || now - samples[2 * last]! >= SAMPLE_SPACING_MS) {
      if (this.count === WINDOW_SAMPLES) this.dropOldest();
      const slot = this.slot(this.count++);
      samples[2 * slot] = now;
      samples[2 * slot + 1] = total;
    }
    // The oldest kept is the last one before the window: a rate spans the whole window.
    while (this.count > 2 && now - samples[2 * this.slot(1)]! >= RATE_WINDOW_MS) this.dropOldest();
  }

  /** The ring slot of the `n`th sample kept, 0 the oldest. */
  private slot(n: number): number {
    return (this.first + n) % WINDOW_SAMPLES;
  }

  private dropOldest(): void {
    this.first = this.slot(1);
    this.count--;
  }
}
