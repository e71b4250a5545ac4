import {
  close,
  constants,
  createWriteStream,
  fstat,
  fstatSync,
  ftruncateSync,
  open as openFile,
  readSync,
  writeSync,
  stat,
  write,
  writev,
  type WriteStream,
} from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { describeError, explainFile, fileError } from './core/errors.js';
import { DEFAULT_FLUSH_TIMEOUT } from './core/sink-core.js';
import type { Sink } from '../../operators/deliver.js';
import { streamSink } from './core/stream-sink.js';
import { openRealFile } from '../real-file.js';
import { type Encoding, type SharedFile, openFiles as open, sharedFileRefusal } from './core/shared-files.js';
import { LINE_FEED, fileTail, lastLine, trailerAt } from './core/file-tail.js';
import type { AppendedChunk, EncodedBatch } from '../../operators/model/batch.js';

export interface FileSinkOptions {
  readonly path: string;
  /** Append to an existing file instead of truncating it. */
  readonly append?: boolean;
  /** Written once when the last sink on the file closes (see StreamSinkOptions). */
  readonly trailer?: string;
  /**
   * How a chunk of its encoder follows a file's last line (the encoder kind's `appended`): appending below the
   * server's file root, the first chunk written to the file follows the line it ended with ({@link following}).
   */
  readonly appended?: AppendedChunk;
  /** Told the bytes the chunk `appended` adapted lost or gained as it was written (see StreamSinkOptions). */
  readonly resized?: (bytes: number) => void;
  /** `path` is a real path the server checked below its file root: opened only if it still is ({@link openRealFile}). */
  readonly realPath?: boolean;
  /** Each chunk is one document: a cut one counts dropped whole (see StreamSinkOptions). */
  readonly wholeChunks?: boolean;
  /** The encoder whose chunks the sink takes, as messages name it ({@link sharedFileRefusal}). */
  readonly encoder?: string;
  /** Times the wait for the close of the file by its last sink ({@link afterClose}); `asyncScheduler` by default. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Buffer up to this many bytes before `write` makes the chain wait. A stream writes its whole
 * buffer in one `writev` and frees room only when that finishes, so a buffer of one wake-up's
 * output (8 batches of 4096 lines, about 2 MiB) made the chain wait on every wake-up. The chain
 * goes on once a `writev` ends and the stream holds less than this (lib/sinks/stream.ts).
 */
const HIGH_WATER_MARK = 1 << 22;

/**
 * Sink writing to a file, truncated on open unless `append` is set (below the server's file root, `realPath`, an
 * appended file's `trailer` is cut first and written again at the end). Up to about 4 MiB is
 * buffered in memory; past that `write` returns a promise resolving once the stream holds less.
 * `flush` resolves when every byte written so far was written to the file descriptor; `close`
 * flushes and closes the file. Failures to open or write (a missing directory, a full disk)
 * are sink failures naming the path and saying what is wrong, in words (see {@link fileError}).
 *
 * File sinks open at the same time on one path (the entries of a run, a pack's metrics) share
 * one write stream: the first opens (and truncates) the file, the others add to it (whatever their
 * `append`), and the last to close closes it; a stream an error destroyed is not shared: the next sink opens the file
 * afresh. One opening while that last one closes the file waits for the close (the trailer written), then opens as
 * it would a moment later: appending (below the file root cutting the trailer), or emptying the file; a close not
 * done within {@link DEFAULT_FLUSH_TIMEOUT} fails it ({@link afterClose}).
 */
export function fileSink({
  path,
  append = false,
  trailer,
  appended,
  resized,
  realPath = false,
  wholeChunks,
  encoder,
  scheduler = asyncScheduler,
}: FileSinkOptions): Sink {
  const file = share(path, append, realPath, { trailer, encoder }, appended, scheduler);
  return streamSink({
    name: 'file',
    target: path,
    stream: file.stream,
    trailer,
    written: file.written,
    resized,
    wholeChunks,
    finish: file.release,
    explain: (cause) => fileError(path, cause),
    // An fs write stream counts the bytes its writes took, a partial one included (a new stream that failed to open: 0).
    bytesWritten: () => (file.stream as Partial<WriteStream>).bytesWritten ?? 0,
  });
}

/**
 * The write stream of `path`, shared with every sink using it now; `release` when done with it. `written`: what the
 * first chunk written to it becomes, appended below the file root, as `appended` says after the line the file ended
 * with ({@link following}).
 */
function share(
  path: string,
  append: boolean,
  realPath: boolean,
  encoding: Encoding,
  appended: AppendedChunk | undefined,
  scheduler: SchedulerLike,
): { stream: Writable; release: () => Promise<void>; written?: (chunk: EncodedBatch) => EncodedBatch | string } {
  const refusal = sharedFileRefusal(path, encoding);
  if (refusal) return { stream: new Writable().destroy(new Error(refusal)), release: async () => undefined };
  const { trailer } = encoding;
  const key = resolve(path);
  let file = open.get(key);
  if (!file || file.closed || file.stream.destroyed) {
    // Its last sink is closing it (an event of POST /events ending as another begins): joined, the stream would
    // take this sink's lines after the trailer; opened at once, it would race that close. Opened once it is done.
    // Destroyed by an error (EIO, ENOSPC), it takes nothing more: the file is opened afresh.
    const opening = firstOpening(path, append, realPath, trailer);
    const closing = file?.closed?.catch(() => undefined);
    const stream = openStream(path, realPath, closing ? afterClose(closing, opening, scheduler) : opening);
    // The end of a file a sink of this process is closing is not there yet: its first chunk is written as it is.
    const follows = append && realPath && appended && !closing ? following(path, encoding, appended) : undefined;
    open.set(key, (file = { stream, encoding, users: 0, following: follows }));
  }
  file.users++;
  const shared = file;
  // Whichever sink writes first: the chunks written after it follow it, not the file's old last line.
  const written = (chunk: EncodedBatch) => {
    const first = shared.following;
    shared.following = undefined;
    return first ? first(chunk) : chunk;
  };
  // Called once per sink: SinkCore's close runs its driver's release once; the last in the turn its sink leaves
  // the stream (lib/sinks/core/stream-sink.ts), so that no sink joins the stream once it is ending.
  const release = async (): Promise<void> => {
    if (--shared.users > 0) return;
    shared.closed = end(shared.stream);
    try {
      await shared.closed;
    } finally {
      if (open.get(key) === shared) open.delete(key);
    }
  };
  return { stream: file.stream, release, ...(file.following && { written }) };
}

/**
 * What the first chunk appended to the file at `path` (a real path below the file root) becomes after the last line
 * it has before its trailer, as `appended` says (openmetrics: without the metadata of the family of that line, which a
 * scenario svc-server starts again from --state wrote before the restart), or the warning of why it is written as it
 * is. The line is read now, as POST /events reads it ({@link fileTail}), before the stream opens, which may be after
 * the first write; none when it cannot be read (the file write-only, the line over 64 KiB): the chunk as it is.
 */
function following(path: string, { trailer }: Encoding, appended: AppendedChunk): SharedFile['following'] {
  const tail = fileTail(path);
  const last = tail && lastLine(tail, trailer);
  if (last === undefined) return undefined;
  return (chunk) => {
    const adapted = appended(chunk, last.text, last.cut);
    return typeof adapted === 'string'
      ? `file sink: appending to ${path}: ${adapted}. The scenario appends to it all the same, its # TYPE and # HELP lines included; give it another path for a file that OpenMetrics readers read whole`
      : adapted;
  };
}

/** Ends `stream` and waits for its file to close; rejects with the stream's failure. */
async function end(stream: Writable): Promise<void> {
  if (stream.destroyed) return;
  stream.end();
  await finished(stream);
}

/**
 * Every write goes to the end of the file (`O_APPEND`), a truncating open included: when a log rotator copies
 * the file and truncates it under the writer (logrotate's `copytruncate`), the next line lands at its new start.
 * Written at the writer's own offset instead, it landed there, after a hole of NUL bytes as long as what was cut.
 */
const WRITE_AT_END = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

/** {@link WRITE_AT_END}, and read: the tail of a file appended to is read ({@link endForAppending}). */
const READ_WRITE_AT_END = constants.O_RDWR | constants.O_CREAT | constants.O_APPEND;

/**
 * The file's write stream, opened by `opening` ({@link firstOpening}, or that {@link afterClose}); a path Node refuses
 * at once gives a stream that fails with that error, as an open would.
 */
function openStream(path: string, realPath: boolean, opening: Opening): Writable {
  try {
    const fs = new PathFollower(path, reopening(path, realPath), opening);
    return createWriteStream(path, { highWaterMark: HIGH_WATER_MARK, fs });
  } catch (cause) {
    return new Writable().destroy(cause as Error);
  }
}

/**
 * How a sink's stream first opens `path`: appended to, or emptied. Below the server's file root (`realPath`), only
 * while it is the file checked there ({@link openRealFile}), and an appended file's end readied first
 * ({@link endForAppending}). Outside it, only the workers of `svc run --workers` append, never with a trailer
 * (openmetrics is refused there), and to one file together: a last line not ended may be another worker's write.
 */
function firstOpening(path: string, append: boolean, realPath: boolean, trailer: string | undefined): Opening {
  if (realPath) return (done) => done(...tried(() => openRealForSink(path, append, trailer)));
  const flags = WRITE_AT_END | (append ? 0 : constants.O_TRUNC);
  return (done) => openWithoutWaiting(path, flags, done);
}

/**
 * `opening` once `closing`, the close of the file by its last sink, is done: the stream then opens as it would a
 * moment later (appending keeps what was just written, below the file root its trailer cut; not appending empties
 * it). A close not done within {@link DEFAULT_FLUSH_TIMEOUT}, as long as a flush waits for its destination (a hung
 * file system: the descriptor's close never returns), fails the open instead of holding this sink for ever.
 */
function afterClose(closing: Promise<unknown>, opening: Opening, scheduler: SchedulerLike): Opening {
  return (done) => {
    let expired = false;
    const deadline = scheduler.schedule(() => {
      expired = true;
      done(new Error(CLOSE_NOT_DONE));
    }, DEFAULT_FLUSH_TIMEOUT);
    void closing.then(() => {
      if (expired) return;
      deadline.unsubscribe();
      opening(done);
    });
  };
}

const CLOSE_NOT_DONE = `the sink that wrote it before is closing it, and that close did not finish within ${DEFAULT_FLUSH_TIMEOUT / 1000} s (a hung file system, such as a network mount that stopped answering?). Try again once it is done`;

/** A sink's first open of `path` below the file root: appended to (its `trailer` cut), or emptied. */
function openRealForSink(path: string, append: boolean, trailer: string | undefined): number {
  const fd = append ? openRealAppending(path, trailer) : openRealFile(path, WRITE_AT_END);
  if (!append) ftruncateSync(fd);
  return fd;
}

/** How a {@link PathFollower} opens `path` again: created, appended to, never truncated. */
function reopening(path: string, realPath: boolean): Opening {
  return realPath
    ? (done) => done(...tried(() => openRealFile(path, WRITE_AT_END)))
    : (done) => openWithoutWaiting(path, WRITE_AT_END, done);
}

/** The file below the file root at `path`, opened for appending with its end readied ({@link endForAppending}). */
function openRealAppending(path: string, trailer: string | undefined): number {
  let fd: number;
  try {
    fd = openRealFile(path, READ_WRITE_AT_END);
  } catch (error) {
    // A file this user may write but not read is appended to as before, its end unread.
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    return openRealFile(path, WRITE_AT_END);
  }
  endForAppending(fd, trailer);
  return fd;
}

/**
 * Readies the end of the file open at `fd` for this run's lines. The `trailer` it ends with (the `openmetrics`
 * encoder's `# EOF`, from an earlier run: svc-server's run of a scenario before a restart, an event of `POST /events`)
 * is cut, as in the middle of the file its reader would stop there; this run's last sink writes it again at the end.
 * A last line cut short (the process killed in the middle of a write, an OOM kill) is ended with a line break, so
 * that the first line appended is not glued to it, unreadable. Every encoder a file takes writes lines.
 */
function endForAppending(fd: number, trailer: string | undefined): void {
  const { size } = fstatSync(fd);
  if (size === 0) return;
  const tail = Buffer.from(trailer ?? '');
  // The trailer's bytes and the one before it, which says whether it is a line of its own (trailerAt).
  const end = Buffer.alloc(Math.min(size, tail.length + 1));
  readSync(fd, end, 0, end.length, size - end.length);
  const cut = trailerAt(end, tail);
  if (cut > 0 && cutTo(fd, size - cut)) return;
  if (end.at(-1) !== LINE_FEED) writeSync(fd, '\n');
}

/**
 * Cuts the file open at `fd` to `size`; false when the file may be appended to but not cut (append-only, `chattr
 * +a`: EPERM), which is then appended to with its trailer left where it is, rather than not at all.
 */
function cutTo(fd: number, size: number): boolean {
  try {
    ftruncateSync(fd, size);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return false;
    throw error;
  }
}

/** How often, at most, a file sink checks that its path still names the file it writes to (ms). */
export const FOLLOW_PATH_EVERY = 1000;

type Opened = (error: NodeJS.ErrnoException | null, fd?: number) => void;

/** Opens a file, calling `done` with its descriptor. */
type Opening = (done: Opened) => void;

/** A write's callback, as Node's write stream passes it: the third argument is the data written (it slices the rest). */
type Written = (error: NodeJS.ErrnoException | null, written: number, data?: unknown) => void;

/** The system calls that write, as a {@link PathFollower} makes them (its spec gives ones that write in part). */
export interface WriteCalls {
  readonly write: typeof write;
  readonly writev: typeof writev;
}

/**
 * The file functions of a write stream that follows its path, as a log rotator expects of a writer: before a
 * write, at most every {@link FOLLOW_PATH_EVERY}, it checks that the path still names the open file. When it
 * does not (logrotate's default rotation renamed the file away, or it was removed), the path is opened again
 * with `reopen` (created, appended to, never truncated), the old file closed, and the writes go to the new one.
 * Before, svc wrote on into the renamed file for good, and into a removed one lost everything while counting it
 * delivered. A path that cannot be opened again while the open file still has a name (its directory renamed)
 * leaves the writes going to that file, and is tried again at the next check. When the open file has no name
 * left either (its directory removed, `rm -rf logs/`), no line could be read again: the write fails, saying so,
 * rather than go on into the removed file, counted delivered. Only a regular file is followed: a named pipe or a
 * device keeps its descriptor (its reader holds it; opened again, a removed path would be a new file nobody reads).
 *
 * The path is checked only where a write of the stream begins: the system may take a write in part, and the
 * stream then writes the rest with another call, which goes to the same file (a line is never cut in two files).
 *
 * Passed as a write stream's `fs` option: the stream keeps the descriptor it opened with, each call uses the
 * current one.
 */
export class PathFollower {
  // A monotonic clock: with the wall clock stepped back, no check would come due until it caught up again.
  private checkedAt = performance.now();
  /** The last write was taken in part: the stream's next call writes its rest, to the same file. */
  private midWrite = false;

