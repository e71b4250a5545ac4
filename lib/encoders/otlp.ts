import {
  ExemplarCursor,
  type EncodedBatch,
  type ExemplarRows,
  type Exemplar,
  type Frames,
  type Labelled,
  type LogBatch,
  type SampleBatch,
  type RecordSpan,
} from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import type { Series } from '../../operators/model/series.js';
import type { Severity } from '../language/types.js';
import type { Encoder, MetricMeta } from './encoder.js';
import { exponentialPoint, type ExponentialBuckets } from './exponential-buckets.js';
import { fitted, grownToFit } from './grow.js';
import { putBigUInt64LE, putBytes, putDoubleLE, wellFormed } from '../protocols/bytes.js';
import { writeIdBytes } from './id-words.js';
import { perSeriesOf } from '../per-object.js';
import { ucumUnitOf } from '../protocols/metric-units.js';
import {
  EXEMPLAR_TAG,
  OTLP_TAG,
  OTLP_TEMPORALITY,
  attributes,
  fixed64,
  nanos,
  nanoseconds,
  otlpMessages,
  tickNanoseconds,
} from '../protocols/otlp.js';

/** An OTLP encoder: its records are `metrics` or `log_records` fields of a scope (see {@link otlpMetrics}). */
export type OtlpEncoder<B> = Encoder<B, Uint8Array>;

/** How Sum and histogram points relate to time: OTLP's `AggregationTemporality`. */
export type Temporality = keyof typeof OTLP_TEMPORALITY;

/** What the OTLP metrics encoder knows of its metric, and how it writes it. */
export interface OtlpMetricsOptions extends MetricMeta {
  /**
   * `cumulative` (default): a counter's or histogram's totals since the entry start; `delta`: each point the
   * change since the series' previous point. Gauges and summaries have no temporality in OTLP.
   */
  readonly temporality?: Temporality;
}

/** The 18 bytes after a number point's head: `time_unix_nano` and `as_double`, tag and 8 bytes each. */
const POINT_TAIL = 18;
/** A delta point's tail: its own `start_time_unix_nano` (tag and 8 bytes) before the time and value. */
const DELTA_POINT_TAIL = 27;
/** First guess of a number point's record bytes; a batch of longer ones grows its buffer. */
const RECORD_ESTIMATE = 160;
/** Bytes a record of the next batch is guessed to need beyond the last batch's mean (label values differ in length). */
const RECORD_MARGIN = 8;

/**
 * OTLP metrics encoder. Each event becomes one `Metric` of its OTLP type holding one data point,
 * written as a `ScopeMetrics.metrics` field; the sink wraps a request's records in one
 * `ResourceMetrics` and `ScopeMetrics` (lib/sinks/otlp-request.ts). By `metric_type`:
 *
 * - `gauge`, `untyped` → Gauge; `counter` → Sum, monotonic, its start time the entry's start (cumulative; after a
 *   reset, a value below the previous, the time of the point before it) or the series' previous point (delta, the
 *   first point's the entry's start);
 * - `histogram` → Histogram: explicit bounds are the entry's buckets, bucket counts per bucket (not cumulative,
 *   as OTLP wants; the last one counts above the highest bound), sum, count; an event carrying a native histogram
 *   (a row of the `native` column) → ExponentialHistogram instead, its classic rows left out (one metric cannot be
 *   both in one export); either cumulative or delta as the Sum; no `sum` for a histogram that can see negative
 *   observations (`withoutSum`: the proto says it "should not be filled out" then, as OpenMetrics has no `_sum`);
 * - `summary` → Summary with its quantile values, sum and count (no temporality: always since the entry start).
 *
 * The exemplars of an event's rows go on its data point (a summary point has none). Labels become data-point
 * attributes, `help` the description, `unit` the unit (by default the UCUM code of the base unit the name ends
 * with, before a counter's `_total`: `_seconds` is `s`, `_bytes` `By`, `_ratio` `1`); a metric of whole counts (`integer`) has integer points; times are the entry's clock in nanoseconds. Gauge and Sum points are
 * written from precomputed bytes (per series, everything but the start time under delta, the time, the value
 * and an exemplar, encoded by protobufjs); histogram and summary points are encoded whole.
 */
