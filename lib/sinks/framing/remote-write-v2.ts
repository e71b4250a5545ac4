import { ExemplarCursor, timestampAt, type Exemplar } from '../../../operators/model/batch.js';
import type { NativeHistogram, BucketSpan } from '../../../operators/model/native-histogram.js';
import type { Series } from '../../../operators/model/series.js';
import {
  BUCKET_SPAN,
  EXEMPLAR,
  HISTOGRAM,
  METADATA,
  REQUEST,
  SAMPLE,
  TIME_SERIES,
  v2Rows,
  type RemoteWriteMetric,
} from '../../protocols/remote-write-v2.js';
import { varintBytes, writeVarint, zigzag } from '../../protocols/varint.js';
import type { RecordRun } from './record-requests.js';
import { putBytes, putDoubleLE } from '../../protocols/bytes.js';

/**
 * Bytes of `symbols` fields a request may carry beyond twice those of the strings it uses, before the sink's
 * table starts afresh: what it carries for other requests (the series of the request before it, exemplar ids
 * of requests long gone). A table of a few thousand series' strings stays put.
 */
export const SYMBOLS_SLACK = 16 * 1024;
/** Strings a sink's table holds at most, whatever the requests' sizes. */
export const MAX_SYMBOLS = 1 << 18;

const NONE = Buffer.alloc(0);

/** The `symbols` field of the empty string, reference 0 of every request. */
const EMPTY_SYMBOL = Buffer.from([REQUEST.symbols, 0]);

/**
 * The strings of a sink's requests, numbered by first use across requests, not per request: a string keeps its
 * reference from request to request, so a series' `labels_refs` bytes are made once. Each request carries the whole
 * table (its `symbols` fields compressed once, {@link block}). The spec asks the symbols de-duplicated and starting
 * with the empty string, not every one referenced. The table starts afresh (a new `generation`, references numbered
 * from 1 again) when it outgrows its bound ({@link remoteWriteV2Requests}), so label sets past interning (rotating
 * labels, exemplar ids) never grow it, nor the requests that carry it, without end.
 *
 * Strings are interned apart from the table (an id each, with its field's bytes), so that taking a series' references
 * again in a new generation reads typed arrays, not a hash per string; past {@link MAX_SYMBOLS} strings the interning
 * starts afresh too (a new `interning`).
 */
class SymbolTable {
  private readonly ids = new Map<string, number>([['', 0]]);
  /** The `symbols` field of each id. */
  private readonly fields: Buffer[] = [EMPTY_SYMBOL];
  /** The generation each id was last given a reference in, and that reference. */
  private placedIn: Int32Array = new Int32Array(1024);
  private refOf: Int32Array = new Int32Array(1024);
  /** The generation's fields, in reference order, and where each ends. */
  private bytes: Buffer = Buffer.allocUnsafe(1024);
  private ends: number[] = [];
  /** The snappy block of the first `blockLength` bytes of `bytes`. */
  private packed: Buffer = NONE;
  private blockLength = 0;
  /** The count of {@link bytesOf} that last met each reference. */
  private counted: Int32Array = new Int32Array(1024);
  private counts = 0;
  generation = 0;
  interning = 0;

  constructor() {
    this.clear();
  }

