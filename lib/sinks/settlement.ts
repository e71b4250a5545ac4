interface Waiter {
  readonly upTo: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** The first failure among the units this waiter covers. */
  error?: Error;
}

/**
 * Units of work (chunks, requests) a sink took and settles in the order it took them, so
 * that `flush` can wait for exactly the units taken before it, and reject when one of those
 * was given up. One instance per sink; no closure per unit.
 */
export class Settlement {
  private issued = 0;
  private settled = 0;
  private waiters: Waiter[] = [];

  /** Units taken and not settled yet. */
  get pending(): number {
    return this.issued - this.settled;
  }

  /** Records that `n` more units were taken. */
  issue(n = 1): void {
    this.issued += n;
  }

  /** Settles the next `n` units in order; `error` marks them given up. */
  settle(n: number, error?: Error): void {
    this.settled += n;
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
}
