import type { SchedulerLike, Subscription } from 'rxjs';

interface Waiter {
  readonly upTo: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** The first failure among the units this waiter covers. */
  error?: Error;
}

/** When a sink counts as stalled: see {@link Settlement.stalled}. */
export interface StallWatch {
  /** Ms that pending units may go without any of them settling. */
  readonly after: number;
  readonly scheduler: SchedulerLike;
  /** Called when the sink becomes stalled (a writer held back by backpressure is let go here). */
  readonly onStall: () => void;
}

/**
 * Units of work (chunks, requests) a sink took and settles in the order it took them, so
 * that `flush` can wait for exactly the units taken before it, and reject when one of those
 * was given up. One instance per sink; no closure per unit.
 *
 * Given a {@link StallWatch}, it also tells when the destination stalled: units were pending
 * and none settled for `after` ms.
 */
export class Settlement {
  private issued = 0;
  private settled = 0;
  private waiters: Waiter[] = [];
  /** Since when the destination has settled nothing while units were pending. */
  private since = 0;
  private timer: Subscription | undefined;
  private isStalled = false;

  constructor(private readonly stall?: StallWatch) {}

  /** Units taken and not settled yet. */
  get pending(): number {
    return this.issued - this.settled;
  }

  /**
   * Whether units have been pending for the watch's `after` ms without any settling or {@link progress}: true
   * from then until the next unit settles (delivered or given up) or progresses.
   */
  get stalled(): boolean {
    return this.isStalled;
  }

  /** Records that `n` more units were taken. */
  issue(n = 1): void {
    if (this.pending === 0 && this.stall) this.since = this.stall.scheduler.now();
    this.issued += n;
    this.watch();
  }

  /**
   * The destination took part of a pending unit (a Kafka broker stored its share of a request): it is not
   * stalled, though the unit is not settled yet.
   */
  progress(): void {
    if (!this.stall) return;
    this.since = this.stall.scheduler.now();
    this.isStalled = false;
    this.watch();
  }

  /** Settles the next `n` units in order; `error` marks them given up. */
  settle(n: number, error?: Error): void {
    this.settled += n;
    this.progress();
    if (error) for (const w of this.waiters) w.error ??= error;
    while (this.waiters.length > 0 && this.waiters[0]!.upTo <= this.settled) {
      const w = this.waiters.shift()!;
      if (w.error) w.reject(w.error);
      else w.resolve();
    }
  }

  /** Settles every pending unit with `error` (the destination was released). */
  abandon(error: Error): void {
    if (this.pending > 0) this.settle(this.pending, error);
  }

  /** Resolves once every unit taken so far settled; rejects with the first failure among them. */
  flush(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ upTo: this.issued, resolve, reject }));
  }

  /** Keeps one timer while units are pending: it fires `after` ms past `since`, moved on lazily. */
  private watch(): void {
    const stall = this.stall;
    if (!stall) return;
    if (this.pending === 0) {
      this.timer?.unsubscribe();
      this.timer = undefined;
      return;
    }
    if (this.timer || this.isStalled) return;
    const check = (): void => {
      this.timer = undefined;
      if (this.pending === 0 || this.isStalled) return;
      if (stall.scheduler.now() - this.since < stall.after) {
        this.watch();
        return;
      }
      this.isStalled = true;
      stall.onStall();
    };
    this.timer = stall.scheduler.schedule(check, Math.max(0, this.since + stall.after - stall.scheduler.now()));
  }
}
