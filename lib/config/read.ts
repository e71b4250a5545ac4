/**
 * Reading scenario and pack texts, from a file or from standard input (`svc run -`): one reader,
 * bounded in size, that refuses what is not UTF-8 text (binary data, or text in another encoding, named apart).
 */
import { createReadStream, fstatSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { MAX_TEXT_BYTES } from '../language/limits.js';
import { ConfigError } from '../language/problems.js';

/** Where a text is read from: a file path, or a stream (standard input) and its name in messages. */
export type TextSource = string | { readonly stream: Readable; readonly origin: string };

/** Names the source in messages: the path, or the stream's name. */
export function originOf(source: TextSource): string {
  return typeof source === 'string' ? source : source.origin;
}

/**
 * The text of the file `source`, from its path or a stream, read up to `limit` bytes (default
 * {@link MAX_TEXT_BYTES}): a larger one is refused as soon as it is past the limit, without being read whole.
 * `what` names the file in messages: `scenario file`, `pack file`; `format` what it should hold.
 */
export async function readTextFile(
  source: TextSource,
  what: string,
  limit = MAX_TEXT_BYTES,
  format = 'YAML or JSON',
): Promise<string> {
  const origin = originOf(source);
  const stream = typeof source === 'string' ? createReadStream(source) : source.stream;
  const unreadable = (message: string) => new ConfigError('unreadable', origin, [{ path: '', message }]);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    // Node reads a directory given as standard input (`svc run - < dir`) as an empty stream.
    if (typeof source !== 'string' && isDirectory(source.stream))
      throw unreadable(`cannot read the ${what} (it is a directory)`);
    // Leaving the loop early destroys the stream (and closes a file).
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      length += bytes.length;
      if (length > limit)
        throw unreadable(
          `the text is larger than ${limit} bytes (${limit / 1024 / 1024} MiB), the limit for a ${what}`,
        );
      chunks.push(bytes);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(`cannot read the ${what} (${reasonOf(error as NodeJS.ErrnoException)})`);
  }
  const bytes = Buffer.concat(chunks, length);
  if (bytes.includes(0)) throw unreadable(`not a text file (it holds binary data): give a ${format} ${what}`);
  // Text in another encoding (a Latin-1 log) is no binary file: say where it is not UTF-8, and how to convert it.
  if (!isUtf8(bytes))
    throw unreadable(
      `not UTF-8 text (line ${firstNonUtf8Line(bytes)} is not: in another encoding, such as Latin-1? iconv -f latin1 -t utf-8 converts that): give a ${format} ${what}`,
    );
  return bytes.toString('utf8');
}

/** The number of the first line that is not UTF-8 (a line feed is never part of a UTF-8 character). */
function firstNonUtf8Line(bytes: Buffer): number {
  let line = 1;
  for (let start = 0; ; line++) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end < 0 ? bytes.length : end)) || end < 0) return line;
    start = end + 1;
  }
}

/** Whether the stream reads a descriptor that is a directory. */
function isDirectory(stream: Readable): boolean {
  const { fd } = stream as { fd?: unknown };
  return typeof fd === 'number' && fstatSync(fd).isDirectory();
}

/** A system error of reading a file in words, without its code and path. */
export function reasonOf(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return error.code ?? error.message;
  }
}
