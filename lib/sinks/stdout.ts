import type { Sink } from '../../operators/deliver.js';
import { streamSink } from './core/stream-sink.js';

export interface StdoutSinkOptions {
  /** Where "stdout" is; process.stdout unless a test or embedder passes another stream. */
  readonly stream?: NodeJS.WritableStream;
  /** Written once when the last sink on the stream closes (see StreamSinkOptions). */
  readonly trailer?: string;
}

/**
 * Sink writing to standard output. `write` waits (returns a promise) when the stream asks for
 * it by returning false; `flush` resolves once the stream's buffer is empty; `close` flushes
 * but never ends the stream, which the process still owns.
 *
 * EPIPE is not a failure: the reader went away (`svc … | head`), nobody is left to miss the
 * data, and the run ends (lib/cli/run-scenario.ts), as Unix tools do. From then on what is
 * written is dropped: taken, never acknowledged, reported `dropped` (the STOPPED line's `dropped`), never
 * as a sink failure.
 */
export function stdoutSink({ stream = process.stdout, trailer }: StdoutSinkOptions = {}): Sink {
  return streamSink({
    name: 'stdout',
    target: 'to stdout',
    stream,
    trailer,
    readerGone: (cause) => (cause as NodeJS.ErrnoException).code === 'EPIPE',
  });
}