export function otlpMetrics(options: OtlpMetricsOptions): OtlpEncoder<Labelled<SampleBatch>> {
  // The unit the name ends with, as OpenMetrics' # UNIT and remote write's metadata read it, unless given.
  const withUnit = { ...options, unit: options.unit ?? ucumUnitOf(options.name, options.metricType) };
  return options.metricType === 'histogram' || options.metricType === 'summary'
    ? distributionMetrics(withUnit)
    : numberMetrics(withUnit);
}

/** Gauge and Sum points from precomputed bytes. */
function numberMetrics({
  name,
  metricType,
  help,
  unit,
  integer,
  temporality,
}: OtlpMetricsOptions): OtlpEncoder<Labelled<SampleBatch>> {
  const { protobuf, type } = otlpMessages();
  const timeOf = tickNanoseconds();
  const NumberDataPoint = type('NumberDataPoint');
  const sum = metricType === 'counter';
  const delta = sum && temporality === 'delta';
  const tail = delta ? DELTA_POINT_TAIL : POINT_TAIL;
  const writer = () => protobuf.Writer.create();
  const sumFields = sum
    ? writer()
        .uint32(OTLP_TAG.temporality)
        .int32(OTLP_TEMPORALITY[delta ? 'delta' : 'cumulative'])
        .uint32(OTLP_TAG.monotonic)
        .bool(true)
        .finish()
    : new Uint8Array(0);
  /**
   * A number point's record up to its tail: the `metrics` field holding a Metric (name, description, Gauge or
   * Sum) whose one data point ends with the bytes of (cumulative) `start`, then (delta) start time, time, value and
   * `extra` bytes.
   */
  const headBytes = (series: Series, start: bigint, extra: number): Buffer => {
    const labels = NumberDataPoint.encode({ attributes: attributes(series.labels) }).finish();
    const startField = sum && !delta ? startTimeField(start) : new Uint8Array(0);
    const pointLength = labels.length + startField.length + tail + extra;
    const dataPoint = writer().uint32(OTLP_TAG.first).uint32(pointLength).finish();
    const innerLength = sumFields.length + dataPoint.length + pointLength;
    const named = writer().uint32(OTLP_TAG.first).string(wellFormed(name));
    if (help) named.uint32(OTLP_TAG.second).string(wellFormed(help));
    if (unit) named.uint32(OTLP_TAG.unit).string(wellFormed(unit));
    const metric = named
      .uint32(sum ? OTLP_TAG.sum : OTLP_TAG.gauge)
      .uint32(innerLength)
      .finish();
    const record = writer()
      .uint32(OTLP_TAG.second)
      .uint32(metric.length + innerLength)
      .finish();
    return Buffer.concat([record, metric, sumFields, dataPoint, labels, startField]);
  };
  // The heads of the batches' anchor (its time is their start time).
  const headsAt = perSeriesOf((series: Series, anchor: number): NumberHead => {
    const start = nanoseconds(anchor);
    return { bytes: headBytes(series, start, 0), start };
  });
  // Sum: each series' previous point, by key (one label set may come as several objects); its head holds it.
  const previous = new Map<string, PreviousPoint>();
  /** Bytes of a record as the last batch wrote them, with a margin: a buffer guessed too large is held as long as its chunk. */
  let recordGuess = RECORD_ESTIMATE;

  return {
    encode(batch): EncodedBatch<Uint8Array> {
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size, anchor, offset, value, series, exemplars: exemplarRows } = batch;
      const exemplars = new ExemplarCursor(exemplarRows);
      let out: Buffer = Buffer.allocUnsafe(size * recordGuess);
      let at = 0;
      const ends = new Array<number>(size);
      const entryStart = nanoseconds(anchor);
      const headOf = headsAt(anchor);
      for (let i = 0; i < size; i++) {
        const head = headOf(series[i]!);
        const time = timeOf(anchor, offset, i);
        let start = entryStart;
        let point = value[i]!;
        if (sum) {
          const last = (head.last ??= previousPoint(previous, series[i]!.key, entryStart));
          // A counter below its previous value restarted: it counts from zero again, since its previous point.
          if (last.time !== undefined) {
            if (delta) {
              start = last.time;
              if (point >= last.value) point -= last.value;
            } else if (point < last.value) last.start = last.time;
          }
          last.time = time;
          last.value = value[i]!;
          // Cumulative: the head holds the start time; made again (rarely: a reset) when it moved.
          if (!delta && head.start !== last.start) {
            head.start = last.start;
            head.bytes = headBytes(series[i]!, last.start, 0);
            head.exemplarBytes = undefined;
          }
        }
        const k = exemplars.find(i);
        const withExemplar = k >= 0;
        const bytes = withExemplar
          ? (head.exemplarBytes ??= headBytes(series[i]!, head.start, EXEMPLAR_FIELD))
          : head.bytes;
        const length = bytes.length + tail + (withExemplar ? EXEMPLAR_FIELD : 0);
        if (at + length > out.length) out = grownToFit(out, at, (length + RECORD_MARGIN) * (size - i));
        at = putBytes(out, bytes, at);
        if (delta) {
          out[at] = OTLP_TAG.startTime;
          at = putBigUInt64LE(out, start, at + 1);
        }
        out[at] = OTLP_TAG.time;
        at = putBigUInt64LE(out, time, at + 1);
        if (integer) {
          out[at] = OTLP_TAG.asInt;
          // A count: whole and not negative (an sfixed64 of such a value has the bytes of its unsigned form).
          at = putBigUInt64LE(out, BigInt(Math.max(0, Math.round(point))), at + 1);
        } else {
          out[at] = OTLP_TAG.asDouble;
          at = putDoubleLE(out, point, at + 1);
        }
        if (withExemplar) at = writeExemplar(out, at, exemplarRows!, k);
        ends[i] = at;
      }
      if (size > 0) recordGuess = Math.ceil(at / size) + RECORD_MARGIN;
      return {
        size,
        data: fitted(out, at, 2 * RECORD_MARGIN * size),
        bytes: at,
        frames: recordFrames(ends, series, anchor, offset),
      };
    },
  };
}