  /** The id of `text`, interned when new. */
  idOf(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.fields.length;
      this.ids.set(text, id);
      const length = Buffer.byteLength(text);
      const field = Buffer.allocUnsafe(1 + varintBytes(length) + length);
      field[0] = REQUEST.symbols;
      field.write(text, writeVarint(field, length, 1));
      this.fields.push(field);
      if (id >= this.placedIn.length) {
        this.placedIn = grownInts(this.placedIn);
        this.refOf = grownInts(this.refOf);
      }
    }
    return id;
  }

  /** The reference of id `id` in this generation, added at the end when it has none yet. */
  refOfId(id: number): number {
    if (this.placedIn[id] === this.generation) return this.refOf[id]!;
    const field = this.fields[id]!;
    const at = this.byteLength;
    if (at + field.length > this.bytes.length) this.bytes = grownTo(this.bytes, at, field.length, field.length);
    field.copy(this.bytes, at);
    this.placedIn[id] = this.generation;
    this.refOf[id] = this.ends.length;
    this.ends.push(at + field.length);
    return this.ends.length - 1;
  }

  /** The reference of `text`. */
  ref(text: string): number {
    return this.refOfId(this.idOf(text));
  }

  /**
   * A snappy block (by `compress`) of all the table's `symbols` fields: the block made last time joined to the
   * fields added since, so each string is compressed once a generation.
   */
  block(compress: (data: Buffer) => Buffer): Buffer {
    const length = this.byteLength;
    if (this.blockLength !== length) {
      const added = compress(this.bytes.subarray(this.blockLength, length));
      this.packed = this.blockLength ? joinedBlocks(this.packed, added) : added;
      this.blockLength = length;
    }
    return this.packed;
  }

  get byteLength(): number {
    return this.ends[this.ends.length - 1]!;
  }

  /** References in this generation. */
  get size(): number {
    return this.ends.length;
  }

  /** Bytes of the `symbols` fields of the distinct references in `lists`. */
  bytesOf(lists: readonly ArrayLike<number>[]): number {
    if (this.counted.length < this.ends.length) this.counted = new Int32Array(this.ends.length * 2);
    const count = ++this.counts;
    let bytes = 0;
    for (const refs of lists) {
      for (let k = 0; k < refs.length; k++) {
        const ref = refs[k]!;
        if (this.counted[ref] === count) continue;
        this.counted[ref] = count;
        bytes += this.ends[ref]! - (ref ? this.ends[ref - 1]! : 0);
      }
    }
    return bytes;
  }

  /** Starts afresh: only the empty string, reference 0; the interning too past {@link MAX_SYMBOLS} strings. */
  clear(): void {
    this.generation++;
    if (this.fields.length > MAX_SYMBOLS) {
      this.interning++;
      this.ids.clear();
      this.ids.set('', 0);
      this.fields.length = 1;
    }
    EMPTY_SYMBOL.copy(this.bytes, 0);
    this.blockLength = 0;
    this.placedIn[0] = this.generation;
    this.refOf[0] = 0;
    this.ends = [EMPTY_SYMBOL.length];
  }
}

function grownInts(ints: Int32Array): Int32Array {
  const bigger = new Int32Array(ints.length * 2);
  bigger.set(ints);
  return bigger;
}

/** A series' label strings, and the bytes made of their references in one generation of the table. */
interface SeriesRow {
  /** Label names and values, sorted by name, `__name__` among them (`[name, value, name, value, …]`). */
  readonly strings: readonly string[];
  /** Their ids in the table's {@link SymbolTable.interning} of `interning`. */
  readonly ids: Int32Array;
  interning: number;
  /** The {@link SymbolTable.generation} of `refs`, `labels` and `head`. */
  generation: number;
  /** The references of `strings`, and their `labels_refs` field. */
  readonly refs: Int32Array;
  labels: Buffer;
  /**
   * A plain row's bytes before its value (its tag and length, `labels_refs`, the sample's tag and length, the
   * value's tag), for a timestamp field of `stampLength` bytes (-1: to be made) and the metric's `tail`.
   */
  head: Buffer;
  stampLength: number;
  tail: Buffer;
  /** The series that followed this one last time, and its row. */
  nextSeries?: Series;
  next?: SeriesRow;
}

/** What the rows of one metric end in, in one generation of the table. */
interface MetricRows {
  generation: number;
  /** The `metadata` field (`help_ref`, `unit_ref` in the table of `generation`), and those strings' references. */
  metadata: Buffer;
  helpRef: number;
  unitRef: number;
  /** The time the metric's series started counting (0: none), written in every row. */
  start: number;
  /** A sample row's bytes after its timestamp: the sample's start time field, `metadata`, the created time. */
  tail: Buffer;
  /** Bytes of the sample's start time field (the start of `tail`). */
  startLength: number;
}

