import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { fileError } from './errors.js';
import type { Sink } from './sink.js';
import { streamSink } from './stream.js';

export interface FileSinkOptions {
  readonly path: string;
  /** Append to an existing file instead of truncating it. */
  readonly append?: boolean;
}

/** Buffer up to this many bytes before `write` makes the chain wait. */
const HIGH_WATER_MARK = 1 << 20;

/**
 * Sink writing to a file, truncated on open unless `append` is set. Up to about 1 MiB is
 * buffered in memory; past that `write` returns a promise resolving once the buffer drained.
 * `flush` resolves when every byte written so far was written to the file descriptor; `close`
 * flushes and closes the file. Failures to open or write (a missing directory, a full disk)
 * are sink failures naming the path and saying what is wrong, in words (see {@link fileError}).
 */
export function fileSink({ path, append = false }: FileSinkOptions): Sink {
  const stream = open(path, append);
  return streamSink({ name: 'file', target: path, stream, end: true, explain: (cause) => fileError(path, cause) });
}

/** The file's write stream; a path Node refuses at once gives a stream that fails with that error, as an open would. */
function open(path: string, append: boolean): Writable {
  try {
    return createWriteStream(path, { flags: append ? 'a' : 'w', highWaterMark: HIGH_WATER_MARK });
  } catch (cause) {
    return new Writable().destroy(cause as Error);
  }
}
