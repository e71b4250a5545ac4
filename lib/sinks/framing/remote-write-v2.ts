import { ExemplarCursor, timestampOf, type Exemplar } from '../../../operators/model/batch.js';
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
  remoteWriteChunk,
  type RemoteWriteMetric,
} from '../../protocols/remote-write-v2.js';
import { varintBytes, writeVarint, zigzag } from '../../protocols/varint.js';
import type { RecordRun } from './record-requests.js';

/** A series' label strings as symbols, and its `labels_refs` field as it came out in the request last written. */
interface SeriesSymbols {
  /** Label names and values, sorted by name, `__name__` among them (`[name, value, name, value, …]`). */
  readonly strings: readonly string[];
  /** Their ids in the sink's symbols, of `generation`. */
  readonly ids: Int32Array;
  generation: number;
  /** Their references when last written. */
  readonly refs: Int32Array;
  /** The `labels_refs` field of `refs` (tag, length, packed references); empty before the first. */
  labels: Buffer;
  /** The {@link Symbols.state} the references were taken in last, and the one they left. */
  before: number;
  after: number;
  /** The ids that were first used by these references then, in order. */
  added: Int32Array;
  /** The request `labels` belong to. */
  request: number;
  /** The series that followed this one last time, and its symbols. */
  nextSeries?: Series;
  next?: SeriesSymbols;
}

const NONE = Buffer.alloc(0);
const NO_IDS = new Int32Array(0);

/** Strings interned at most, past which the sink's symbols start afresh: memory stays bounded at any cardinality. */
const MAX_SYMBOLS = 1 << 18;
/** States named at most, past which the sink's symbols start afresh too: a state fits an `Int32Array`. */
const MAX_STATES = 2 ** 30;

/**
 * The strings of a sink's requests: each interned once, with the bytes of its `symbols` field, under an id;
 * each request numbers the ids it uses from 1 in order of first use (the empty string is 0 in every request),
 * with typed arrays, not a hash lookup per string. Past {@link MAX_SYMBOLS} strings the table starts afresh
 * (a new `generation`; label sets past interning bring new strings without end).
 *
 * `state` names the request's table so far: equal states, equal tables. Each table is the one before it and
 * one more id, so the state a table leads to when an id is added is remembered by that id: the same ids
 * added in the same order (a series after the series it followed last time) give the same states from
 * request to request, and a series whose references were taken in the same state come out the same.
 */
class Symbols {
  private readonly ids = new Map<string, number>([['', 0]]);
  private fields: Buffer[] = [Buffer.from([REQUEST.symbols, 0])];
  private stamp: Int32Array = new Int32Array(1024);
  private refOf: Int32Array = new Int32Array(1024);
  /** The state an id was last added in (-1: never in this generation), and the state it led to. */
  private addedIn: Int32Array = new Int32Array(1024).fill(-1);
  private leadsTo: Int32Array = new Int32Array(1024);
  private readonly used: number[] = [];
  private request = 0;
  private states = 0;
  /** The table so far; 0 is the empty table every request starts from. */
  state = 0;
  generation = 0;

  /** Starts a request: no id has a reference yet. */
  begin(): void {
    this.request++;
    this.used.length = 0;
    this.state = 0;
    if (this.fields.length > MAX_SYMBOLS || this.states > MAX_STATES) {
      this.generation++;
      this.states = 0;
      this.ids.clear();
      this.ids.set('', 0);
      this.fields.length = 1;
      this.stamp.fill(0);
      this.addedIn.fill(-1);
    }
  }

  idOf(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.fields.length;
      this.ids.set(text, id);
      const length = Buffer.byteLength(text);
      const bytes = Buffer.allocUnsafe(1 + varintBytes(length) + length);
      bytes[0] = REQUEST.symbols;
      bytes.write(text, writeVarint(bytes, length, 1));
      this.fields.push(bytes);
      if (id >= this.stamp.length) {
        this.stamp = grownInts(this.stamp);
        this.refOf = grownInts(this.refOf);
        this.addedIn = grownInts(this.addedIn, -1);
        this.leadsTo = grownInts(this.leadsTo);
      }
    }
    return id;
  }

  /** The reference of `id` in this request. */
  ref(id: number): number {
    if (id === 0) return 0;
    if (this.stamp[id] !== this.request) {
      this.stamp[id] = this.request;
      this.used.push(id);
      this.refOf[id] = this.used.length;
      if (this.addedIn[id] !== this.state) {
        this.addedIn[id] = this.state;
        this.leadsTo[id] = ++this.states;
      }
      this.state = this.leadsTo[id]!;
    }
    return this.refOf[id]!;
  }

  /** Ids used in this request so far. */
  get length(): number {
    return this.used.length;
  }

  /** The ids first used since `length` was `from`: in `into` when they fit it exactly. */
  usedSince(from: number, into: Int32Array): Int32Array {
    const count = this.used.length - from;
    const ids = into.length === count ? into : new Int32Array(count);
    for (let k = 0; k < count; k++) ids[k] = this.used[from + k]!;
    return ids;
  }

  /** Adds `ids` (unused, as they were when they led from `state` to `to` before) and moves to `to`. */
  replay(ids: Int32Array, to: number): void {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      this.stamp[id] = this.request;
      this.used.push(id);
      this.refOf[id] = this.used.length;
    }
    this.state = to;
  }

  /** The request's `symbols` fields, in reference order. */
  bytes(): Buffer {
    const parts = [this.fields[0]!];
    for (const id of this.used) parts.push(this.fields[id]!);
    return Buffer.concat(parts);
  }
}

