import type { Writable } from 'node:stream';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { Sink } from '../../../operators/deliver.js';
import { SinkCore, type SinkDriver } from './sink-core.js';
import { describeError } from './errors.js';
import type { SinkError } from './errors.js';
import { streamEvents } from './stream-events.js';

export interface StreamSinkOptions {
  /** Sink name used in error messages (`file`, `stdout`). */
  readonly name: string;
  /** What is written to, as error messages say it after "cannot write " (a path, "to stdout"). */
  readonly target: string;
  readonly stream: NodeJS.WritableStream;
  /**
   * Called once the sink is closed and flushed, to end the stream (never for process.stdout);
   * rejects with the stream's failure.
   */
  readonly finish?: () => Promise<void>;
  /** The failure a stream error means, in words; default `cannot write <target>: <what the OS said>`. */
  readonly explain?: (cause: Error) => SinkError;
  /**
   * True for a stream error that means nobody reads any more (EPIPE on stdout): no failure, but
   * what is in the stream and everything written after it is taken and reported dropped, never as a failure.
   */
  readonly readerGone?: (cause: Error) => boolean;
  /**
   * Bytes the destination took so far (a file stream's `bytesWritten`): after a failed write, what of it landed is
   * counted delivered. Absent (stdout: a socket's count includes what it still buffers): the failure drops it all.
   */
  readonly bytesWritten?: () => number;
  /**
   * Each chunk is one document (zipkin_json: one JSON array): of a write cut short, no record is readable, so the
   * whole chunk is dropped; writes that landed whole still count delivered.
   */
  readonly wholeChunks?: boolean;
  /**
   * Text the stream ends with (openmetrics `# EOF`): written once, by the last of the sinks
   * writing to this stream to close, if none of them failed.
   */
  readonly trailer?: string;
  /**
   * What a chunk becomes as it is written (a file appended to: the openmetrics chunk without the metadata its family
   * has at the file's end; see lib/sinks/file.ts), or why it is written as it is, which the sink warns of.
   */
  readonly written?: (chunk: EncodedBatch) => EncodedBatch | string;
  /**
   * Told the bytes a chunk `written` adapted was written with beyond those it was given (negative: fewer), as its
   * write returns or settles: deliver counts the chunk it gave (`bytes_emitted`) then, the destination took the other.
   */
  readonly resized?: (bytes: number) => void;
}

/** The sinks open on one stream (a file shared by entries, stdout) and the trailer it ends with. */
interface Writers {
  users: number;
  trailer?: string;
  failed: boolean;
  /** Bytes whose write called back without error. */
  acked: number;
}

/** The stream sinks open on each stream. */
const writers = new WeakMap<NodeJS.WritableStream, Writers>();

/**
 * What the accounting needs of a chunk still in the stream: not its data, which the stream holds (a string chunk
 * would be held twice, up to the high-water mark), nor its frames' labels and times.
 */
interface InFlight {
  readonly size: number;
  readonly bytes: number;
  /** Its records, kept only when what landed of a failed write is counted ({@link StreamSinkOptions.bytesWritten}) record by record (not {@link StreamSinkOptions.wholeChunks}). */
  readonly records?: Records;
}

/** Where a chunk's records end and how they make events (as its frames say). */
interface Records {
  /** In bytes of the stream; in code units of `text` when there is one. */
  readonly ends: readonly number[];
  readonly perEvent: number;
  readonly events?: readonly number[];
  /**
   * The bytes written of text whose code units are not its bytes (non-ASCII): the stream holds them anyway, and
   * its records' ends in bytes are measured from them only after a failed write ({@link byteEndsOf}).
   */
  readonly text?: Buffer;
}

/**
 * A {@link Sink} over a Node writable stream. Writes go straight to the stream while its buffer is under its
 * high-water mark; past it, `write` returns a promise settled once the stream holds less again (read at each
 * write callback of any sink on the stream, and at `'drain'`), so the chain waits for the destination but makes its next chunks while
 * the stream writes the last ones. A write counts as delivered (reported on `reports`) when the stream hands
 * it to the OS, i.e. when its write callback runs.
 *
 * The first stream error becomes a {@link SinkError}: the chunks still in the stream are
 * reported `failed` with it, it rejects the pending drain and flush waits and `flush` rejects
 * with it from then on; every later `write` throws it, so each dropped chunk counts as a failure. `close` flushes, calls `finish` (which ends the stream),
 * and rejects if anything failed.
 */
