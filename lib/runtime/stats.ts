import type { Delivery } from '../../operators/deliver.js';

/** The statistics record of one entry (spec: "Scenario statistics record"). */
export interface StatsRecord {
  total_events: number;
  bytes_emitted: number;
  current_rate: number;
  errors: number;
  uptime_ms: number;
  consecutive_failures: number;
  total_sink_failures: number;
  last_sink_error: string | null;
  last_successful_write_at: string | null;
}

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
  lastSinkError: string | undefined;
  lastSuccessfulWriteAt: number | undefined;
  /** (time, total events) samples of the last rate window, oldest first. */
  private readonly recent: [number, number][] = [];

  constructor(readonly startedAt: number) {
    this.recent.push([startedAt, 0]);
  }

  record(delivery: Delivery, now: number): void {
    if (delivery.error) {
      this.errors++;
      this.consecutiveFailures++;
      this.totalSinkFailures++;
      this.lastSinkError = delivery.error.message;
      return;
    }
    this.totalEvents += delivery.size;
    this.bytes += delivery.bytes;
    this.consecutiveFailures = 0;
    this.lastSuccessfulWriteAt = now;
    this.sample(now);
  }

  /** Events per second over the last few seconds. */
  currentRate(now: number): number {
    this.sample(now);
    const [since, eventsThen] = this.recent[0]!;
    const span = now - since;
    return span > 0 ? ((this.totalEvents - eventsThen) * 1000) / span : 0;
  }

  snapshot(now: number): StatsRecord {
    return {
      total_events: this.totalEvents,
      bytes_emitted: this.bytes,
      current_rate: this.currentRate(now),
      errors: this.errors,
      uptime_ms: now - this.startedAt,
      consecutive_failures: this.consecutiveFailures,
      total_sink_failures: this.totalSinkFailures,
      last_sink_error: this.lastSinkError ?? null,
      last_successful_write_at:
        this.lastSuccessfulWriteAt === undefined ? null : new Date(this.lastSuccessfulWriteAt).toISOString(),
    };
  }

  private sample(now: number): void {
    const last = this.recent[this.recent.length - 1]!;
    if (now - last[0] >= RATE_WINDOW_MS / 20) this.recent.push([now, this.totalEvents]);
    while (this.recent.length > 2 && now - this.recent[1]![0] >= RATE_WINDOW_MS) this.recent.shift();
  }
}