/** First guess of a row's bytes; a request of longer rows grows its buffer. */
const ROW_ESTIMATE = 64;
/** The exemplar label names, in the sorted order their references take. */
const SPAN_ID = 'span_id';
const TRACE_ID = 'trace_id';

/**
 * Writes remote write 2.0 `io.prometheus.write.v2.Request`s, snappy block-compressed, from the rows of the remote_write
 * chunks of a request: the sink's whole symbol table (`symbols[0]` the empty string), one `TimeSeries` per row with its
 * `labels_refs` (sorted by name, `__name__` among them), its sample or, on a row holding one, its native histogram
 * (integer counts as bucket deltas), its exemplar (`span_id`, `trace_id`), its metadata (type, `help_ref`, `unit_ref`)
 * and, on counters, histograms and summaries, the time the series started counting (the entry start): written where the
 * 2.0 release candidates up to rc.3 read it (`TimeSeries.created_timestamp`, Prometheus 3.0 to 3.7) and where rc.4 does
 * (`Sample.start_timestamp`, `Histogram.start_timestamp`, Prometheus 3.8 on), since a receiver skips a field its
 * definition does not have.
 *
 * References stay put from request to request ({@link SymbolTable}), so a series' sorted label strings and its
 * `labels_refs` are made once a generation of the table, whatever its place in a request, and so is a plain row's head:
 * a sample row is its head, its value, the timestamp field and the metric's tail, copied into one buffer reused from
 * request to request, as the encoder writes a 1.0 record. After a request that carried more than twice the bytes of the
 * strings it uses and {@link SYMBOLS_SLACK}, or after the table reached {@link MAX_SYMBOLS} strings, the table starts
 * afresh: a request carries at most twice the strings of the request before it, that slack, and its own strings. Series
 * many times a request's (strings of ten thousand series in requests of 500) thus have their references taken again
 * from time to time rather than carried in every request.
 *
 * The symbols and the rows are compressed apart (`compress`, a snappy block compressor) and joined into one block
 * ({@link joinedBlocks}): each string of the table is compressed once ({@link SymbolTable.block}), not with every
 * request that carries it. A table of unique label values compresses slowly; it was most of the work.
 */
