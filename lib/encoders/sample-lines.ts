import {
  nanosecondsWithin,
  timestampOf,
  type ExemplarRows,
  type Labelled,
  type SampleBatch,
} from '../../operators/model/batch.js';
import { filledParts, partsAtHoles, type Series, type SeriesShape } from '../../operators/model/series.js';
import { encodedLines, type TextMetricEncoder } from './encoder.js';
import { grown, writeText } from './grow.js';
import { putBytes, putSixDigits } from '../protocols/bytes.js';
import { writeHexWords } from './id-words.js';
import { SHORTEST_MAX_BYTES, writeInteger, writeShortest } from './shortest.js';
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
   * value as the format writes values and its timestamp as `stamp` (OpenMetrics'
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
 * Writes a row's exemplar in place of its line feed (see {@link SampleLineFormat.exemplar}): the fixed text with room
 * for the ids between, copied at once (one copy costs less than three short ones), the ids written over the room from
 * their words, then the value and the stamp. Out of the encoder's loop: inlined there, it slowed every line.
 */
class ExemplarWriter {
  private readonly text: Buffer;
  private readonly traceAt: number;
  private readonly spanAt: number;
  private readonly shortest: boolean;
  // What `prepare` found for the exemplar `write` writes next.
  private straight = true;
  private valueText = '';
  private stamp = '';

  constructor(
    { open, between, close }: ExemplarText,
    private readonly format: SampleLineFormat,
  ) {
    this.text = Buffer.from(`${open}${'0'.repeat(32)}${between}${'0'.repeat(16)}${close}`);
    this.traceAt = open.length;
    this.spanAt = open.length + 32 + between.length;
    this.shortest = format.value.shortest;
  }

  /**
   * Prepares exemplar `k` of `column`, on a line stamped `lineStamp` (its millisecond `lineMs`, `lineNanos` past it),
   * and returns the most bytes it takes.
   */
  prepare(column: ExemplarRows, k: number, lineMs: number, lineNanos: number, lineStamp: string): number {
    const ms = column.timestamp[k]!;
    // Its timestamp is most often its row's: the line's stamp, which ends with the line feed, then serves.
    this.stamp = ms === lineMs && lineNanos === 0 ? lineStamp : this.format.stamp(ms, 0);
    const value = column.value[k]!;
    this.straight = this.shortest && Number.isFinite(value);
    this.valueText = this.straight ? '' : this.format.value(value);
    return this.text.length + (this.straight ? SHORTEST_MAX_BYTES : this.valueText.length * 3) + this.stamp.length * 3;
  }

  /**
   * Writes the exemplar prepared last into `out` at `at`, where the line's feed was (room assumed); `lineStampBytes`:
   * the line's stamp as bytes, if made. Returns where it ends.
   */
  write(out: Buffer, column: ExemplarRows, k: number, at: number, lineStamp: string, lineStampBytes?: Buffer): number {
    putBytes(out, this.text, at);
    writeHexWords(out, column.traceId, 4 * k, 4, at + this.traceAt);
    writeHexWords(out, column.spanId, 2 * k, 2, at + this.spanAt);
    at += this.text.length;
    at = this.straight ? writeShortest(out, column.value[k]!, at) : writeText(out, this.valueText, at);
    if (this.stamp !== lineStamp || !lineStampBytes) return writeText(out, this.stamp, at);
    return putBytes(out, lineStampBytes, at);
  }
}

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
  // The value is written by writeShortest (`valueText` unused).
  let direct = false;
  let lineGuess = FIRST_LINE_GUESS;
  const exemplarWriter = format.exemplar && new ExemplarWriter(format.exemplar, format);

  return {
    encode(batch: Labelled<SampleBatch>) {
      const { size, value, series } = batch;
      const exemplars = format.exemplar && batch.exemplars;
      // The next row with an exemplar (rows ascend), past the end when none is left.
      let withExemplar = 0;
      let nextExemplarRow = exemplars ? exemplars.rows[0]! : size;
      let out: Buffer = Buffer.allocUnsafe(size * lineGuess);
      let at = 0;
      const ends = new Array<number>(size);
      for (let i = 0; i < size; i++) {
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
        const ms = timestampOf(batch, i);
        const nanos = exactTimes ? nanosecondsWithin(batch, i, ms) : 0;
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
          // A finite value in the shortest form is written straight (writeShortest: the text String gives).
          direct = shortest && Number.isFinite(v);
          valueText = direct ? '' : format.value(v);
        }
        // Room for the line: a UTF-16 unit of text is at most 3 UTF-8 bytes.
        const length = head.room + (direct ? SHORTEST_MAX_BYTES : valueText.length * 3) + stamp.length * 3;
        if (at + length > out.length) out = grown(out, at, length + (size - i) * lineGuess);
        const lineStart = at;
        at = head.writeLead(out, at);
        at = direct ? writeShortest(out, v, at) : writeText(out, valueText, at);
        at = head.writeMiddle(out, at);
        at = stampBytes ? putBytes(out, stampBytes, at) : writeText(out, stamp, at);
        if (nanos !== stampNanos) putSixDigits(out, nanos, at - NANOS_TAIL);
        const exemplar = i === nextExemplarRow;
        if (exemplar) {
          const k = withExemplar++;
          nextExemplarRow = withExemplar < exemplars!.rows.length ? exemplars!.rows[withExemplar]! : size;
          const room = exemplarWriter!.prepare(exemplars!, k, ms, nanos, stamp);
          if (at + room > out.length) out = grown(out, at, room + (size - i) * lineGuess);
          // In place of the line feed, which the exemplar's stamp ends with.
          at = exemplarWriter!.write(out, exemplars!, k, at - 1, stamp, stampBytes);
        }
        ends[i] = at;
        // The lines after it with the same series, value and millisecond (a constant signal at
        // a high rate) and no exemplar are the same bytes: copied in blocks that double, a few copies a run. Exact
        // times after 1970 are then written over each copy's nanoseconds.
        let same = i + 1;
        while (
          same < size &&
          series[same] === s &&
          value[same] === v &&
          timestampOf(batch, same) === ms &&
          (!exactTimes || ms >= 0) &&
          !exemplar &&
          same !== nextExemplarRow
        )
          same++;
        const copies = same - i - 1;
        if (copies > 0) {
          const line = at - lineStart;
          if (at + copies * line > out.length) out = grown(out, at, copies * line + (size - same) * lineGuess);
          for (let done = 0; done < copies; ) {
            const block = Math.min(copies - done, done + 1);
            out.copyWithin(at, lineStart, lineStart + block * line);
            at += block * line;
            done += block;
          }
          for (let k = 1; k <= copies; k++) ends[i + k] = ends[i]! + k * line;
          if (exactTimes)
            for (let k = 1; k <= copies; k++)
              putSixDigits(out, nanosecondsWithin(batch, i + k, ms), ends[i + k]! - NANOS_TAIL);
          i = same - 1;
        }
      }
      if (size > 0) lineGuess = Math.ceil(at / size) + 8;
      return encodedLines(batch, out.subarray(0, at), ends);
    },
  };
}