/**
 * A series' precomputed bytes of its number points, without and with an exemplar, the start time (ns) they hold
 * (cumulative Sum), and its previous point.
 */
interface NumberHead {
  bytes: Buffer;
  start: bigint;
  exemplarBytes?: Buffer;
  last?: PreviousPoint;
}

/**
 * The time in nanoseconds (none yet: undefined) and value of a Sum series' previous point, and the start time of
 * its cumulative points: the entry start, or after a reset the time of the point before it.
 */
interface PreviousPoint {
  time: bigint | undefined;
  value: number;
  start: bigint;
}

/** The previous point of the series `key`, made (none yet) on its first point. */
function previousPoint(previous: Map<string, PreviousPoint>, key: string, start: bigint): PreviousPoint {
  let found = previous.get(key);
  if (!found) previous.set(key, (found = { time: undefined, value: 0, start }));
  return found;
}

/** A number point's `start_time_unix_nano`: tag and 8 bytes. */
function startTimeField(start: bigint): Buffer {
  const field = Buffer.allocUnsafe(9);
  field[0] = OTLP_TAG.startTime;
  putBigUInt64LE(field, start, 1);
  return field;
}

/**
 * A number point's `exemplars` field: tag and length, then the Exemplar's time and value (tag and 8 bytes each),
 * span id (tag, length, 8 bytes) and trace id (tag, length, 16 bytes).
 */
const EXEMPLAR_FIELD = 2 + 9 + 9 + 10 + 18;