export function remoteWriteV2Requests(compress: (data: Buffer) => Buffer): (runs: readonly RecordRun[]) => Buffer {
  const rows = new WeakMap<Series, SeriesRow>();
  const metrics = new WeakMap<RemoteWriteMetric, MetricRows>();
  // The row of the last series written: if the series that followed it last time comes again, its row is one
  // step away (the rows of a tick come in the same order every tick).
  let last: SeriesRow | undefined;
  const table = new SymbolTable();
  let out: Buffer = Buffer.allocUnsafe(64 * 1024);
  // Sample values go in through a view: Buffer#writeDoubleLE checks its arguments at each call, which a loop this
  // long does not get optimized away.
  let values = new DataView(out.buffer, out.byteOffset, out.length);
  /** Makes room in `out` for `need` bytes after its first `used`, growing it by at least `guess`. */
  const reserve = (used: number, need: number, guess: number): void => {
    if (used + need <= out.length) return;
    out = grownTo(out, used, need, guess);
    values = new DataView(out.buffer, out.byteOffset, out.length);
  };
  // A sample row's bytes after its value (the timestamp field and the metric's tail), made once a millisecond.
  let lastMs = Number.NaN;
  let lastTail: Buffer = NONE;
  let after: Buffer = NONE;

  return (runs) => {
    const exemplarRefs = [0, 0, 0, 0];
    // The references of the request's metadata and exemplars (one list), then of its rows: counted if it carries
    // many symbols.
    const loose: number[] = [];
    const used: ArrayLike<number>[] = [loose];
    let at = 0;
    for (const { chunk, from, to } of runs) {
      const { batch, metric } = v2Rows(chunk);
      // Read once a run, as the encoders read their batch: no load from the columns a row.
      const { anchor, offset, value, series, native: natives } = batch;
      const start = metric.startTimestamps ? anchor : 0;
      const shared = metricRows(metric, start);
      const { metadata } = shared;
      loose.push(shared.helpRef, shared.unitRef);
      const exemplars = new ExemplarCursor(batch.exemplars);
      for (let i = from; i < to; i++) {
        const own = rowOf(series[i]!, metric.name);
        used.push(own.refs);
        const ms = timestampAt(anchor, offset, i);
        const native = natives?.[i];
        const exemplar = exemplars.at(i);
        if (!native && !exemplar) {
          if (ms !== lastMs || shared.tail !== lastTail) {
            lastMs = ms;
            lastTail = shared.tail;
            after = afterValue(ms, lastTail);
          }
          const head = headOf(own, after.length - lastTail.length, shared);
          const room = head.length + 8 + after.length;
          reserve(at, room, (to - i) * ROW_ESTIMATE);
          at = putBytes(out, head, at);
          values.setFloat64(at, value[i]!, true);
          at = putBytes(out, after, at + 8);
          continue;
        }
        const point = native ? histogramLength(native, ms, start) : sampleLength(ms, start);
        let rowLength = own.labels.length + field(point) + metadata.length + (start ? 1 + varintBytes(start) : 0);
        let exemplarLength = 0;
        if (exemplar) {
          exemplarRefs[0] = table.ref(SPAN_ID);
          exemplarRefs[1] = table.ref(exemplar.spanId);
          exemplarRefs[2] = table.ref(TRACE_ID);
          exemplarRefs[3] = table.ref(exemplar.traceId);
          loose.push(...exemplarRefs);
          exemplarLength = field(packedLength(exemplarRefs)) + 9 + 1 + varintBytes(exemplar.timestamp);
          rowLength += field(exemplarLength);
        }
        const room = field(rowLength);
        reserve(at, room, (to - i) * ROW_ESTIMATE);
        out[at] = REQUEST.timeseries;
        at = writeVarint(out, rowLength, at + 1);
        at = copied(own.labels, out, at);
        if (native) {
          out[at] = TIME_SERIES.histograms;
          at = writeHistogram(out, native, ms, start, writeVarint(out, point, at + 1));
        } else {
          out[at] = TIME_SERIES.samples;
          at = writeSample(out, value[i]!, ms, start, writeVarint(out, point, at + 1));
        }
        if (exemplar) at = writeExemplar(out, exemplar, exemplarRefs, exemplarLength, at);
        at = copied(metadata, out, at);
        if (start) at = writeCreated(out, start, at);
      }
    }
    const body = joinedBlocks(table.block(compress), compress(out.subarray(0, at)));
    const carried = table.byteLength;
    if (table.size > MAX_SYMBOLS || (carried > SYMBOLS_SLACK && carried > 2 * table.bytesOf(used) + SYMBOLS_SLACK))
      table.clear();
    return body;
  };

  /** The row of `series`, its references taken in the table's current generation. */
  function rowOf(series: Series, name: string): SeriesRow {
    const own = (last = rowMade(series, name));
    if (own.generation !== table.generation) {
      own.generation = table.generation;
      const { ids, refs } = own;
      if (own.interning !== table.interning) {
        own.interning = table.interning;
        for (let k = 0; k < ids.length; k++) ids[k] = table.idOf(own.strings[k]!);
      }
      for (let k = 0; k < ids.length; k++) refs[k] = table.refOfId(ids[k]!);
      own.labels = packedField(TIME_SERIES.labelsRefs, refs, own.labels);
      own.stampLength = -1;
    }
    return own;
  }

  /** The row of `series`, as made for an earlier request when there was one. */
  function rowMade(series: Series, name: string): SeriesRow {
    // A transient series (a label set built for one tick) is never met again: kept, it would only cost a weak map
    // entry at every event (lib/per-object.ts).
    if (series.transient) return seriesRow(sortedLabels(name, series));
    let own = last?.nextSeries === series ? last.next : undefined;
    if (own) return own;
    own = rows.get(series);
    if (!own) rows.set(series, (own = seriesRow(sortedLabels(name, series))));
    if (last) {
      last.nextSeries = series;
      last.next = own;
    }
    return own;
  }

  /** What `metric`'s rows starting at `start` end in, its help string's reference taken in the current generation. */
  function metricRows(metric: RemoteWriteMetric, start: number): MetricRows {
    let rows = metrics.get(metric);
    if (!rows) {
      rows = { generation: 0, metadata: NONE, helpRef: 0, unitRef: 0, start: -1, tail: NONE, startLength: 0 };
      metrics.set(metric, rows);
    }
    if (rows.generation !== table.generation || rows.start !== start) {
      if (rows.generation !== table.generation) {
        rows.generation = table.generation;
        rows.helpRef = table.ref(metric.help);
        rows.unitRef = table.ref(metric.unit);
        rows.metadata = metadataBytes(metric.type, rows.helpRef, rows.unitRef);
      }
      rows.start = start;
      rows.startLength = start ? 1 + varintBytes(start) : 0;
      const tail = Buffer.allocUnsafe(2 * rows.startLength + rows.metadata.length);
      let at = 0;
      if (start) {
        tail[0] = SAMPLE.startTimestamp;
        at = writeVarint(tail, start, 1);
      }
      at = copied(rows.metadata, tail, at);
      if (start) writeCreated(tail, start, at);
      rows.tail = tail;
    }
    return rows;
  }
}

