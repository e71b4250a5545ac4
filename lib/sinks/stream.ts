import { finished } from 'node:stream/promises';
import { Subject } from 'rxjs';
import { byteLength, type EncodedBatch } from '../../operators/batch.js';
import { SinkError, type Sink, type SinkReport } from './sink.js';
import { describeError } from './errors.js';
import { Settlement } from './settlement.js';
import { streamEvents } from './stream-events.js';

export interface StreamSinkOptions {
  /** Sink name used in error messages (`file`, `stdout`). */
  readonly name: string;
  /** What is written to, as error messages say it after "cannot write " (a path, "to stdout"). */
  readonly target: string;
  readonly stream: NodeJS.WritableStream;
  /** Whether `close` ends the stream (never for process.stdout). */
  readonly end: boolean;
  /** The failure a stream error means, in words; default `cannot write <target>: <what the OS said>`. */
  readonly explain?: (cause: Error) => SinkError;
}

interface Waiter {
  resolve(): void;
  reject(error: SinkError): void;
}

/**
 * A {@link Sink} over a Node writable stream. Writes go straight to the stream while its buffer
 * is under its high-water mark; past it, `write` returns a promise settled by `'drain'`, so the
 * chain waits for the destination. A write counts as delivered (reported on `reports`) when the
 * stream hands it to the OS, i.e. when its write callback runs.
 *
 * The first stream error becomes a {@link SinkError}: the chunks still in the stream are
 * reported `failed` with it, it rejects the pending drain and flush waits and `flush` rejects
 * with it from then on; every later `write` throws an error with the same words, so each
 * dropped chunk counts as a failure. `close` flushes, ends the stream when `end` is set, and
 * rejects if anything failed.
 */
export function streamSink({ name, target, stream, end, explain }: StreamSinkOptions): Sink {
  const reports = new Subject<SinkReport>();
  const settlement = new Settlement();
  let failure: SinkError | undefined;
  // Events and bytes of each write still in the stream, in write order (the stream runs
  // write callbacks in that order): what the next callback acknowledges.
  const inFlight: number[] = [];
  let head = 0;
  let drain: { promise: Promise<void>; waiter: Waiter; cancel: () => void } | undefined;
  const events = streamEvents(stream);
  let closing: Promise<void> | undefined;

  const fail = (error: Error): void => {
    if (failure) return;
    failure = explain?.(error) ?? new SinkError(name, `cannot write ${target}: ${describeError(error)}`, { cause: error });
    let size = 0;
    let bytes = 0;
    for (let i = head; i < inFlight.length; i += 2) {
      size += inFlight[i]!;
      bytes += inFlight[i + 1]!;
    }
    if (inFlight.length > head) reports.next({ kind: 'failed', size, bytes, error: failure });
    inFlight.length = head = 0;
    drain?.cancel();
    drain?.waiter.reject(failure);
    drain = undefined;
    settlement.abandon(failure);
  };
  // One shared callback for every write: no closure per batch.
  const onWritten = (error?: Error | null): void => {
    if (failure) return; // already reported with the chunks still in the stream
    if (error) return fail(error);
    const size = inFlight[head]!;
    const bytes = inFlight[head + 1]!;
    head += 2;
    if (head === inFlight.length) inFlight.length = head = 0;
    reports.next({ kind: 'delivered', size, bytes });
    settlement.settle(1);
  };
  const onDrain = (): void => {
    const waiter = drain?.waiter;
    drain = undefined;
    waiter?.resolve();
  };
  const stopListening = events.onError(fail);

  const flush = (): Promise<void> => (failure ? Promise.reject(failure) : settlement.flush());

  const release = async (): Promise<void> => {
    try {
      if (end && !failure) {
        stream.end();
        await finished(stream).catch(fail);
      }
    } finally {
      stopListening();
      reports.complete();
    }
    if (failure) throw failure;
  };

  return {
    reports,
    write({ size, data }: EncodedBatch): void | Promise<void> {
      // A new error object each time: the reported one is counted once, each dropped chunk once more.
      if (failure) throw new SinkError(name, failure.detail, { cause: failure.cause });
      if (closing) throw new SinkError(name, `cannot write ${target}: the sink is closed`);
      settlement.issue();
      inFlight.push(size, byteLength(data));
      if (stream.write(data, onWritten)) return undefined;
      if (!drain) {
        let waiter!: Waiter;
        const promise = new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
        drain = { promise, waiter, cancel: events.onceDrain(onDrain) };
      }
      return drain.promise;
    },
    flush,
    close(): Promise<void> {
      // A failed flush leaves `failure` set: release skips ending the stream and rethrows it.
      closing ??= flush().then(release, release);
      return closing;
    },
  };
}