/** Writes exemplar `k` of `column` as a number point's `exemplars` field (its ids from their words, big-endian). */
function writeExemplar(out: Buffer, at: number, column: ExemplarRows, k: number): number {
  out[at++] = EXEMPLAR_TAG.numberPoint;
  out[at++] = EXEMPLAR_FIELD - 2;
  out[at] = EXEMPLAR_TAG.time;
  at = putBigUInt64LE(out, nanoseconds(column.timestamp[k]!), at + 1);
  out[at] = EXEMPLAR_TAG.asDouble;
  at = putDoubleLE(out, column.value[k]!, at + 1);
  out[at++] = EXEMPLAR_TAG.spanId;
  out[at++] = 8;
  at = writeIdBytes(out, column.spanId, 2 * k, 2, at);
  out[at++] = EXEMPLAR_TAG.traceId;
  out[at++] = 16;
  return writeIdBytes(out, column.traceId, 4 * k, 4, at);
}

/**
 * An event's data point of a histogram or summary: the cumulative state its rows hold, and the OTLP fields of
 * that state, or under delta of the change since an earlier state of the series.
 */
interface PointKind<S extends { readonly count: number }> {
  /** The Metric field of its OTLP type. */
  readonly field: 'histogram' | 'exponentialHistogram' | 'summary';
  state(columns: PointColumns, at: number, rows: number): S;
  fields(state: S, before?: S): object;
}

/**
 * The columns of a batch an event's point is read from, taken from the batch once a batch into an object of one shape:
 * a load from the batch, whose shape differs with the operators before, is megamorphic.
 */
type PointColumns = Pick<Labelled<SampleBatch>, 'value' | 'series' | 'native'>;

/** Histogram points: explicit bounds, counts per bucket. */
const EXPLICIT: PointKind<ReturnType<typeof histogramPoint>> = {
  field: 'histogram',
  state: histogramPoint,
  fields: (state, before) =>
    before
      ? {
          ...state,
          bucketCounts: state.bucketCounts.map((count, b) => count - before.bucketCounts[b]!),
          sum: state.sum - before.sum,
          count: state.count - before.count,
        }
      : state,
};

/** Exponential histogram points, from the event's native histogram. */
const EXPONENTIAL: PointKind<NativeHistogram> = {
  field: 'exponentialHistogram',
  state: ({ native }, at, rows) => native![nativeRow(native, at, rows)]!,
  fields: (state, before) => {
    const { positive, negative, ...point } = exponentialPoint(state, before);
    return { ...point, positive: otlpBuckets(positive), negative: otlpBuckets(negative) };
  },
};

/** Summary points: quantiles. */
const SUMMARY: PointKind<ReturnType<typeof summaryPoint>> = { field: 'summary', state: summaryPoint, fields: (s) => s };

