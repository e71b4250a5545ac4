import type { Sink } from './sink.js';
import { streamSink } from './stream.js';

export interface StdoutSinkOptions {
  /** Where "stdout" is; process.stdout unless a test or embedder passes another stream. */
  readonly stream?: NodeJS.WritableStream;
}

/**
 * Sink writing to standard output. `write` waits (returns a promise) when the stream asks for
 * it by returning false; `flush` resolves once the stream's buffer is empty; `close` flushes
 * but never ends the stream, which the process still owns.
 */
export function stdoutSink({ stream = process.stdout }: StdoutSinkOptions = {}): Sink {
  return streamSink({ name: 'stdout', target: 'to stdout', stream, end: false });
}
