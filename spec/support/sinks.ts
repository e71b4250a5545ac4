import { Subject } from 'rxjs';
import type { Sink, SinkReport } from '../../operators/deliver.js';
import type { EncodedBatch } from '../../operators/model/batch.js';

/** A sink that keeps what it is given; `hold()` makes the next writes wait until `release()`. */
export class MemorySink implements Sink {
  readonly chunks: string[] = [];
  flushes = 0;
  /** How many times `close` was called. */
  closes = 0;
  failWith: Error | undefined;
  private holding = false;
  private waiting: (() => void)[] = [];

  get closed(): boolean {
    return this.closes > 0;
  }

  get text(): string {
    return this.chunks.join('');
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const resume of this.waiting.splice(0)) resume();
  }

  write({ data }: EncodedBatch): void | Promise<void> {
    if (this.failWith) throw this.failWith;
    this.chunks.push(typeof data === 'string' ? data : Buffer.from(data).toString());
    if (this.holding) return new Promise((resolve) => this.waiting.push(resolve));
  }

  async flush(): Promise<void> {
    this.flushes++;
  }

  /** Flushes, then closes, as a sink's close does. */
  async close(): Promise<void> {
    this.closes++;
    await this.flush();
  }
}

/** A sink whose close (a stop's last flush) waits for `finish()`; `closing` settles once the close began. */
export class HeldCloseSink extends MemorySink {
  private began!: () => void;
  readonly closing = new Promise<void>((resolve) => (this.began = resolve));
  private finished!: () => void;
  private readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  finish(): void {
    this.finished();
  }

  override async close(): Promise<void> {
    this.began();
    await this.done;
    await super.close();
  }
}

/** A {@link MemorySink} that acknowledges later, through `reports`, as a network sink does. */
export class ReportingSink extends MemorySink {
  readonly reports = new Subject<SinkReport>();
  /** When set, `flush` rejects with it (as a sink does after giving up data). */
  flushError: Error | undefined;

  override async flush(): Promise<void> {
    this.flushes++;
    if (this.flushError) throw this.flushError;
  }
}