/**
 * One snappy block of the data of blocks `a` then `b`. A block is the length of its data (a varint) and elements that
 * copy only from data before them, never past their own block's start: `a`'s elements then `b`'s, under the length of
 * both, read as `a`'s data then `b`'s (https://github.com/google/snappy/blob/main/format_description.txt).
 */
export function joinedBlocks(a: Buffer, b: Buffer): Buffer {
  const [lengthA, headA] = blockLength(a);
  const [lengthB, headB] = blockLength(b);
  const length = lengthA + lengthB;
  const out = Buffer.allocUnsafe(varintBytes(length) + a.length - headA + b.length - headB);
  let at = writeVarint(out, length, 0);
  at += a.copy(out, at, headA);
  b.copy(out, at, headB);
  return out;
}

/** The data length a snappy block starts with, and the bytes of that varint. */
function blockLength(block: Buffer): [number, number] {
  let length = 0;
  let at = 0;
  for (let shift = 1; ; shift *= 0x80) {
    const byte = block[at++]!;
    length += (byte & 0x7f) * shift;
    if (byte < 0x80) return [length, at];
  }
}

/**
 * A plain row's bytes before its value: made again when its references, its timestamp field or its metric's tail
 * change.
 */
function headOf(own: SeriesRow, stampLength: number, { tail, startLength }: MetricRows): Buffer {
  if (own.stampLength === stampLength && own.tail === tail) return own.head;
  const sampleLength = 9 + stampLength + startLength;
  const rowLength = own.labels.length + field(sampleLength) + tail.length - startLength;
  const length = 1 + varintBytes(rowLength) + own.labels.length + 1 + varintBytes(sampleLength) + 1;
  const head = own.head.length === length ? own.head : Buffer.allocUnsafe(length);
  head[0] = REQUEST.timeseries;
  let at = copied(own.labels, head, writeVarint(head, rowLength, 1));
  head[at] = TIME_SERIES.samples;
  at = writeVarint(head, sampleLength, at + 1);
  head[at] = SAMPLE.value;
  own.head = head;
  own.stampLength = stampLength;
  own.tail = tail;
  return head;
}

function seriesRow(strings: readonly string[]): SeriesRow {
  const ids = new Int32Array(strings.length);
  const refs = new Int32Array(strings.length);
  return {
    strings,
    ids,
    interning: -1,
    generation: -1,
    refs,
    labels: NONE,
    head: NONE,
    stampLength: -1,
    tail: NONE,
  };
}

/**
 * The label strings of a row: `__name__` (the metric's name and the series' suffix) among its labels, sorted by name.
 */
