import {
  nanosecondsWithin,
  timestampAt,
  type ExemplarRows,
  type Labelled,
  type SampleBatch,
} from '../../operators/model/batch.js';
import { filledParts, partsAtHoles, type Series, type SeriesShape } from '../../operators/model/series.js';
import { encodedLines, type TextMetricEncoder } from './encoder.js';
import { grown, writeText } from './grow.js';
import { putBytes, putSixDigits } from '../protocols/bytes.js';
import { putHexWords } from './id-words.js';
import { SHORTEST_MAX_BYTES, viewOf, writeInteger, writeShortestAt } from './shortest.js';
import type { ValueFormat } from './number.js';

/** How one sample line is put together: `lead(series) + value + middle(series) + stamp(ms)`. */
export interface SampleLineFormat {
  /** Text before the value, once per series. */
  lead(series: Series): string;
  /** Text between the value and the timestamp fragment, once per series. */
  middle(series: Series): string;
  /**
   * Text from the timestamp to the end of the line, its line feed included, once per millisecond (`nanos` past it: 0
   * unless {@link exactTimes}).
   */
  stamp(ms: number, nanos: number): string;
  /**
   * `stamp` is given the nanoseconds past each line's millisecond it was scheduled at ({@link nanosecondsWithin}): for
   * a format whose timestamps are finer, where lines of one series in one millisecond must keep distinct times
   * (InfluxDB keeps one point per series and time). An exemplar's time stays a whole millisecond. Absent: 0.
   * After 1970 the stamp must be the millisecond's (`nanos` 0) with the six digits of `nanos` before its line feed
   * (`nanosecondsText`): the encoder makes it once a millisecond and writes each line's digits over it.
   */
  readonly exactTimes?: boolean;
  readonly value: ValueFormat;
  /**
   * Whether the series' values are times, written in the shortest form whatever the format's precision (OpenMetrics'
   * `_created`): decimals meant for sample values would move a time. Absent: none is.
   */
  timeValued?(series: Series): boolean;
  /**
   * How a row's exemplar is written before the line feed: `open + traceId + between + spanId + close`, then its
   * value in the shortest form whatever the format's precision (decimals would move a span's duration, perhaps out of
   * its bucket) and its timestamp as `stamp` (OpenMetrics'
   * ` # {trace_id="…",span_id="…"} value timestamp`). Absent: the format has no exemplars and the column is not read.
   */
  readonly exemplar?: ExemplarText;
}

/** The fixed text around an exemplar's ids (ASCII): see {@link SampleLineFormat.exemplar}. */
export interface ExemplarText {
  readonly open: string;
  readonly between: string;
  readonly close: string;
}

/**
 * Writes a row's exemplar in place of its line feed (see {@link SampleLineFormat.exemplar}): the ids written into its
 * own copy of the fixed text, in the room between, four digits a store through a view of it; that copied at once (one
 * copy costs less than three short ones); then the value and the stamp, most often its line's, copied from the line
 * four bytes a store (a `TypedArray.prototype.set` costs some 160 instructions a call). It keeps nothing of an
 * exemplar in fields: what the caller worked out comes as arguments (a field written an exemplar cost a write barrier
 * each, docs/performance.md).
 */
class ExemplarWriter {
  private readonly text: Buffer;
  private readonly view: DataView;
  private readonly traceAt: number;
  private readonly spanAt: number;
  /** Most bytes an exemplar takes besides its stamp, its value written straight. */
  readonly room: number;

  constructor({ open, between, close }: ExemplarText) {
    this.text = Buffer.from(`${open}${'0'.repeat(32)}${between}${'0'.repeat(16)}${close}`);
    this.view = new DataView(this.text.buffer, this.text.byteOffset, this.text.length);
    this.traceAt = open.length;
    this.spanAt = open.length + 32 + between.length;
    this.room = this.text.length + SHORTEST_MAX_BYTES;
  }

