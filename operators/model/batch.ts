/**
 * The elements that flow through an entry's chain.
 *
 * Every element is a *batch*: all ticks that fell due at one wake-up of the timer, stored
 * column-wise. Operators keep a per-event meaning ("drop the ticks inside a gap") but do
 * their work on whole batches, so RxJS overhead is paid once per wake-up, not per event.
 *
 * Convention: every array-valued own property of a batch is a per-tick column of length
 * `size`; everything else is batch-wide. {@link selectTicks} relies on it.
 */

import type { NativeHistogram } from './native-histogram.js';
import type { Series } from './series.js';
import { spanIdHex, traceIdHex, type IdWords } from './ids.js';

/** Ticks of one wake-up. */
export interface TickBatch {
  /** Number of ticks in the batch. */
  readonly size: number;
  /** Epoch milliseconds written on an event scheduled at offset 0 (the `start_time` anchor). */
  readonly anchor: number;
  /**
   * When offset 0 was, in the time of the scheduler of the timer that made the batch (`ticks` sets it): what an
   * operator that reads the scheduler's `now()` counts the offsets from. Absent (a batch made by hand): `anchor`,
   * which is that start unless an `anchor` option said otherwise.
   */
  readonly start?: number;
  /** Slot number of each tick, counted from 0 at the entry start (gap slots are counted too). */
  readonly index: Float64Array;
  /** Scheduled time of each tick, in milliseconds since the entry start. */
  readonly offset: Float64Array;
  /**
   * Events the batch stands for when one event is written as several rows (a histogram or
   * summary series set: one row per bucket or quantile, `_sum`, `_count`); absent: one per row.
   */
  readonly events?: number;
}

/** Ticks carrying one generated number each. */
export interface SampleBatch extends TickBatch {
  readonly value: Float64Array;
  /** The rows that carry an exemplar, on entries that make exemplars (sparse: most rows carry none). */
  readonly exemplars?: ExemplarRows;
  /**
   * The native histogram of each row, on histogram entries that make them: a row holding one stands for the
   * event's native histogram sample (its series has no suffix, its `value` is the histogram's count).
   */
  readonly native?: (NativeHistogram | undefined)[];
}

/**
 * An exemplar: one observation of a sample, with the trace it was made in (OpenMetrics' `# {trace_id=…} value
 * timestamp`, remote write's and OTLP's exemplars).
 */
