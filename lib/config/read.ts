/** Reading scenario and pack files: bounded in size, and refused when they are not UTF-8 text. */
import { open } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { MAX_TEXT_BYTES } from '../language/limits.js';
import { ConfigError } from '../language/problems.js';

/**
 * The text of the file at `path`, read up to {@link MAX_TEXT_BYTES} (a larger file is refused
 * without being read whole). `what` names the file in messages: `scenario file`, `pack file`.
 */
export async function readTextFile(path: string, what: string): Promise<string> {
  const unreadable = (message: string) => new ConfigError('unreadable', path, [{ path: '', message }]);
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      const stat = await file.stat();
      if (stat.isDirectory()) throw unreadable(`cannot read the ${what} (it is a directory)`);
      // Sized by the file, grown only when a read fills it (a file that grows meanwhile, or one
      // whose size reads 0), never past one byte over the limit: a small file costs a small buffer.
      let buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_TEXT_BYTES) + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, length, buffer.length - length);
        length += bytesRead;
        if (bytesRead === 0 || length > MAX_TEXT_BYTES) break;
        if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(buffer.length, MAX_TEXT_BYTES + 1 - buffer.length))]);
      }
      bytes = buffer.subarray(0, length);
    } finally {
      await file.close();
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(`cannot read the ${what} (${reasonOf(error as NodeJS.ErrnoException)})`);
  }
  if (bytes.length > MAX_TEXT_BYTES) throw unreadable(`the file is larger than ${MAX_TEXT_BYTES} bytes (1 MiB), the limit for a ${what}`);
  if (!isUtf8(bytes) || bytes.includes(0)) throw unreadable(`not a text file (it holds binary data): give a YAML or JSON ${what}`);
  return bytes.toString('utf8');
}

/** A system error in words, without its code and path. */
function reasonOf(error: NodeJS.ErrnoException): string {
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