function sortedLabels(name: string, series: Series): string[] {
  return Object.entries({ ...series.labels, __name__: name + (series.suffix ?? '') })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flat();
}

/** A sample row's bytes after its value: the sample's `timestamp` field of `ms`, then `tail`. */
function afterValue(ms: number, tail: Buffer): Buffer {
  const out = Buffer.allocUnsafe(1 + varintBytes(ms) + tail.length);
  out[0] = SAMPLE.timestamp;
  out.set(tail, writeVarint(out, ms, 1));
  return out;
}

/** Writes the `created_timestamp` field of `start`; returns where it ends. */
function writeCreated(out: Buffer, start: number, at: number): number {
  out[at] = TIME_SERIES.createdTimestamp;
  return writeVarint(out, start, at + 1);
}

/** A `Metadata` field: `type`, `help_ref` and `unit_ref` (left out when 0, the empty string, as proto3 does). */
function metadataBytes(type: number, helpRef: number, unitRef: number): Buffer {
  const unitLength = unitRef ? 1 + varintBytes(unitRef) : 0;
  const body = 1 + varintBytes(type) + 1 + varintBytes(helpRef) + unitLength;
  const out = Buffer.allocUnsafe(field(body));
  out[0] = TIME_SERIES.metadata;
  let at = writeVarint(out, body, 1);
  out[at] = METADATA.type;
  at = writeVarint(out, type, at + 1);
  out[at] = METADATA.helpRef;
  at = writeVarint(out, helpRef, at + 1);
  if (unitRef) {
    out[at] = METADATA.unitRef;
    writeVarint(out, unitRef, at + 1);
  }
  return out;
}

/** Bytes of a length-delimited field (one-byte tag) whose content is `length` bytes. */
function field(length: number): number {
  return 1 + varintBytes(length) + length;
}

/** A packed repeated varint field of `values`: in `into` when it fits exactly. */
function packedField(tag: number, values: Int32Array, into: Buffer): Buffer {
  const length = packedLength(values);
  const out = into.length === field(length) ? into : Buffer.allocUnsafe(field(length));
  writePacked(out, tag, values, length, 0);
  return out;
}

/**
 * Copies `bytes` into `out` at `at` (a byte at a time: the few bytes of a row's field copy faster so); returns where
 * they end.
 */
function copied(bytes: Uint8Array, out: Buffer, at: number): number {
  for (let k = 0; k < bytes.length; k++) out[at++] = bytes[k]!;
  return at;
}

function packedLength(values: ArrayLike<number>): number {
  let length = 0;
  for (let k = 0; k < values.length; k++) length += varintBytes(values[k]!);
  return length;
}

function writePacked(out: Buffer, tag: number, values: ArrayLike<number>, length: number, at: number): number {
  out[at] = tag;
  at = writeVarint(out, length, at + 1);
  for (let k = 0; k < values.length; k++) at = writeVarint(out, values[k]!, at);
  return at;
}

/** Bytes of a `Sample`: the value, the timestamp, the start time unless 0. */
function sampleLength(ms: number, start: number): number {
  return 9 + 1 + varintBytes(ms) + (start ? 1 + varintBytes(start) : 0);
}

function writeSample(out: Buffer, value: number, ms: number, start: number, at: number): number {
  out[at] = SAMPLE.value;
  at = putDoubleLE(out, value, at + 1);
  out[at] = SAMPLE.timestamp;
  at = writeVarint(out, ms, at + 1);
  if (!start) return at;
  out[at] = SAMPLE.startTimestamp;
  return writeVarint(out, start, at + 1);
}

function writeExemplar(out: Buffer, exemplar: Exemplar, refs: readonly number[], length: number, at: number): number {
  out[at] = TIME_SERIES.exemplars;
  at = writeVarint(out, length, at + 1);
  at = writePacked(out, EXEMPLAR.labelsRefs, refs, packedLength(refs), at);
  out[at] = EXEMPLAR.value;
  at = putDoubleLE(out, exemplar.value, at + 1);
  out[at] = EXEMPLAR.timestamp;
  return writeVarint(out, exemplar.timestamp, at + 1);
}

