import { timestampOf, type Labelled, type SampleBatch, type Series, type SeriesShape } from '../../operators/model/batch.js';
import { filledParts, partsAtHoles } from '../../operators/model/series.js';
import { encodedLines, type TextMetricEncoder } from './encoder.js';
import { grown, writeText } from './grow.js';
import { SHORTEST_MAX_BYTES, writeInteger, writeShortest } from './shortest.js';
import type { ValueFormat } from './number.js';

/** How one sample line is put together: `lead(series) + value + middle(series) + stamp(ms)`. */
export interface SampleLineFormat {
  /** Text before the value, once per series. */
  lead(series: Series): string;
  /** Text between the value and the timestamp fragment, once per series. */
  middle(series: Series): string;
  /** Text from the timestamp to the end of the line, once per millisecond. */
  stamp(ms: number): string;
  readonly value: ValueFormat;
}

/** Bytes of one line a batch starts from, before the encoder has seen a line. */
const FIRST_LINE_GUESS = 96;

/** A series' text before and after the value, as bytes; and the series that followed it last time, with its fragments. */
interface Fragments {
  readonly lead: Buffer;
  readonly middle: Buffer;
  nextSeries?: Series;
  next?: Fragments;
}

/** A shape's text cut at its holes: literal bytes, and hole numbers. */
type ShapeParts = readonly (Buffer | number)[];

/** Bytes a hole's fill may take: a safe integer's digits, or a string of hex digits. */
const fillBytes = (fill: number | string) => (typeof fill === 'number' ? 16 : fill.length * 3);

/** Writes `parts` of a shape with `fills` into `out` at `at` (room assumed); returns where they end. */
function writeShaped(out: Buffer, parts: ShapeParts, fills: readonly (number | string)[], at: number): number {
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    if (typeof part !== 'number') {
      out.set(part, at);
      at += part.length;
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
 * A line-per-sample encoder writing each batch straight into one byte buffer. A series'
 * fragments are encoded to bytes once, cached per Series object (weakly: a series the label
 * operator dropped costs nothing here); a shaped series (past interning) is written from its
 * shape's bytes, cut once at the holes, with its counters' digits between them; another
 * transient one is written as text, uncached. The millisecond's fragment is made once and kept
 * while consecutive samples share it; a finite value goes in through `writeShortest`, with no
 * string made; a run of lines identical to the one before (same series, value and
 * millisecond) is copied in blocks. A line costs a few copies and no string building.
 */
export function sampleLines(format: SampleLineFormat): TextMetricEncoder {
  const fragments = new WeakMap<Series, Fragments>();
  const fragmentsOf = (series: Series): Fragments => {
    let found = fragments.get(series);
    if (!found) fragments.set(series, (found = { lead: Buffer.from(format.lead(series)), middle: Buffer.from(format.middle(series)) }));
    return found;
  };
  // The fragments of the last cached series: if the series that followed it last time comes
  // again, its fragments are one step away (a histogram's rows come in the same order every tick).
  let lastFragments: Fragments | undefined;
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
      const faithful = filledParts(lead, fills) === format.lead(series) && filledParts(middle, fills) === format.middle(series);
      const bytes = (parts: (string | number)[]) => parts.map((part) => (typeof part === 'number' ? part : Buffer.from(part)));
      shapes.set(shape, (found = faithful ? [bytes(lead), bytes(middle)] : null));
    }
    return found;
  };
  let lastSeries: Series | undefined;
  // The series' fragments as cached bytes, as a shape's parts and fills, or, for another
  // transient series, as text written in place.
  let lead: Buffer | undefined;
  let middle: Buffer | undefined;
  let shaped: readonly [ShapeParts, ShapeParts] | null = null;
  let fills: readonly (number | string)[] = [];
  let leadText = '';
  let middleText = '';
  let lastMs = NaN;
  let stamp = '';
  // The stamp's bytes, made on its second line: a backfill stamps each line with a new millisecond.
  let stampBytes: Buffer | undefined;
  let lastValue = NaN;
  let valueText = '';
  const shortest = format.value.shortest;
  // The value is written by writeShortest (`valueText` unused).
  let direct = false;
  let lineGuess = FIRST_LINE_GUESS;

  return {
    encode(batch: Labelled<SampleBatch>) {
      const { size, value, series } = batch;
      let out: Buffer = Buffer.allocUnsafe(size * lineGuess);
      let at = 0;
      const ends = new Array<number>(size);
      for (let i = 0; i < size; i++) {
        const s = series[i]!;
        if (s !== lastSeries) {
          lastSeries = s;
          shaped = s.shape ? partsOf(s) : null;
          if (shaped || s.transient) lastFragments = undefined;
          if (shaped) {
            lead = middle = undefined;
            fills = s.fills!;
          } else if (s.transient) {
            lead = middle = undefined;
            leadText = format.lead(s);
            middleText = format.middle(s);
          } else {
            let found = lastFragments?.nextSeries === s ? lastFragments.next! : undefined;
            if (!found) {
              found = fragmentsOf(s);
              if (lastFragments) {
                lastFragments.nextSeries = s;
                lastFragments.next = found;
              }
            }
            lastFragments = found;
            lead = found.lead;
            middle = found.middle;
          }
        }
        const ms = timestampOf(batch, i);
        if (ms !== lastMs) {
          lastMs = ms;
          stamp = format.stamp(ms);
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
        const seriesBytes = shaped
          ? shapedBytes(shaped[0], fills) + shapedBytes(shaped[1], fills)
          : lead && middle
            ? lead.length + middle.length
            : (leadText.length + middleText.length) * 3;
        const length = seriesBytes + (direct ? SHORTEST_MAX_BYTES : valueText.length * 3) + stamp.length * 3;
        if (at + length > out.length) out = grown(out, at, length + (size - i) * lineGuess);
        const lineStart = at;
        if (shaped) at = writeShaped(out, shaped[0], fills, at);
        else if (lead) {
          out.set(lead, at);
          at += lead.length;
        } else at = writeText(out, leadText, at);
        at = direct ? writeShortest(out, v, at) : writeText(out, valueText, at);
        if (shaped) at = writeShaped(out, shaped[1], fills, at);
        else if (middle) {
          // Most formats have nothing between the value and the timestamp.
          if (middle.length !== 0) out.set(middle, at);
          at += middle.length;
        } else at = writeText(out, middleText, at);
        if (stampBytes) {
          out.set(stampBytes, at);
          at += stampBytes.length;
        } else at = writeText(out, stamp, at);
        ends[i] = at;
        // The lines after it with the same series, value and millisecond (a constant signal at
        // a high rate) are the same bytes: copied in blocks that double, a few copies a run.
        let same = i + 1;
        while (same < size && series[same] === s && value[same] === v && timestampOf(batch, same) === ms) same++;
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
          i = same - 1;
        }
      }
      if (size > 0) lineGuess = Math.ceil(at / size) + 8;
      return encodedLines(batch, out.subarray(0, at), ends);
    },
  };
}
