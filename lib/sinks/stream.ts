import { finished } from 'node:stream/promises';
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
  // Writes whose callback has not run yet, i.e. not yet handed to the OS.
  let pending = 0;
  let drain: { promise: Promise<void>; waiter: Waiter } | undefined;
  let flushes: Waiter[] = [];
  let closing: Promise<void> | undefined;

  const settleFlushes = (): void => {
    const waiting = flushes;
    flushes = [];
    for (const w of waiting) {
      if (failure) w.reject(failure);
      else w.resolve();
    }
  };
  const fail = (error: Error): void => {
    if (failure) return;
    failure = new SinkError(name, `cannot write ${target}: ${error.message}`, { cause: error });
    stream.removeListener('drain', onDrain);
    drain?.waiter.reject(failure);
    drain = undefined;
    settleFlushes();
  };
  // One shared callback for every write: no closure per batch.
  const onWritten = (error?: Error | null): void => {
    pending--;
    if (error) fail(error);
    else if (pending === 0) settleFlushes();
  };
  const onDrain = (): void => {
    const waiter = drain?.waiter;
    drain = undefined;
    waiter?.resolve();
  };
  stream.on('error', fail);

  const flush = (): Promise<void> => {
    if (failure) return Promise.reject(failure);
    if (pending === 0) return Promise.resolve();
    return new Promise((resolve, reject) => flushes.push({ resolve, reject }));
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
    write(data: string): void | Promise<void> {
      if (failure) throw failure;
      if (closing) throw new SinkError(name, `cannot write ${target}: the sink is closed`);
      pending++;
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