export interface Exemplar extends SpanContext {
  readonly value: number;
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

/** An exemplar's trace and span as the label pairs Prometheus' formats carry (`trace_id`, `span_id`). */
export function exemplarLabels({ traceId, spanId }: SpanContext): { name: string; value: string }[] {
  return [
    { name: 'trace_id', value: traceId },
    { name: 'span_id', value: spanId },
  ];
}

/**
 * The exemplars of a batch's rows, sparse and column-wise: exemplar k is on row `rows[k]`, worth `value[k]`, at
 * `timestamp[k]`, its ids words `4k…4k+3` of `traceId` and `2k, 2k+1` of `spanId` (32-bit, high first, as
 * `SpanColumns` holds them). A per-row column would be a large array a batch, most of it empty; an object an
 * exemplar, with its ids as strings, costs more than writing it. Read them row by row with an
 * {@link ExemplarCursor}; build them with an {@link ExemplarRowsBuilder}.
 */
export interface ExemplarRows {
  /** The rows that carry an exemplar, ascending (a row at most once). */
  readonly rows: Int32Array;
  readonly value: Float64Array;
  /** Epoch milliseconds. */
  readonly timestamp: Float64Array;
  /** Four words an exemplar. */
  readonly traceId: Uint32Array;
  /** Two words an exemplar. */
  readonly spanId: Uint32Array;
}

/**
 * `batch` carrying `exemplars` (replacing any it had). Built as a literal of a labelled sample batch's fields rather
 * than as `{ ...batch, exemplars }`: with the spread's copy, every loop reading the batch downstream (OpenMetrics'
 * rows, the line writer) ran slower, enough to cost a whole run with one exemplar in ten events 17 % instead of
 * 9 % (docs/performance.md). Fields of the caller's own, beyond a labelled sample batch's, are copied too.
 */
export function carryingExemplars<B extends Labelled<SampleBatch>>(batch: B, exemplars: ExemplarRows): B {
  const out: Record<string, unknown> = {
    size: batch.size,
    anchor: batch.anchor,
    index: batch.index,
    offset: batch.offset,
    value: batch.value,
    series: batch.series,
    exemplars,
  };
  if (batch.events !== undefined) out.events = batch.events;
  if (batch.native !== undefined) out.native = batch.native;
  for (const field in batch) if (!(field in out)) out[field] = batch[field];
  return out as B;
}

/** `column`'s exemplars on other rows (`rows[k]` for exemplar k), as a literal for the reason above. */
export function exemplarsOnRows(column: ExemplarRows, rows: Int32Array): ExemplarRows {
  return { rows, value: column.value, timestamp: column.timestamp, traceId: column.traceId, spanId: column.spanId };
}

/** Exemplar `k` of `column` as an object, its ids as hex (for readers that build messages of their own). */
export function exemplarAt(column: ExemplarRows, k: number): Exemplar {
  return {
    traceId: traceIdHex(column, k),
    spanId: spanIdHex(column, k),
    value: column.value[k]!,
    timestamp: column.timestamp[k]!,
  };
}

/** First capacity of a builder's columns, in exemplars. */
const FIRST_CAPACITY = 64;

/**
 * Collects the exemplars of a batch's rows, in ascending row order, into columns that double when full. After
 * {@link add} the caller may write the new exemplar's id words (`traceId` at 4k, `spanId` at 2k) itself.
 */
export class ExemplarRowsBuilder {
  /** Exemplars added so far. */
  count = 0;
  rows!: Int32Array;
  value!: Float64Array;
  timestamp!: Float64Array;
  traceId!: Uint32Array;
  spanId!: Uint32Array;

  /** `capacity`: the exemplars expected (a batch's events, say); more grow the columns. */
  constructor(capacity = FIRST_CAPACITY) {
    this.allot(Math.max(1, capacity));
  }

  /** Adds an exemplar on `row` (after every row added) with ids all zero; returns its position k. */
  add(row: number, value: number, timestamp: number): number {
    const k = this.count++;
    if (k === this.rows.length) this.grow();
    this.rows[k] = row;
    this.value[k] = value;
    this.timestamp[k] = timestamp;
    return k;
  }

  /** Adds exemplar `k` of `from` (built columns or a builder's) on `row`; returns its position. */
  addFrom(row: number, from: ExemplarRows | ExemplarRowsBuilder, k: number): number {
    const at = this.add(row, from.value[k]!, from.timestamp[k]!);
    this.setIds(at, from, k);
    return at;
  }

  /** Sets the ids of exemplar `k` to those of span (or exemplar) `s` of `from`. */
  setIds(k: number, from: IdWords, s: number): void {
    // Word by word: a subarray to copy from would be an object an exemplar.
    for (let w = 0; w < 4; w++) this.traceId[4 * k + w] = from.traceId[4 * s + w]!;
    this.spanId[2 * k] = from.spanId[2 * s]!;
    this.spanId[2 * k + 1] = from.spanId[2 * s + 1]!;
  }

  /** The columns, as long as the exemplars added; undefined when none was. */
  build(): ExemplarRows | undefined {
    const n = this.count;
    if (n === 0) return undefined;
    return {
      rows: this.rows.subarray(0, n),
      value: this.value.subarray(0, n),
      timestamp: this.timestamp.subarray(0, n),
      traceId: this.traceId.subarray(0, 4 * n),
      spanId: this.spanId.subarray(0, 2 * n),
    };
  }

  /**
   * Columns for `room` exemplars, views of one buffer: one allocation a batch instead of five (the eight-byte columns
   * first, for their alignment).
   */
  private allot(room: number): void {
    const buffer = new ArrayBuffer(room * BYTES_AN_EXEMPLAR);
    this.value = new Float64Array(buffer, 0, room);
    this.timestamp = new Float64Array(buffer, 8 * room, room);
    this.traceId = new Uint32Array(buffer, 16 * room, 4 * room);
    this.spanId = new Uint32Array(buffer, 32 * room, 2 * room);
    this.rows = new Int32Array(buffer, 40 * room, room);
  }