export function streamSink(options: StreamSinkOptions): Sink {
  const { name, target } = options;
  const core = new SinkCore({
    name,
    target,
    closedDetail: `cannot write ${target}: the sink is closed`,
    highWaterMark: Infinity,
  });
  const sink = core.attach(new StreamDriver(core, options));
  const { written, resized } = options;
  if (!written) return sink;
  const write = (chunk: EncodedBatch): void | Promise<void> => {
    const adapted = written(chunk);
    // Every chunk but a file's first: written as the sink would, with no resize to tell.
    if (adapted === chunk) return sink.write(chunk);
    if (typeof adapted === 'string') {
      core.warn(adapted);
      return sink.write(chunk);
    }
    // A write waiting for room is told once it settled, as deliver counts its chunk: told as it began, statistics
    // read meanwhile had the resize without the chunk (bytes_emitted below 0 for a first chunk).
    const resize = () => resized?.(adapted.bytes - chunk.bytes);
    let pending: void | Promise<void>;
    try {
      pending = sink.write(adapted);
    } catch (refused) {
      resize();
      throw refused;
    }
    if (!pending) return resize();
    return pending.finally(resize);
  };
  return { write, flush: sink.flush, close: sink.close, reports: sink.reports };
}

/** Writes chunks to the stream; the stream's own buffer is the backpressure. */
class StreamDriver implements SinkDriver {
  /**
   * Each chunk still in the stream, in write order (the stream runs write callbacks in that order): what the next
   * callback acknowledges. From `head` on. The stream holds their data until then anyway.
   */
  private readonly inFlight: InFlight[] = [];
  private head = 0;
  /** Whether the stream asked to wait for `'drain'`; cancels the drain listener. */
  private drainWait: (() => void) | undefined;
  private readonly events: ReturnType<typeof streamEvents>;
  private readonly stopListening: () => void;
  /** Nobody reads the stream any more (see {@link StreamSinkOptions.readerGone}). */
  private gone = false;
  /** This sink's stream's record in {@link writers}, looked up once. */
  private readonly writing: Writers;

  constructor(
    private readonly core: SinkCore,
    private readonly options: StreamSinkOptions,
  ) {
    this.events = streamEvents(options.stream);
    this.stopListening = this.events.onError(this.fail);
    const writing = writers.get(options.stream) ?? { users: 0, failed: false, acked: 0 };
    writing.users++;
    writing.trailer ??= options.trailer;
    writers.set(options.stream, writing);
    this.writing = writing;
  }

  send(chunk: EncodedBatch): void {
    if (this.gone) {
      this.core.settleDropped(1, chunk.size, chunk.bytes);
      return;
    }
    const { size, bytes } = chunk;
    const { bytesWritten, wholeChunks } = this.options;
    const records = bytesWritten && !wholeChunks ? recordsOf(chunk) : undefined;
    this.inFlight.push(records ? { size, bytes, records } : { size, bytes });
    try {
      this.options.stream.write(records?.text ?? chunk.data, this.onWritten);
    } catch (cause) {
      // Thrown, not called back (a chunk over what one write may hold, 2 GiB): the stream counts it as being
      // written and would never call back, drain nor finish; it is broken, as after an error event.
      (this.options.stream as Partial<Writable>).destroy?.(cause as Error);
      this.fail(cause as Error);
      return;
    }
    // Woken by its own writes' callbacks, and by 'drain' or another sink's write callback too: another
    // sink's data on a shared stream may fill it while none of this sink's writes is left to call back.
    if (!this.hasRoom() && !this.drainWait) this.drainWait = this.events.onceDrain(this.onDrain);
  }

  /**
   * Room while the stream holds less than its high-water mark, counting what it is writing now:
   * read again at every write callback, so the chain goes on making the next chunks while the
   * stream writes the last ones ('drain' alone would wait for the stream to empty).
   */
  hasRoom(): boolean {
    // Every Node writable tells its fill; a bare NodeJS.WritableStream that does not is never waited for.
    const stream = this.options.stream as Partial<Pick<Writable, 'writableLength' | 'writableHighWaterMark'>>;
    return (
      this.gone ||
      this.core.failedWith !== undefined ||
      (stream.writableLength ?? 0) < (stream.writableHighWaterMark ?? Infinity)
    );
  }

  async release(): Promise<void> {
    try {
      // Both begun in this turn: the last sink leaves the stream (its trailer queued) as `finish` ends it, with no
      // turn between in which a sink could join the stream after its trailer (a file's next sink opens it again).
      const trailer = this.writeTrailer();
      await Promise.all([trailer, this.options.finish?.().catch(this.fail)]);
    } finally {
      this.stopListening();
    }
  }

  /** Writes the stream's trailer, when this is the last sink on the stream and no sink on it failed. */
  private writeTrailer(): Promise<void> | undefined {
    const { stream } = this.options;
    const { writing } = this;
    writing.failed ||= this.core.failedWith !== undefined || this.gone;
    if (--writing.users > 0) return undefined;
    writers.delete(stream);
    const { trailer, failed } = writing;
    if (trailer === undefined || failed) return undefined;
    return new Promise<void>((resolve) => stream.write(trailer, () => resolve()));
  }

  // One shared callback for every write: no closure per batch.
  private readonly onWritten = (error?: Error | null): void => {
    if (this.core.failedWith || this.gone) return; // already settled with the chunks still in the stream
    if (error) {
      this.fail(error);
      return;
    }
    this.ackOldest();
    // The other sinks on the stream may wait with no write of theirs left to call back.
    if (this.hasRoom()) this.events.roomMade();
  };