  /**
   * Writes exemplar `k` of `column` into `out` (`view` a view of all of it, for the value) at `at`, where the line's
   * feed was (room assumed): its value straight, or `valueText` when given; then `stamp`, or when it is empty the
   * line's own, the `lineStamp` bytes up to the feed (ASCII, the feed last). Returns where it ends.
   */
  write(
    out: Buffer,
    view: DataView,
    column: ExemplarRows,
    k: number,
    at: number,
    valueText: string | undefined,
    stamp: string,
    lineStamp: number,
  ): number {
    const stampFrom = at + 1 - lineStamp;
    putHexWords(this.view, column.traceId, 4 * k, 4, this.traceAt);
    putHexWords(this.view, column.spanId, 2 * k, 2, this.spanAt);
    at = putBytes(out, this.text, at);
    at = valueText === undefined ? writeShortestAt(out, view, column.value, k, at) : writeText(out, valueText, at);
    if (stamp !== '') return writeText(out, stamp, at);
    // The line's stamp but its feed, four bytes a store (the last word reaching past it), then the feed.
    const end = at + lineStamp - 1;
    for (let from = stampFrom; at < end; at += 4, from += 4) view.setUint32(at, view.getUint32(from, true), true);
    out[end] = LINE_FEED;
    return end + 1;
  }
}

const LINE_FEED = 10;

/**
 * The columns of the batch being encoded, read from it once a batch. A batch's shape differs with the operators it
 * came through, and the encoder's code is shared by every entry's: a load from the batch itself is megamorphic (a
 * lookup of some 70 instructions), and the line writer, called once an exemplar, made five a call
 * (docs/performance.md).
 */
class BatchColumns {
  size = 0;
  anchor = 0;
  offset: Float64Array = NO_NUMBERS;
  value: Float64Array = NO_NUMBERS;
  series: readonly Series[] = [];

  take({ size, anchor, offset, value, series }: Labelled<SampleBatch>): this {
    this.size = size;
    this.anchor = anchor;
    this.offset = offset;
    this.value = value;
    this.series = series;
    return this;
  }

  release(): void {
    this.offset = this.value = NO_NUMBERS;
    this.series = [];
  }
}

const NO_NUMBERS = new Float64Array(0);

/** The end of an exact stamp written over: the six digits of its nanoseconds and the line feed. */
const NANOS_TAIL = 7;

/** Bytes of one line a batch starts from, before the encoder has seen a line. */
const FIRST_LINE_GUESS = 96;

/**
 * A series' text before and after the value, prepared when the series changes: the room it
 * takes and how it writes itself. Three kinds: bytes cached per interned series, a shape's parts
 * with a transient series' fills, and plain text of another transient series.
 */
interface LineHead {
  /** Most bytes the lead and the middle take. */
  readonly room: number;
  /** The series' values are times ({@link SampleLineFormat.timeValued}). */
  readonly timeValued: boolean;
  writeLead(out: Buffer, at: number): number;
  writeMiddle(out: Buffer, at: number): number;
}

/** An interned series' text as bytes, made once; and the series that followed it last time, with its head. */
class CachedHead implements LineHead {
  readonly room: number;
  nextSeries?: Series;
  next?: CachedHead;

  constructor(
    private readonly lead: Buffer,
    private readonly middle: Buffer,
    readonly timeValued: boolean,
  ) {
    this.room = lead.length + middle.length;
  }

  writeLead(out: Buffer, at: number): number {
    return putBytes(out, this.lead, at);
  }

  writeMiddle(out: Buffer, at: number): number {
    // Most formats have nothing between the value and the timestamp.
    return this.middle.length === 0 ? at : putBytes(out, this.middle, at);
  }
}

/** A shape's text cut at its holes: literal bytes, and hole numbers. */
type ShapeParts = readonly (Buffer | number)[];

/**
 * A shaped series: its shape's parts around the value, with this series' fills. One per encoder, pointed at
 * each series in turn: no allocation per line.
 */
class ShapedHead implements LineHead {
  room = 0;
  timeValued = false;
  private lead: ShapeParts = [];
  private middle: ShapeParts = [];
  private fills: readonly (number | string)[] = [];

  point(
    [lead, middle]: readonly [ShapeParts, ShapeParts],
    fills: readonly (number | string)[],
    timeValued: boolean,
  ): this {
    this.timeValued = timeValued;
    this.lead = lead;
    this.middle = middle;
    this.fills = fills;
    this.room = shapedBytes(lead, fills) + shapedBytes(middle, fills);
    return this;
  }

  writeLead(out: Buffer, at: number): number {
    return writeShaped(out, this.lead, this.fills, at);
  }

