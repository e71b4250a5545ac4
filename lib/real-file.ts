import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { Readable } from 'node:stream';

/** Whether the absolute `path` lies below the directory `dir` (`dir` itself does not). */
export function isBelow(dir: string, path: string): boolean {
  const below = relative(dir, path);
  // `..` as a part of it, not as the start of a name (`..data.prom` is below `dir`).
  return below !== '' && below !== '..' && !below.startsWith(`..${sep}`) && !isAbsolute(below);
}

/** What is at `path`, its links followed; undefined when nothing is (or it cannot be looked at). */
export async function statIfAny(path: string): Promise<Stats | undefined> {
  return stat(path).catch(() => undefined);
}

/**
 * Opens `path`, a real path the server checked below its `--file-root` (lib/server/file-root.ts), only if it is
 * still that file once open: someone who can write below the root could otherwise put a symbolic link in the
 * place of its last part (refused by `O_NOFOLLOW`) or of one of its directories (the opened file is then not
 * the one at the path, which has no link on it) between the check and the open. `O_NONBLOCK`: a named pipe put
 * there does not hold the thread. Returns the descriptor; throws, having closed it, when the file changed.
 * A writer opens without `O_TRUNC` and truncates once the file is known.
 */
export function openRealFile(path: string, flags: number): number {
  const changed = (cause?: unknown) =>
    Object.assign(
      new Error('it is no longer the file checked below the file root (a link or another file took its place)'),
      {
        cause,
      },
    );
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ELOOP' ? changed(error) : error;
  }
  try {
    const opened = fstatSync(fd);
    const there = statSync(path);
    if (!opened.isFile() || realpathSync(path) !== path || there.dev !== opened.dev || there.ino !== opened.ino)
      throw changed();
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The text of `path`, read by {@link openRealFile}. */
export function readRealFile(path: string): string {
  const fd = openRealFile(path, constants.O_RDONLY);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** A stream of `path`, opened by {@link openRealFile}; one that fails with the error when it cannot be. */
export function realFileStream(path: string): Readable {
  try {
    return createReadStream(path, { fd: openRealFile(path, constants.O_RDONLY) });
  } catch (error) {
    return new Readable({ read() {} }).destroy(error as Error);
  }
}