  private fd: number;
  /** How the stream's own open opens the file; none when the stream was given its descriptor. */
  private readonly opening: Opening | undefined;

  /** `first`: the descriptor open already, or how to open the file when the stream opens it. */
  constructor(
    private readonly path: string,
    private readonly reopen: Opening,
    first: number | Opening,
    private readonly calls: WriteCalls = { write, writev },
  ) {
    this.fd = typeof first === 'number' ? first : -1;
    this.opening = typeof first === 'number' ? undefined : first;
  }

  // Called by the stream only when it was not given a descriptor: `opening` is there.
  readonly open = (_path: string, _flags: number, _mode: number, done: Opened): void =>
    this.opening!((error, fd) => {
      if (!error) this.fd = fd!;
      done(error, fd);
    });

  readonly write = (
    _fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
    done: Written,
  ): void =>
    this.current((error, fd) =>
      error ? done(error, 0) : this.calls.write(fd, buffer, offset, length, position, this.track(length, done)),
    );

  readonly writev = (
    _fd: number,
    buffers: readonly NodeJS.ArrayBufferView[],
    position: number | null,
    done: Written,
  ): void => {
    const size = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
    this.current((error, fd) =>
      error ? done(error, 0) : this.calls.writev(fd, buffers, position, this.track(size, done)),
    );
  };