  /** Delivers the oldest write still in flight, which reached the stream; returns its bytes. */
  private ackOldest(): number {
    const { inFlight } = this;
    const { size, bytes } = inFlight[this.head]!;
    inFlight[this.head++] = undefined!;
    if (this.head === inFlight.length) inFlight.length = this.head = 0;
    this.writing.acked += bytes;
    this.core.delivered(size, bytes);
    this.core.settle(1, bytes);
    return bytes;
  }

  private readonly onDrain = (): void => {
    this.drainWait = undefined;
    this.core.wakeWriter();
  };

  private readonly fail = (cause: Error): void => {
    if (this.core.failedWith || this.gone) return;
    const { target, explain, readerGone } = this.options;
    this.deliverLanded();
    const { writes, size, bytes } = this.takeInFlight();
    if (readerGone?.(cause)) {
      this.gone = true;
      this.core.settleDropped(writes, size, bytes);
      return;
    }
    this.core.fail(
      explain?.(cause) ?? this.core.error(`cannot write ${target}: ${describeError(cause)}`, { cause }),
      size,
      bytes,
    );
  };

  /**
   * Counts delivered the writes still in flight that reached the file whole before the stream failed: a file stream
   * writes its buffer in one `writev` (megabytes) and calls back every write of it with the error, though a full
   * disk took all but the last part (dropped_events counted thousands of lines that were in the file).
   * {@link StreamSinkOptions.bytesWritten} tells what landed. Of the write cut short, the events whose records are whole in the file are
   * delivered; the rest of it is what the failure drops. Only for a stream this sink alone writes: on a shared one,
   * what landed is not known to be this sink's.
   */
  private deliverLanded(): void {
    const { bytesWritten } = this.options;
    const { writing } = this;
    if (!bytesWritten || writing.users !== 1) return;
    let landed = bytesWritten() - writing.acked;
    const { inFlight } = this;
    while (this.head < inFlight.length && inFlight[this.head]!.bytes <= landed) landed -= this.ackOldest();
    const cut = inFlight[this.head];
    if (!cut?.records || landed <= 0) return;
    const whole = wholeEvents(byteEndsOf(cut.records), cut.records, landed);
    if (whole.size === 0) return;
    writing.acked += whole.bytes;
    // The chunk stays in flight, its size less what landed: the failure drops the rest.
    inFlight[this.head] = { size: cut.size - whole.size, bytes: cut.bytes - whole.bytes };
    this.core.deliveredPart(whole.size, whole.bytes);
  }

  /** Forgets the writes still in the stream (and any drain wait): how many, their events and bytes. */
  private takeInFlight(): { writes: number; size: number; bytes: number } {
    let size = 0;
    let bytes = 0;
    for (let i = this.head; i < this.inFlight.length; i++) {
      size += this.inFlight[i]!.size;
      bytes += this.inFlight[i]!.bytes;
    }
    const writes = this.inFlight.length - this.head;
    this.inFlight.length = this.head = 0;
    this.drainWait?.();
    this.drainWait = undefined;
    return { writes, size, bytes };
  }
}

/**
 * `chunk`'s records, by their frames' own ends. Text whose code units are not its bytes is kept as the bytes the
 * stream makes of it (a file stream turns a string into them anyway): the string itself would be held twice, and
 * measuring each record's bytes at every write costs a pass over the text that only a failed write reads.
 */
function recordsOf({ data, bytes, frames: { ends, perEvent, events } }: EncodedBatch): Records {
  if (typeof data !== 'string' || data.length === bytes) return { ends, perEvent, events };
  return { ends, perEvent, events, text: Buffer.from(data) };
}

/**
 * Where `records` end in bytes of the stream: their ends, or measured on their text decoded again (its code units
 * as the string's: a lone surrogate was written as U+FFFD, one code unit of three bytes either way).
 */
function byteEndsOf({ ends, text }: Records): readonly number[] {
  if (!text) return ends;
  const data = text.toString('utf8');
  const byteEnds: number[] = [];
  let end = 0;
  let byteEnd = 0;
  for (const next of ends) {
    byteEnd += Buffer.byteLength(data.slice(end, next));
    byteEnds.push(byteEnd);
    end = next;
  }
  return byteEnds;
}

/**
 * The events of a chunk whose records, ending at `byteEnds`, lie whole in its first `landed` bytes, and their
 * bytes: records in order (as the frames list them), an event `perEvent` records (or as many as `events` says a
 * record holds).
 */
function wholeEvents(
  byteEnds: readonly number[],
  { perEvent, events: eventsOf }: Records,
  landed: number,
): { size: number; bytes: number } {
  let size = 0;
  let bytes = 0;
  for (let i = 0; i < byteEnds.length; i++) {
    const recordEnd = byteEnds[i]!;
    if (recordEnd > landed) break;
    const events = eventsOf ? eventsOf[i]! : (i + 1) % perEvent === 0 ? 1 : 0;
    if (events === 0) continue;
    size += events;
    bytes = recordEnd;
  }
  return { size, bytes };
}