  private grow(): void {
    const { rows, value, timestamp, traceId, spanId } = this;
    this.allot(2 * rows.length);
    this.rows.set(rows);
    this.value.set(value);
    this.timestamp.set(timestamp);
    this.traceId.set(traceId);
    this.spanId.set(spanId);
  }
}

/** Bytes of one exemplar's columns: value and timestamp 8 each, four trace id words, two span id words, its row. */
const BYTES_AN_EXEMPLAR = 8 + 8 + 16 + 8 + 4;

/**
 * The {@link ExemplarRows} of a per-row column (undefined: the row has none); undefined when no row has one. Ids must
 * be 32 and 16 lowercase hex digits (a RangeError says which is not).
 */
export function exemplarRows(perRow: readonly (Exemplar | undefined)[]): ExemplarRows | undefined {
  const builder = new ExemplarRowsBuilder();
  perRow.forEach((exemplar, row) => {
    if (exemplar === undefined) return;
    const k = builder.add(row, exemplar.value, exemplar.timestamp);
    hexWords(exemplar.traceId, 32, builder.traceId, 4 * k, 'traceId');
    hexWords(exemplar.spanId, 16, builder.spanId, 2 * k, 'spanId');
  });
  return builder.build();
}

/** Writes the 32-bit words of `hex`, an id of `digits` hex digits (8 a word), into `words` at `at`. */
function hexWords(hex: string, digits: number, words: Uint32Array, at: number, field: string): void {
  if (hex.length !== digits || !/^[0-9a-f]*$/.test(hex))
    throw new RangeError(`exemplar ${field}: "${hex}" is not ${digits} lowercase hex digits`);
  for (let w = 0; w < digits / 8; w++) words[at + w] = Number.parseInt(hex.slice(8 * w, 8 * w + 8), 16);
}

/**
 * Reads a batch's exemplars row by row: `find(row)` is a comparison or two a call while every row is read in
 * ascending order, and a binary search when rows are skipped or read out of order.
 */
export class ExemplarCursor {
  private next = 0;

  constructor(private readonly column: ExemplarRows | undefined) {}

  /** The position in the columns of the exemplar of `row`; -1 when it has none. */
  find(row: number): number {
    const column = this.column;
    if (column === undefined) return -1;
    const { rows } = column;
    let next = this.next;
    // Read row by row, `next` is already the first exemplar row from `row` on; a reader that skips rows searches.
    if ((next < rows.length && rows[next]! < row) || (next > 0 && rows[next - 1]! >= row))
      next = firstAtLeast(rows, row);
    if (rows[next] !== row) {
      this.next = next;
      return -1;
    }
    this.next = next + 1;
    return next;
  }

  /** The exemplar of `row` as an object (see {@link exemplarAt}); undefined when it has none. */
  at(row: number): Exemplar | undefined {
    const k = this.find(row);
    return k < 0 ? undefined : exemplarAt(this.column!, k);
  }
}

/** The first position of ascending `rows` holding `row` or more. */
function firstAtLeast(rows: Int32Array, row: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]! < row) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Ticks carrying one log record each. */
export interface LogBatch extends TickBatch {
  readonly severity: string[];
  readonly message: string[];
  /** Placeholder values picked for each record. */
  readonly fields: Readonly<Record<string, string>>[];
  /**
   * The template each record's message was filled from, when a generator filled it from one
   * (undefined for the others, or no column): encoders then write the template's literal text
   * as they prepared it once, and only the values per record.
   */
  readonly template?: (LogTemplate | undefined)[];
  /** The span each record was written in, on entries that take `trace_context` (undefined: none). */
  readonly context?: (RecordSpan | undefined)[];
}