/** Bytes of an integer `Histogram` of `h` at `ms`. */
function histogramLength(h: NativeHistogram, ms: number, start: number): number {
  return (
    1 +
    varintBytes(h.count) +
    9 + // sum
    1 +
    varintBytes(zigzag(h.schema)) +
    9 + // zero_threshold
    1 +
    varintBytes(h.zeroCount) +
    bucketsLength(h.negativeSpans, h.negativeCounts) +
    bucketsLength(h.positiveSpans, h.positiveCounts) +
    1 +
    varintBytes(ms) +
    (start ? 2 + varintBytes(start) : 0)
  );
}

function writeHistogram(out: Buffer, h: NativeHistogram, ms: number, start: number, at: number): number {
  out[at] = HISTOGRAM.countInt;
  at = writeVarint(out, h.count, at + 1);
  out[at] = HISTOGRAM.sum;
  at = putDoubleLE(out, h.sum, at + 1);
  out[at] = HISTOGRAM.schema;
  at = writeVarint(out, zigzag(h.schema), at + 1);
  out[at] = HISTOGRAM.zeroThreshold;
  at = putDoubleLE(out, h.zeroThreshold, at + 1);
  out[at] = HISTOGRAM.zeroCountInt;
  at = writeVarint(out, h.zeroCount, at + 1);
  at = writeBuckets(out, HISTOGRAM.negativeSpans, HISTOGRAM.negativeDeltas, h.negativeSpans, h.negativeCounts, at);
  at = writeBuckets(out, HISTOGRAM.positiveSpans, HISTOGRAM.positiveDeltas, h.positiveSpans, h.positiveCounts, at);
  out[at] = HISTOGRAM.timestamp;
  at = writeVarint(out, ms, at + 1);
  if (!start) return at;
  // Field 17: a tag of two bytes.
  return writeVarint(out, start, writeVarint(out, HISTOGRAM.startTimestamp, at));
}

/** Bytes of a span message: offset and length, both always written. */
function spanLength({ offset, length }: BucketSpan): number {
  return 2 + varintBytes(zigzag(offset)) + varintBytes(length);
}

/** Bytes of the deltas of absolute bucket counts: each count less the one before it (the first less 0). */
function deltasLength(counts: readonly number[]): number {
  let length = 0;
  for (let k = 0; k < counts.length; k++) length += varintBytes(zigzag(counts[k]! - (counts[k - 1] ?? 0)));
  return length;
}

/** Bytes of one side's spans and deltas; nothing for a side without buckets. */
function bucketsLength(spans: readonly BucketSpan[], counts: readonly number[]): number {
  if (!counts.length) return 0;
  let length = field(deltasLength(counts));
  for (const span of spans) length += field(spanLength(span));
  return length;
}

function writeBuckets(
  out: Buffer,
  spanTag: number,
  deltaTag: number,
  spans: readonly BucketSpan[],
  counts: readonly number[],
  at: number,
): number {
  if (!counts.length) return at;
  for (const span of spans) {
    out[at] = spanTag;
    at = writeVarint(out, spanLength(span), at + 1);
    out[at] = BUCKET_SPAN.offset;
    at = writeVarint(out, zigzag(span.offset), at + 1);
    out[at] = BUCKET_SPAN.length;
    at = writeVarint(out, span.length, at + 1);
  }
  out[at] = deltaTag;
  at = writeVarint(out, deltasLength(counts), at + 1);
  for (let k = 0; k < counts.length; k++) at = writeVarint(out, zigzag(counts[k]! - (counts[k - 1] ?? 0)), at);
  return at;
}

/** `out` with room for `need` bytes after its first `used`, grown by at least `guess`. */
function grownTo(out: Buffer, used: number, need: number, guess: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + Math.max(need, guess)));
  out.copy(bigger, 0, 0, used);
  return bigger;
}
