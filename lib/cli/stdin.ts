import type { Readable } from 'node:stream';
import { ConfigError } from '../language/problems.js';

/** The most a scenario read from standard input may hold: the text is parsed whole. */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** The text of `stdin` (`svc run -`), refused past {@link MAX_STDIN_BYTES} before it is all held. */
export async function readStdin(stdin: Readable, origin: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) {
      stdin.destroy();
      throw new ConfigError('unreadable', origin, [{ path: '', message: `more than ${MAX_STDIN_BYTES / 1024 / 1024} MiB: too large for a scenario file` }]);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