  readonly close = (_fd: number, done: (error: NodeJS.ErrnoException | null) => void): void => close(this.fd, done);

  /** `done`, noting whether the write of `size` bytes was taken in part (the stream retries EAGAIN, as a part). */
  private track(size: number, done: Written): Written {
    return (error, written, data) => {
      this.midWrite = error ? error.code === 'EAGAIN' : written < size;
      done(error, written, data);
    };
  }

  /**
   * Calls `then` with the descriptor to write to, having opened the path again if it names another file now;
   * or with the error that no line written now could be read again (see {@link removedWhileWriting}).
   */
  private current(then: (error: NodeJS.ErrnoException | null, fd: number) => void): void {
    const now = performance.now();
    if (this.midWrite || now - this.checkedAt < FOLLOW_PATH_EVERY) {
      then(null, this.fd);
      return;
    }
    this.checkedAt = now;
    fstat(this.fd, (unknown, opened) => {
      // Not a log file: its reader holds it, not its path.
      if (unknown || !opened.isFile()) return then(null, this.fd);
      stat(this.path, (gone, there) => {
        if (!gone && there.dev === opened.dev && there.ino === opened.ino) return then(null, this.fd);
        this.reopen((failed, fd) => {
          if (!failed && fd !== undefined) {
            close(this.fd, () => {});
            this.fd = fd;
            return then(null, this.fd);
          }
          // Renamed (with its directory), the open file still keeps the lines; removed, it loses them all.
          then(opened.nlink === 0 ? removedWhileWriting(this.path, failed) : null, this.fd);
        });
      });
    });
  }
}

/**
 * The write error of a file removed while svc writes to it whose path cannot be created again (`reopening` says
 * why: mostly its directory was removed with it): what is written to the removed file is lost, though counted
 * delivered, so the sink fails instead, as it does on a full disk.
 */
function removedWhileWriting(path: string, reopening: NodeJS.ErrnoException | null): NodeJS.ErrnoException {
  const why = explainFile(reopening?.code, path) ?? describeError(reopening);
  const message = `it was removed while svc writes to it, and cannot be created again: ${why}. Lines written on would be lost: make the path writable again (create its directory again), then start the run again`;
  return Object.assign(new Error(message), { syscall: 'write' });
}

/**
 * Opens `path` for writing without waiting for a reader: a named pipe that no process reads fails at once (ENXIO)
 * instead of holding the open, and with it the run, for ever (a stop waited on it too, deaf to SIGTERM). Anything
 * but a regular file (a pipe with a reader, a terminal, a device) is opened again as usual (at once, a pipe having a
 * reader), so that a slow reader holds writes back rather than failing them (a non-blocking write fails, EAGAIN).
 * A reader that exits between the two opens leaves the second one waiting for the next reader: Node has no fcntl
 * to clear O_NONBLOCK on the first descriptor (docs/sinks.md says so).
 */
function openWithoutWaiting(path: string, flags: number, done: Opened): void {
  openFile(path, flags | constants.O_NONBLOCK, 0o666, (error, fd) => {
    if (error) return done(error);
    fstat(fd, (unknown, stats) => {
      if (unknown || stats.isFile()) return done(null, fd);
      // Opened again before the first descriptor closes: the reader would take that close for the end of its input.
      openFile(path, flags, 0o666, (error, blocking) => close(fd, () => done(error, blocking)));
    });
  });
}

/** `[null, value]`, or `[error]` when `make` throws: a synchronous call in the callback form. */
function tried<T>(make: () => T): [NodeJS.ErrnoException | null, T?] {
  try {
    return [null, make()];
  } catch (error) {
    return [error as NodeJS.ErrnoException];
  }
}