/** A span's identity, as a log record or an exemplar names it. */
export interface SpanContext {
  /** 32 lowercase hexadecimal digits. */
  readonly traceId: string;
  /** 16 lowercase hexadecimal digits. */
  readonly spanId: string;
}

/** The span a log record was written in: its ids, and its trace's W3C flags, as an SDK copies them to the record. */
export interface RecordSpan extends SpanContext {
  readonly flags: number;
}

/**
 * A message template as a generator fills it: the message is `parts` joined, a number standing
 * for the value of the field `names[number]`; the record's fields are exactly `names`.
 */
export interface LogTemplate {
  readonly parts: readonly (string | number)[];
  readonly names: readonly string[];
}

/** Ticks carrying the observations a histogram or summary records on that tick. */
export interface ObservationBatch extends TickBatch {
  readonly observations: Float64Array[];
}

/** A batch whose ticks carry their label set. */
export type Labelled<B extends TickBatch> = B & { readonly series: readonly Series[] };

/** What an encoder made of one batch. */
export interface EncodedBatch<D extends string | Uint8Array = string | Uint8Array> {
  /** Number of events encoded. */
  readonly size: number;
  /**
   * The encoded bytes of every event, ready for the sink: UTF-8 lines of the text encoders, or protobuf bytes
   * (a string from an encoder that writes text as text).
   */
  readonly data: D;
  /** Size of `data` in bytes (UTF-8 for text), measured once by the encoder: sinks and stats read it here. */
  readonly bytes: number;
  /** Where each record lies in `data` and what it belongs to, for sinks that move records one by one. */
  readonly frames: Frames;
  /**
   * Bytes a request carrying any record of this chunk must carry once, before the records (remote
   * write: the metric's metadata); the same object for every chunk of one encoder, so a sink
   * writes it once per request.
   */
  readonly preamble?: D;
}

/**
 * A chunk as it is appended to a file whose last line (before its trailer) is `last`, `cut` short when no line feed
 * ends it, or why it cannot be, as the end of a sentence: an encoder kind's `appended` (lib/encoders/kinds/kind.ts),
 * which a `file` sink appending applies. Here, below both, as encoders and sinks do not import each other.
 */
export type AppendedChunk = (chunk: EncodedBatch, last: string, cut: boolean) => EncodedBatch | string;

/**
 * The records of an encoded chunk, as its encoder wrote them: one per row of the batch (a text
 * line, a protobuf message). Sinks that send or group records one by one (a datagram each, a
 * log-store stream per label set) read them here instead of parsing `data`; the others ignore
 * them. Record `i` spans `[ends[i - 1] ?? 0, ends[i])` of `data`: bytes of a byte array (line-framed
 * text or binary), UTF-16 code units of a string; read it with {@link recordOf}.
 */
export interface Frames {
  /** Where each record ends (exclusive), its separator included. */
  readonly ends: readonly number[];
  /**
   * Bytes (code units of a string) at the end of every record that only separate records: 1 for a line feed,
   * 0 for binary.
   */
  readonly separator: number;
  /** Consecutive records that make one event: 1, or the rows of a histogram or summary series set. */
  readonly perEvent: number;
  /**
   * Events each record holds, when a record holds several (an OTLP `ResourceSpans` holds the spans
   * of its resource); absent: `perEvent` records make one event.
   */
  readonly events?: readonly number[];
  /** Label set of each record: a log store's stream. */
  readonly series: readonly Series[];
  /** The span each record names, when some do (log records of an entry with `trace_context`). */
  readonly context?: readonly (SpanContext | undefined)[];
  /** The batch's time columns, shared, not copied: record `i` is stamped {@link timestampOf}`(frames, i)`. */
  readonly anchor: number;
  readonly offset: Float64Array;
}

/** Record `i` of a chunk without its separator: a string of text data, a view of binary data. */
export function recordOf<D extends string | Uint8Array>({ data, frames }: EncodedBatch<D>, i: number): D {
  const start = i === 0 ? 0 : frames.ends[i - 1]!;
  const end = frames.ends[i]! - frames.separator;
  return (typeof data === 'string' ? data.slice(start, end) : data.subarray(start, end)) as D;
}

