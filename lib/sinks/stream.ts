import { finished } from 'node:stream/promises';
import type { EncodedBatch } from '../../operators/batch.js';
import { SinkError, type Sink } from './sink.js';

export interface StreamSinkOptions {
  /** Sink name used in error messages (`file`, `stdout`). */
  readonly name: string;
  /** What is written to, as error messages say it after "cannot write " (a path, "to stdout"). */
  readonly target: string;
  readonly stream: NodeJS.WritableStream;
  /** Whether `close` ends the stream (never for process.stdout). */
  readonly end: boolean;
}

interface Waiter {
  resolve(): void;
  reject(error: SinkError): void;
}

/**
 * A {@link Sink} over a Node writable stream. Writes go straight to the stream while its buffer
 * is under its high-water mark; past it, `write` returns a promise settled by `'drain'`, so the
 * chain waits for the destination. The first stream error becomes a {@link SinkError}: it
 * rejects the pending drain and flush waits and is thrown by every later `write` and `flush`.
 * `close` flushes, ends the stream when `end` is set, and rejects if anything failed.
 */
export function streamSink({ name, target, stream, end }: StreamSinkOptions): Sink {
  let failure: SinkError | undefined;
  // Writes handed to the stream, and those whose callback ran (handed to the OS). A stream
  // runs write callbacks in write order, so `done` tells which writes are through.
  let issued = 0;
  let done = 0;
  let drain: { promise: Promise<void>; waiter: Waiter } | undefined;
  // Each flush waits for the writes issued before it only, in issue order.
  let flushes: (Waiter & { readonly upTo: number })[] = [];
  let closing: Promise<void> | undefined;

  const fail = (error: Error): void => {
    if (failure) return;
    failure = new SinkError(name, `cannot write ${target}: ${error.message}`, { cause: error });
    stream.removeListener('drain', onDrain);
    drain?.waiter.reject(failure);
    drain = undefined;
    for (const w of flushes) w.reject(failure);
    flushes = [];
  };
  // One shared callback for every write: no closure per batch.
  const onWritten = (error?: Error | null): void => {
    done++;
    if (error) return fail(error);
    while (flushes.length > 0 && flushes[0]!.upTo <= done) flushes.shift()!.resolve();
  };
  const onDrain = (): void => {
    const waiter = drain?.waiter;
    drain = undefined;
    waiter?.resolve();
  };
  stream.on('error', fail);

  const flush = (): Promise<void> => {
    if (failure) return Promise.reject(failure);
    if (done === issued) return Promise.resolve();
    return new Promise((resolve, reject) => flushes.push({ resolve, reject, upTo: issued }));
  };

  const release = async (): Promise<void> => {
    try {
      if (end && !failure) {
        stream.end();
        await finished(stream).catch(fail);
      }
    } finally {
      stream.removeListener('error', fail);
    }
    if (failure) throw failure;
  };

  return {
    write({ data }: EncodedBatch): void | Promise<void> {
      if (failure) throw failure;
      if (closing) throw new SinkError(name, `cannot write ${target}: the sink is closed`);
      issued++;
      if (stream.write(data, onWritten)) return undefined;
      if (!drain) {
        let waiter!: Waiter;
        const promise = new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
        drain = { promise, waiter };
        stream.once('drain', onDrain);
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