/** Histogram and summary points, each event's encoded whole by protobufjs. */
function distributionMetrics({
  name,
  metricType,
  help,
  unit,
  temporality,
  withoutSum,
}: OtlpMetricsOptions): OtlpEncoder<Labelled<SampleBatch>> {
  const { protobuf, type } = otlpMessages();
  const timeOf = tickNanoseconds();
  const Metric = type('Metric');
  const histogram = metricType === 'histogram';
  // A histogram that can see negative observations: OTLP's sum "should not be filled out", as OpenMetrics'.
  const noSum = histogram && withoutSum === true;
  const delta = histogram && temporality === 'delta';
  const aggregationTemporality = OTLP_TEMPORALITY[delta ? 'delta' : 'cumulative'];
  // Delta: each series' previous state, by key.
  const previous = new Map<string, { time: bigint; state: { count: number } }>();
  return {
    encode(batch) {
      const {
        size,
        anchor,
        offset: rowOffset,
        series: rowSeries,
        value,
        native: natives,
        exemplars: exemplarRows,
      } = batch;
      const columns: PointColumns = { value, series: rowSeries, native: natives };
      const events = batch.events ?? size;
      const rows = events > 0 ? size / events : 0;
      const writer = protobuf.Writer.create();
      const ends = new Array<number>(events);
      const series = new Array<Series>(events);
      const offset = new Float64Array(events);
      // One cursor for the batch: the events' rows are read in order.
      const cursor = histogram && exemplarRows ? new ExemplarCursor(exemplarRows) : undefined;
      for (let e = 0; e < events; e++) {
        const at = e * rows;
        const native = histogram ? nativeRow(natives, at, rows) : -1;
        const kind: PointKind<{ count: number }> = !histogram ? SUMMARY : native < 0 ? EXPLICIT : EXPONENTIAL;
        // The native row's label set, or the `_count` row's: the labels of the series without `le`.
        series[e] = rowSeries[native < 0 ? at + rows - 1 : native]!;
        offset[e] = rowOffset[at]!;
        const time = timeOf(anchor, rowOffset, at);
        const state = kind.state(columns, at, rows);
        const last = delta ? previous.get(series[e]!.key) : undefined;
        if (delta) previous.set(series[e]!.key, { time, state });
        // A count below the previous one: the series restarted, its point counts from zero again.
        const before = last && state.count >= last.state.count ? last.state : undefined;
        const exemplars = cursor ? exemplarsOf(cursor, at, rows) : [];
        const data = {
          ...kind.fields(state, before),
          ...(noSum && { sum: undefined }),
          attributes: attributes(series[e]!.labels),
          startTimeUnixNano: fixed64(last?.time ?? nanoseconds(anchor)),
          timeUnixNano: fixed64(time),
          ...(exemplars.length > 0 && { exemplars }),
        };
        writer.uint32(OTLP_TAG.second).fork();
        Metric.encode(
          {
            ...described(name, help, unit),
            [kind.field]: histogram ? { aggregationTemporality, dataPoints: [data] } : { dataPoints: [data] },
          },
          writer,
        );
        writer.ldelim();
        ends[e] = writer.len;
      }
      const data = writer.finish();
      return { size: events, data, bytes: data.byteLength, frames: recordFrames(ends, series, anchor, offset) };
    },
  };
}

/** A Metric's name and, when the entry has them, its description (`help`) and unit. */
function described(
  name: string,
  help: string | undefined,
  unit: string | undefined,
): { name: string; description?: string; unit?: string } {
  return {
    name: wellFormed(name),
    ...(help && { description: wellFormed(help) }),
    ...(unit && { unit: wellFormed(unit) }),
  };
}

/** The row of an event that holds its native histogram (of the batch's `native` column), or -1. */
function nativeRow(native: SampleBatch['native'], at: number, rows: number): number {
  if (native) for (let r = at; r < at + rows; r++) if (native[r]) return r;
  return -1;
}

/**
 * The exemplars of an event's rows (read from the batch's cursor), as OTLP's; once each (the classic and the native
 * rows may carry the same: the same ids).
 */
function exemplarsOf(cursor: ExemplarCursor, at: number, rows: number): ReturnType<typeof otlpExemplar>[] {
  const found = new Map<string, Exemplar>();
  for (let r = at; r < at + rows; r++) {
    const exemplar = cursor.at(r);
    if (exemplar) found.set(`${exemplar.traceId}/${exemplar.spanId}`, exemplar);
  }
  return [...found.values()].map(otlpExemplar);
}

/** An exemplar as OTLP's: ids as bytes, the value as a double. */
function otlpExemplar({ traceId, spanId, value, timestamp }: Exemplar) {
  return {
    timeUnixNano: nanos(timestamp),
    asDouble: value,
    traceId: Buffer.from(traceId, 'hex'),
    spanId: Buffer.from(spanId, 'hex'),
  };
}

/** Exponential buckets as OTLP's `Buckets` message. */
function otlpBuckets({ offset, counts }: ExponentialBuckets): { offset: number; bucketCounts: readonly number[] } {
  return { offset, bucketCounts: counts };
}

/**
 * The fields of a histogram data point from the rows of one event: cumulative buckets (+Inf last), `_sum`,
 * `_count`.
 */