function grownInts(ints: Int32Array, fill = 0): Int32Array {
  const bigger = new Int32Array(ints.length * 2);
  if (fill) bigger.fill(fill, ints.length);
  bigger.set(ints);
  return bigger;
}

/** First guess of a row's bytes; a request of longer rows grows its buffer. */
const ROW_ESTIMATE = 64;
/** The exemplar label names, in the sorted order their references take. */
const SPAN_ID = 'span_id';
const TRACE_ID = 'trace_id';

/**
 * Writes remote write 2.0 `io.prometheus.write.v2.Request`s (uncompressed) from the rows of remote_write
 * chunks: one symbol table per request (`symbols[0]` the empty string), one `TimeSeries` per row with its
 * `labels_refs` (sorted by name, `__name__` among them), its sample or, on a row holding one, its native
 * histogram (integer counts as bucket deltas), its exemplar (`span_id`, `trace_id`), its metadata (type,
 * `help_ref`; no unit) and, on counters, histograms and summaries, the time the series started counting (the
 * entry start): written where the 2.0 release candidates up to rc.3 read it (`TimeSeries.created_timestamp`,
 * Prometheus 3.0 to 3.7) and where rc.4 does (`Sample.start_timestamp`, `Histogram.start_timestamp`,
 * Prometheus 3.8 on), since a receiver skips a field its definition does not have.
 *
 * The rows are written byte by byte into one buffer reused from request to request, and the symbols before
 * them. A series' sorted label strings are made and interned once (weakly cached, as the encoder caches its
 * 1.0 heads, {@link Symbols}), and its `labels_refs` field kept: a series' later rows in a request copy it,
 * and so does the series in a later request when it comes in the same state of the symbol table as last time
 * (the same series before it: each tick's rows come in the same order), with no reference looked up.
 */