/** Size of an encoded chunk in bytes (UTF-8 for text). */
export function byteLength(data: string | Uint8Array): number {
  return typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
}

/**
 * Epoch-millisecond timestamp of tick `i` of a batch (or of record `i` of its {@link Frames}), for a row read alone (a
 * spec's check): a loop over rows reads the columns once and calls {@link timestampAt}.
 */
export function timestampOf(batch: Pick<TickBatch, 'anchor' | 'offset'>, i: number): number {
  return timestampAt(batch.anchor, batch.offset, i);
}

/**
 * {@link timestampOf} of the batch whose `anchor` and `offset` these are. For loops over every row: read from a batch
 * once, they cost no property load a row, and what the batches passing one loop are made of (with exemplars or
 * without, say) does not make its loads polymorphic, which slowed the line encoder by a twentieth (docs/performance.md).
 */
export function timestampAt(anchor: number, offset: Float64Array, i: number): number {
  // Not floor(anchor + offset): an epoch time in ms as a double keeps only about 244 ns, so a tick closer than that
  // before a millisecond's end (above 4 million events/s) would be rounded into the next one. The anchor's whole
  // milliseconds are kept apart, and its fraction (exact) added to the offset.
  const whole = Math.floor(anchor);
  return whole + Math.floor(anchor - whole + offset[i]!);
}

/**
 * Nanoseconds past its millisecond `ms` ({@link timestampAt}) that tick `i` of the batch whose `anchor` and `offset`
 * these are was scheduled at, 0 to 999 999: above 1000 ticks a second several share a millisecond, for formats whose
 * timestamps are finer. Called a line, it takes the columns, not the batch, as {@link timestampAt} does.
 */
export function nanosecondsWithin(anchor: number, offset: Float64Array, i: number, ms: number): number {
  // anchor - ms is small, and exact for doubles within a factor of two (any anchor after 1970 and its times): the sum
  // keeps the offset's precision, where anchor + offset has steps of a quarter of a microsecond around 2025. It is
  // below 0 or past 999 999 only by a rounding of the offset's own sum.
  const nanos = Math.round((anchor - ms + offset[i]!) * 1e6);
  return Math.min(999_999, Math.max(0, nanos));
}

/** Copy of `batch` keeping only the ticks whose positions are listed in `keep` (ascending). */
export function selectTicks<B extends TickBatch>(batch: B, keep: ArrayLike<number>): B {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(batch)) {
    out[field] = isColumn(column) ? pick(column, keep) : column;
  }
  const { exemplars } = batch as Partial<SampleBatch>;
  const picked = exemplars && pickExemplars(exemplars, keep);
  if (picked) out.exemplars = picked;
  else delete out.exemplars;
  out.size = keep.length;
  return out as unknown as B;
}

/** The batch without its native histogram rows: each event keeps its classic series set. */
export function classicRows<B extends SampleBatch>(batch: B): B {
  const { size, native } = batch;
  if (!native) return batch;
  const keep: number[] = [];
  for (let i = 0; i < size; i++) if (!native[i]) keep.push(i);
  const { native: _dropped, ...classic } = selectTicks(batch, keep);
  return classic as B;
}

type Column = Float64Array | unknown[];

function isColumn(value: unknown): value is Column {
  return Array.isArray(value) || value instanceof Float64Array;
}

/** The exemplars of the rows `keep` lists (ascending), at their new places; undefined when none is kept. */
function pickExemplars(column: ExemplarRows, keep: ArrayLike<number>): ExemplarRows | undefined {
  const cursor = new ExemplarCursor(column);
  const picked = new ExemplarRowsBuilder();
  for (let i = 0; i < keep.length; i++) {
    const k = cursor.find(keep[i]!);
    if (k >= 0) picked.addFrom(i, column, k);
  }
  return picked.build();
}

function pick(column: Column, keep: ArrayLike<number>): Column {
  const out = column instanceof Float64Array ? new Float64Array(keep.length) : new Array<unknown>(keep.length);
  for (let i = 0; i < keep.length; i++) out[i] = column[keep[i]!];
  return out;
}