function histogramPoint({ value, series }: PointColumns, at: number, rows: number) {
  const buckets = rows - 2;
  const explicitBounds: number[] = [];
  const bucketCounts: number[] = [];
  for (let b = 0, below = 0; b < buckets; b++) {
    const cumulative = value[at + b]!;
    if (b < buckets - 1) explicitBounds.push(Number(series[at + b]!.labels.le));
    bucketCounts.push(cumulative - below);
    below = cumulative;
  }
  return { explicitBounds, bucketCounts, sum: value[at + buckets]!, count: value[at + buckets + 1]! };
}

/** The fields of a summary data point from the rows of one event: quantiles, `_sum`, `_count`. */
function summaryPoint({ value, series }: PointColumns, at: number, rows: number) {
  const quantileValues = [];
  for (let q = 0; q < rows - 2; q++)
    quantileValues.push({ quantile: Number(series[at + q]!.labels.quantile), value: value[at + q]! });
  return { quantileValues, sum: value[at + rows - 2]!, count: value[at + rows - 1]! };
}

/**
 * OTLP `SeverityNumber` of each severity: the first number of its range (TRACE 1, DEBUG 5, INFO 9, WARN 13,
 * ERROR 17, FATAL 21).
 */
export const SEVERITY_NUMBER: Readonly<Record<Severity, number>> = {
  trace: 1,
  debug: 5,
  info: 9,
  warn: 13,
  error: 17,
  fatal: 21,
};

export interface OtlpLogsOptions {
  /** `observed_time_unix_nano`: when svc encodes the record; default the wall clock. */
  readonly observedAt?: () => number;
}

/**
 * OTLP logs encoder. Each record becomes a `LogRecord` (a `ScopeLogs.log_records` field): severity
 * number and text (the severity as the scenario names it), body the message, attributes the
 * entry's labels and the record's `fields` (a field wins over a label of the same name),
 * `time_unix_nano` the entry's clock, `observed_time_unix_nano` the moment of encoding; a record
 * naming a span (`trace_context`) carries its `trace_id`, `span_id` and its trace's W3C flags.
 */
export function otlpLogs({ observedAt = Date.now }: OtlpLogsOptions = {}): OtlpEncoder<Labelled<LogBatch>> {
  const { protobuf, type } = otlpMessages();
  const timeOf = tickNanoseconds();
  const LogRecord = type('LogRecord');
  return {
    encode(batch) {
      const { size, anchor, offset, severity: severities, message, series, fields, context } = batch;
      const writer = protobuf.Writer.create();
      const ends = new Array<number>(size);
      const observed = nanos(observedAt());
      for (let i = 0; i < size; i++) {
        const severity = severities[i] as Severity;
        writer.uint32(OTLP_TAG.second).fork();
        LogRecord.encode(
          {
            timeUnixNano: fixed64(timeOf(anchor, offset, i)),
            observedTimeUnixNano: observed,
            severityNumber: SEVERITY_NUMBER[severity],
            severityText: severity,
            body: { stringValue: wellFormed(message[i]!) },
            attributes: attributes({ ...series[i]!.labels, ...fields[i] }),
            ...spanOf(context?.[i]),
          },
          writer,
        );
        writer.ldelim();
        ends[i] = writer.len;
      }
      const data = writer.finish();
      return { size, data, bytes: data.byteLength, frames: recordFrames(ends, series, anchor, offset) };
    },
  };
}

/** A log record's trace fields when it names a span: the ids as bytes, and the flags of the span's trace. */
function spanOf(context: RecordSpan | undefined) {
  return (
    context && {
      traceId: Buffer.from(context.traceId, 'hex'),
      spanId: Buffer.from(context.spanId, 'hex'),
      flags: context.flags,
    }
  );
}

/** Frames of binary records, one per event. */
function recordFrames(ends: number[], series: readonly Series[], anchor: number, offset: Float64Array): Frames {
  return { ends, separator: 0, perEvent: 1, series, anchor, offset };
}
