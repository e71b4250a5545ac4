/**
 * The end of a file appended to: the trailer it ends with (lib/sinks/file.ts cuts it before appending) and the
 * line before it, which svc-server's `POST /events` reads to know what an event follows (lib/server/event.ts),
 * apart from the stream machinery of the file sink.
 */
import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { openRealFile } from '../../real-file.js';

export const LINE_FEED = 0x0a;

/**
 * The most of a file's end {@link fileTail} reads (64 KiB): a line of svc's is far shorter (a sample line with a
 * few dozen labels: a few KiB), and an event reads no more of a big file than of a small one.
 */
export const TAIL_BYTES = 1 << 16;

/**
 * How many bytes at the end of `end` (the file's last bytes, one more than `trailer` has when the file has them) are
 * `trailer`, as a line of its own: all of them, or all but its line feed (`# EOF` as a hand or another tool ends a
 * file, without one); 0 when it is not there.
 */
export function trailerAt(end: Buffer, trailer: Buffer): number {
  if (trailer.length === 0) return 0;
  if (endsWithLine(end, trailer)) return trailer.length;
  return trailer.at(-1) === LINE_FEED && endsWithLine(end, trailer.subarray(0, -1)) ? trailer.length - 1 : 0;
}

/** Whether `end` ends with `line` after a line feed or at its start: `x# EOF`, `done # EOF` are no `# EOF`. */
function endsWithLine(end: Buffer, line: Buffer): boolean {
  const start = end.length - line.length;
  return start >= 0 && end.subarray(start).equals(line) && (start === 0 || end[start - 1] === LINE_FEED);
}

/** The last bytes of a file, at most {@link TAIL_BYTES}; `whole` when they are all of it. */
export interface FileTail {
  readonly bytes: Buffer;
  readonly whole: boolean;
}

/**
 * The last {@link TAIL_BYTES} at most of the file at `path`, a real path below the file root ({@link openRealFile}):
 * none of a file not there yet; undefined when it cannot be read (write-only, replaced by a link), which the sink's
 * own open then reports, or not.
 */
export function fileTail(path: string): FileTail | undefined {
  let fd: number;
  try {
    fd = openRealFile(path, constants.O_RDONLY);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { bytes: Buffer.alloc(0), whole: true } : undefined;
  }
  try {
    const { size } = fstatSync(fd);
    const bytes = Buffer.alloc(Math.min(size, TAIL_BYTES));
    const read = readSync(fd, bytes, 0, bytes.length, size - bytes.length);
    return { bytes: bytes.subarray(0, read), whole: size <= TAIL_BYTES };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The last line of a file's end before its trailer, without its line feed. */
export interface LastLine {
  readonly text: string;
  /**
   * No line feed ends it, as a process killed in the middle of a write leaves it (file.ts ends it before appending).
   * An empty file has no line to cut.
   */
  readonly cut: boolean;
}

/**
 * The last line of `tail` before `trailer` (cut, with or without its line feed): '' for an empty file; undefined when
 * the line began before the tail (longer than {@link TAIL_BYTES}).
 */
export function lastLine({ bytes, whole }: FileTail, trailer: string | undefined): LastLine | undefined {
  const end = bytes.length - trailerAt(bytes, Buffer.from(trailer ?? ''));
  const cut = end > 0 && bytes[end - 1] !== LINE_FEED;
  // Without its line feed; a file that is only its trailer has no line before it.
  const body = bytes.subarray(0, cut || end === 0 ? end : end - 1);
  const start = body.lastIndexOf(LINE_FEED) + 1;
  if (start === 0 && !whole) return undefined;
  return { text: body.subarray(start).toString(), cut };
}