export function remoteWriteV2Requests(): (runs: readonly RecordRun[]) => Buffer {
  const cache = new WeakMap<Series, SeriesSymbols>();
  // The symbols of the last row's series: if the series that followed it last time comes again, its symbols are
  // one step away (the rows of a tick come in the same order every tick).
  let last: SeriesSymbols | undefined;
  const symbols = new Symbols();
  let requestNo = 0;
  let out: Buffer = Buffer.allocUnsafe(64 * 1024);

  return (runs) => {
    const request = ++requestNo;
    symbols.begin();
    const ref = (text: string): number => symbols.ref(symbols.idOf(text));
    const metadata = new Map<RemoteWriteMetric, Buffer>();
    const metadataOf = (metric: RemoteWriteMetric): Buffer => {
      let bytes = metadata.get(metric);
      if (!bytes) metadata.set(metric, (bytes = metadataBytes(metric.type, ref(metric.help))));
      return bytes;
    };
    const exemplarRefs = [0, 0, 0, 0];
    let at = 0;
    for (const { chunk, from, to } of runs) {
      const { batch, metric } = remoteWriteChunk(chunk).rows;
      const meta = metadataOf(metric);
      const start = metric.startTimestamps ? batch.anchor : 0;
      const exemplars = new ExemplarCursor(batch.exemplars);
      for (let i = from; i < to; i++) {
        const own = symbolsOf(batch.series[i]!, metric.name);
        const labels = labelsOf(own, request);
        const ms = timestampOf(batch, i);
        const native = batch.native?.[i];
        const exemplar = exemplars.at(i);
        const point = native ? histogramLength(native, ms, start) : sampleLength(ms, start);
        let rowLength = labels.length + field(point) + meta.length + (start ? 1 + varintBytes(start) : 0);
        let exemplarLength = 0;
        if (exemplar) {
          exemplarRefs[0] = ref(SPAN_ID);
          exemplarRefs[1] = ref(exemplar.spanId);
          exemplarRefs[2] = ref(TRACE_ID);
          exemplarRefs[3] = ref(exemplar.traceId);
          exemplarLength = field(packedLength(exemplarRefs)) + 9 + 1 + varintBytes(exemplar.timestamp);
          rowLength += field(exemplarLength);
        }
        const room = field(rowLength);
        if (at + room > out.length) out = grownTo(out, at, room, (to - i) * ROW_ESTIMATE);
        out[at] = REQUEST.timeseries;
        at = writeVarint(out, rowLength, at + 1);
        at = copied(labels, out, at);
        if (native) {
          out[at] = TIME_SERIES.histograms;
          at = writeHistogram(out, native, ms, start, writeVarint(out, point, at + 1));
        } else {
          out[at] = TIME_SERIES.samples;
          at = writeSample(out, batch.value[i]!, ms, start, writeVarint(out, point, at + 1));
        }
        if (exemplar) at = writeExemplar(out, exemplar, exemplarRefs, exemplarLength, at);
        at = copied(meta, out, at);
        if (start) {
          out[at] = TIME_SERIES.createdTimestamp;
          at = writeVarint(out, start, at + 1);
        }
      }
    }
    return Buffer.concat([symbols.bytes(), out.subarray(0, at)]);
  };

  /** The symbols of `series`, its ids interned in the current generation. */
  function symbolsOf(series: Series, name: string): SeriesSymbols {
    let own = last?.nextSeries === series ? last.next : undefined;
    if (!own) {
      own = cache.get(series);
      if (!own) cache.set(series, (own = seriesSymbols(sortedLabels(name, series))));
      if (last) {
        last.nextSeries = series;
        last.next = own;
      }
    }
    last = own;
    if (own.generation !== symbols.generation) {
      own.generation = symbols.generation;
      for (let k = 0; k < own.strings.length; k++) own.ids[k] = symbols.idOf(own.strings[k]!);
      own.before = -1;
      own.request = 0;
    }
    return own;
  }

  /**
   * The `labels_refs` field of `own` in this request: as last written when its references were taken in this
   * request already, or in the same state of the table as last time (its first-used ids are used again, in
   * order), else of its references taken now (the same bytes when they come out the same).
   */
  function labelsOf(own: SeriesSymbols, request: number): Uint8Array {
    if (own.request === request) return own.labels;
    own.request = request;
    if (own.before === symbols.state) {
      symbols.replay(own.added, own.after);
      return own.labels;
    }
    own.before = symbols.state;
    const mark = symbols.length;
    let same = own.labels.length > 0;
    for (let k = 0; k < own.ids.length; k++) {
      const ref = symbols.ref(own.ids[k]!);
      if (own.refs[k] !== ref) {
        own.refs[k] = ref;
        same = false;
      }
    }
    if (!same) own.labels = packedField(TIME_SERIES.labelsRefs, own.refs, own.labels);
    own.added = symbols.usedSince(mark, own.added);
    own.after = symbols.state;
    return own.labels;
  }
}

function seriesSymbols(strings: readonly string[]): SeriesSymbols {
  const ids = new Int32Array(strings.length);
  const refs = new Int32Array(strings.length);
  return { strings, ids, generation: -1, refs, labels: NONE, before: -1, after: -1, added: NO_IDS, request: 0 };
}

/** The label strings of a row: `__name__` (the metric's name and the series' suffix) among its labels, sorted by name. */
function sortedLabels(name: string, series: Series): string[] {
  return Object.entries({ ...series.labels, __name__: name + (series.suffix ?? '') })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flat();
}

/** A `Metadata` field: `type` and `help_ref` (no unit: `unit_ref` 0, the empty string). */
function metadataBytes(type: number, helpRef: number): Buffer {
  const body = 1 + varintBytes(type) + 1 + varintBytes(helpRef);
  const out = Buffer.allocUnsafe(field(body));
  out[0] = TIME_SERIES.metadata;
  let at = writeVarint(out, body, 1);
  out[at] = METADATA.type;
  at = writeVarint(out, type, at + 1);
  out[at] = METADATA.helpRef;
  writeVarint(out, helpRef, at + 1);
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

/** Copies `bytes` into `out` at `at` (a byte at a time: the few bytes of a row's field copy faster so); returns where they end. */
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
  at = out.writeDoubleLE(value, at + 1);
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
  at = out.writeDoubleLE(exemplar.value, at + 1);
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
  at = out.writeDoubleLE(h.sum, at + 1);
  out[at] = HISTOGRAM.schema;
  at = writeVarint(out, zigzag(h.schema), at + 1);
  out[at] = HISTOGRAM.zeroThreshold;
  at = out.writeDoubleLE(h.zeroThreshold, at + 1);
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