  writeMiddle(out: Buffer, at: number): number {
    return writeShaped(out, this.middle, this.fills, at);
  }
}

/** Another transient series: its text, written in place, uncached. One per encoder, pointed at each series in turn. */
class TextHead implements LineHead {
  room = 0;
  timeValued = false;
  private lead = '';
  private middle = '';

  point(lead: string, middle: string, timeValued: boolean): this {
    this.timeValued = timeValued;
    this.lead = lead;
    this.middle = middle;
    // A UTF-16 unit of text is at most 3 UTF-8 bytes.
    this.room = (lead.length + middle.length) * 3;
    return this;
  }

  writeLead(out: Buffer, at: number): number {
    return writeText(out, this.lead, at);
  }

  writeMiddle(out: Buffer, at: number): number {
    return writeText(out, this.middle, at);
  }
}

/** Bytes a hole's fill may take: a safe integer's digits, or a string of hex digits. */
const fillBytes = (fill: number | string) => (typeof fill === 'number' ? 16 : fill.length * 3);

/** Writes `parts` of a shape with `fills` into `out` at `at` (room assumed); returns where they end. */
function writeShaped(out: Buffer, parts: ShapeParts, fills: readonly (number | string)[], at: number): number {
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    if (typeof part !== 'number') {
      at = putBytes(out, part, at);
      continue;
    }
    const fill = fills[part]!;
    at = typeof fill === 'number' ? writeInteger(out, fill, at) : writeText(out, fill, at);
  }
  return at;
}

/** Room `parts` with `fills` take at most. */
function shapedBytes(parts: ShapeParts, fills: readonly (number | string)[]): number {
  let bytes = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    bytes += typeof part === 'number' ? fillBytes(fills[part]!) : part.length;
  }
  return bytes;
}

/**
 * A line-per-sample encoder writing each batch straight into one byte buffer. When the series
 * changes, its head is prepared ({@link LineHead}): an interned series' text as bytes, cached
 * per Series object (weakly: a series the label operator dropped costs nothing here); a shaped
 * series (past interning) as its shape's bytes, cut once at the holes, with its counters' digits
 * between them; another transient one as text, uncached. The loop then asks the head for its
 * room and to write itself around the value. The millisecond's fragment is made once and kept
 * while consecutive samples share it; a finite value goes in through `writeShortest`, with no
 * string made; a run of lines identical to the one before (same series, value and millisecond)
 * is copied in blocks. A line costs a few copies and no string building.
 */
export function sampleLines(format: SampleLineFormat): TextMetricEncoder {
  const timeValuedOf = (series: Series) => format.timeValued?.(series) ?? false;
  const cached = new WeakMap<Series, CachedHead>();
  // The head of the last cached series: if the series that followed it last time comes again,
  // its head is one step away (a histogram's rows come in the same order every tick).
  let lastCached: CachedHead | undefined;
  const cachedHeadOf = (series: Series): CachedHead => {
    let found = lastCached?.nextSeries === series ? lastCached.next! : undefined;
    if (!found) {
      found = cached.get(series);
      if (!found)
        cached.set(
          series,
          (found = new CachedHead(
            Buffer.from(format.lead(series)),
            Buffer.from(format.middle(series)),
            timeValuedOf(series),
          )),
        );
      if (lastCached) {
        lastCached.nextSeries = series;
        lastCached.next = found;
      }
    }
    return (lastCached = found);
  };
  // A shape's lead and middle cut at its holes, once per shape; null when the format's text of
  // the shape filled in is not its text of the label set (a format that rewrites the counters).
  const shapes = new WeakMap<SeriesShape, readonly [ShapeParts, ShapeParts] | null>();
  const partsOf = (series: Series) => {
    const shape = series.shape!;
    let found = shapes.get(shape);
    if (found === undefined) {
      const lead = partsAtHoles(format.lead(shape.marked));
      const middle = partsAtHoles(format.middle(shape.marked));
      const fills = series.fills!;
      const faithful =
        filledParts(lead, fills) === format.lead(series) && filledParts(middle, fills) === format.middle(series);
      const bytes = (parts: (string | number)[]) =>
        parts.map((part) => (typeof part === 'number' ? part : Buffer.from(part)));
      shapes.set(shape, (found = faithful ? [bytes(lead), bytes(middle)] : null));
    }
    return found;
  };
  const shapedHead = new ShapedHead();
  const textHead = new TextHead();
  /** The head of a series the loop meets after another one. */
  const headOf = (series: Series): LineHead => {
    const parts = series.shape ? partsOf(series) : null;
    if (!parts && !series.transient) return cachedHeadOf(series);
    lastCached = undefined;
    return parts
      ? shapedHead.point(parts, series.fills!, timeValuedOf(series))
      : textHead.point(format.lead(series), format.middle(series), timeValuedOf(series));
  };
  let lastSeries: Series | undefined;
  let head: LineHead = textHead;
  const exactTimes = format.exactTimes ?? false;
  let lastMs = NaN;
  let lastNanos = 0;
  let stamp = '';
  // The stamp's bytes, made on its second line: a backfill stamps each line with a new millisecond.
  let stampBytes: Buffer | undefined;
  let lastValue = NaN;
  let valueText = '';
  const formatShortest = format.value.shortest;
  // Values of the current series in the shortest form: the format's, or the series' values are times.
  let shortest = formatShortest;
  // The value is written by writeShortestAt (`valueText` unused).
  let direct = false;
  let lineGuess = FIRST_LINE_GUESS;
  const exemplarWriter = format.exemplar && new ExemplarWriter(format.exemplar);
  // The buffer of the batch being encoded: grown by the writers below, as the lines need.
  let out: Buffer = NO_BYTES;
  // A view of all of `out`, made with it: writeShortestAt writes a non-integer's digits through it.
  let view: DataView = NO_VIEW;
  const writeInto = (buffer: Buffer): Buffer => {
    view = viewOf(buffer);
    return (out = buffer);
  };
  const columns = new BatchColumns();

  /**
   * Writes the lines of rows `from` to `to` (excluded) of `batch` at `at`, their ends into `ends`; returns where they
   * end. No exemplar is written here, and `to` ends the runs of lines copied: an exemplar's row is the last of a call.
   * With a row's exemplar written inside this loop, every line of a batch carrying any cost about 7 ns more, however
   * few carried one (docs/performance.md).
   */
  const writeLines = (from: number, to: number, at: number, ends: number[]): number => {
    const { size, value, series, anchor, offset } = columns;
    let bytes = out;
    let bytesView = view;
    for (let i = from; i < to; i++) {
      const s = series[i]!;
      if (s !== lastSeries) {
        lastSeries = s;
        head = headOf(s);
        if (!formatShortest && head.timeValued !== shortest) {
          shortest = head.timeValued;
          // The value's text was made in the other form.
          lastValue = NaN;
        }
      }
      const ms = timestampAt(anchor, offset, i);
      const nanos = exactTimes ? nanosecondsWithin(anchor, offset, i, ms) : 0;
      // After 1970 the stamp is the millisecond's, the nanoseconds written over it below: one stamp a millisecond.
      const stampNanos = ms >= 0 ? 0 : nanos;
      if (ms !== lastMs || stampNanos !== lastNanos) {
        lastMs = ms;
        lastNanos = stampNanos;
        stamp = format.stamp(ms, stampNanos);
        stampBytes = undefined;
      } else stampBytes ??= Buffer.from(stamp);
      const v = value[i]!;
      // NaN never equals itself: it is formatted again, which is correct, only slower.
      if (v !== lastValue) {
        lastValue = v;
        // A finite value in the shortest form is written straight (writeShortestAt: the text String gives).
        direct = shortest && Number.isFinite(v);
        valueText = direct ? '' : format.value(v);
      }
      // Room for the line: a UTF-16 unit of text is at most 3 UTF-8 bytes.
      const length = head.room + (direct ? SHORTEST_MAX_BYTES : valueText.length * 3) + stamp.length * 3;
      if (at + length > bytes.length) {
        bytes = writeInto(grown(bytes, at, length + (size - i) * lineGuess));
        bytesView = view;
      }
      const lineStart = at;
      at = head.writeLead(bytes, at);
      at = direct ? writeShortestAt(bytes, bytesView, value, i, at) : writeText(bytes, valueText, at);
      at = head.writeMiddle(bytes, at);
      at = stampBytes ? putBytes(bytes, stampBytes, at) : writeText(bytes, stamp, at);
      if (nanos !== stampNanos) putSixDigits(bytes, nanos, at - NANOS_TAIL);
      ends[i] = at;
      // The lines after it with the same series, value and millisecond (a constant signal at a high rate) are the
      // same bytes: copied in blocks that double, a few copies a run. Exact times after 1970 are then written over
      // each copy's nanoseconds.
      let same = i + 1;
      while (
        same < to &&
        series[same] === s &&
        value[same] === v &&
        timestampAt(anchor, offset, same) === ms &&
        (!exactTimes || ms >= 0)
      )
        same++;
      const copies = same - i - 1;
      if (copies > 0) {
        const line = at - lineStart;
        if (at + copies * line > bytes.length) {
          bytes = writeInto(grown(bytes, at, copies * line + (size - same) * lineGuess));
          bytesView = view;
        }
        for (let done = 0; done < copies; ) {
          const block = Math.min(copies - done, done + 1);
          bytes.copyWithin(at, lineStart, lineStart + block * line);
          at += block * line;
          done += block;
        }
        for (let k = 1; k <= copies; k++) ends[i + k] = ends[i]! + k * line;
        if (exactTimes)
          for (let k = 1; k <= copies; k++)
            putSixDigits(bytes, nanosecondsWithin(anchor, offset, i + k, ms), ends[i + k]! - NANOS_TAIL);
        i = same - 1;
      }
    }
    return at;
  };

  /**
   * Writes exemplar `k` of the batch's `exemplars` in place of the line feed of its row, the line written last, which
   * ends at `at`; returns where it ends.
   */
  const writeExemplar = (exemplars: ExemplarRows, k: number, at: number): number => {
    const row = exemplars.rows[k]!;
    const exemplarMs = exemplars.timestamp[k]!;
    // Its timestamp is most often its row's: the line's stamp, which ends with the line feed, then serves (''). The
    // row's line was written last, so its millisecond is the one kept (lastMs).
    const ownStamp =
      exemplarMs !== lastMs || (exactTimes && nanosecondsWithin(columns.anchor, columns.offset, row, lastMs) !== 0)
        ? format.stamp(exemplarMs, 0)
        : '';
    const value = exemplars.value[k]!;
    // Whatever the precision: rounded, a span's duration would be no span's, perhaps out of its bucket (a non-finite
    // value is the same text either way).
    const valueText = Number.isFinite(value) ? undefined : format.value(value);
    const room = exemplarWriter!.room + (valueText?.length ?? 0) * 3 + (ownStamp || stamp).length * 3;
    if (at + room > out.length) writeInto(grown(out, at, room + (columns.size - row) * lineGuess));
    // In place of the line feed, which the exemplar's stamp ends with.
    return exemplarWriter!.write(out, view, exemplars, k, at - 1, valueText, ownStamp, stamp.length);
  };

  return {
    encode(batch: Labelled<SampleBatch>) {
      const { size } = columns.take(batch);
      const exemplars = format.exemplar && batch.exemplars;
      writeInto(Buffer.allocUnsafe(size * lineGuess));
      const ends = new Array<number>(size);
      let at = 0;
      let from = 0;
      try {
        // The lines up to each exemplar's row (rows ascend), then its exemplar; then the lines after the last.
        if (exemplars)
          for (let k = 0; k < exemplars.rows.length; k++) {
            const row = exemplars.rows[k]!;
            // Rows ascend, each at most once (ExemplarRows): one out of order or past the end is left out, not written
            // over another line.
            if (row < from || row >= size) continue;
            at = writeLines(from, row + 1, at, ends);
            ends[row] = at = writeExemplar(exemplars, k, at);
            from = row + 1;
          }
        at = writeLines(from, size, at, ends);
        if (size > 0) lineGuess = Math.ceil(at / size) + 8;
        return encodedLines(batch, out.subarray(0, at), ends);
      } finally {
        // Not held past the batch, nor when a format's text throws: the chunk holds them.
        out = NO_BYTES;
        view = NO_VIEW;
        columns.release();
      }
    },
  };
}

/** The encoder's buffer between batches, and its view. */
const NO_BYTES = Buffer.alloc(0);
const NO_VIEW = viewOf(NO_BYTES);
