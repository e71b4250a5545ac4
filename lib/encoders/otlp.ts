import {
  timestampOf,
  type EncodedBatch,
  type Frames,
  type Labelled,
  type LogBatch,
  type SampleBatch,
  type SpanContext,
} from '../../operators/model/batch.js';
import { SAMPLED_FLAG } from '../../operators/model/span.js';
import type { Series } from '../../operators/model/series.js';
import type { Severity } from '../language/types.js';
import type { Encoder, MetricMeta } from './encoder.js';
import { grown } from './grow.js';
import { OTLP_TAG, attributes, nanos, nanoseconds, otlpMessages } from '../protocols/otlp.js';

/** An OTLP encoder: its records are `metrics` or `log_records` fields of a scope (see {@link otlpMetrics}). */
export type OtlpEncoder<B> = Encoder<B, Uint8Array>;

/** OTLP's `AggregationTemporality.CUMULATIVE`. */
const CUMULATIVE = 2;
/** The 18 bytes after a number point's head: `time_unix_nano` and `as_double`, tag and 8 bytes each. */
const POINT_TAIL = 18;
/** First guess of a number point's record bytes; a batch of longer ones grows its buffer. */
const RECORD_ESTIMATE = 160;

/**
 * OTLP metrics encoder. Each event becomes one `Metric` of its OTLP type holding one data point,
 * written as a `ScopeMetrics.metrics` field; the sink wraps a request's records in one
 * `ResourceMetrics` and `ScopeMetrics` (lib/sinks/otlp-request.ts). By `metric_type`:
 *
 * - `gauge`, `untyped` → Gauge; `counter` → Sum, monotonic, cumulative, its start time the entry's
 *   start (stable across the run);
 * - `histogram` → Histogram (cumulative): explicit bounds are the entry's buckets, bucket counts per
 *   bucket (not cumulative, as OTLP wants; the last one counts above the highest bound), sum, count;
 * - `summary` → Summary with its quantile values, sum and count.
 *
 * Labels become data-point attributes, `help` the description, times are the entry's clock in
 * nanoseconds. Gauge and Sum points are written from precomputed bytes (per series, everything
 * but the time and value, encoded by protobufjs); histogram and summary points are encoded whole.
 */
export function otlpMetrics({ name, metricType = 'gauge', help }: MetricMeta): OtlpEncoder<Labelled<SampleBatch>> {
  const { protobuf, type } = otlpMessages();
  const sum = metricType === 'counter';

  if (metricType === 'histogram' || metricType === 'summary') {
    const Metric = type('Metric');
    const described = help ? { name, description: help } : { name };
    const point = metricType === 'histogram' ? histogramPoint : summaryPoint;
    return {
      encode(batch) {
        const events = batch.events ?? batch.size;
        const rows = events > 0 ? batch.size / events : 0;
        const writer = protobuf.Writer.create();
        const ends = new Array<number>(events);
        const series = new Array<Series>(events);
        const offset = new Float64Array(events);
        for (let e = 0; e < events; e++) {
          const at = e * rows;
          series[e] = batch.series[at + rows - 1]!;
          offset[e] = batch.offset[at]!;
          const data = {
            ...point(batch, at, rows),
            attributes: attributes(series[e]!.labels),
            startTimeUnixNano: nanos(batch.anchor),
            timeUnixNano: nanos(timestampOf(batch, at)),
          };
          writer.uint32(OTLP_TAG.second).fork();
          Metric.encode(
            {
              ...described,
              [metricType]:
                metricType === 'histogram'
                  ? { aggregationTemporality: CUMULATIVE, dataPoints: [data] }
                  : { dataPoints: [data] },
            },
            writer,
          );
          writer.ldelim();
          ends[e] = writer.len;
        }
        const data = writer.finish();
        return { size: events, data, bytes: data.byteLength, frames: recordFrames(ends, series, batch.anchor, offset) };
      },
    };
  }

  const NumberDataPoint = type('NumberDataPoint');
  const writer = () => protobuf.Writer.create();
  const sumFields = sum
    ? writer().uint32(OTLP_TAG.temporality).int32(CUMULATIVE).uint32(OTLP_TAG.monotonic).bool(true).finish()
    : new Uint8Array(0);
  const heads = new WeakMap<Series, { readonly bytes: Buffer; readonly anchor: number }>();
  /**
   * A number point's record up to its time: the `metrics` field holding a Metric (name,
   * description, Gauge or Sum) whose one data point ends with the 18 bytes of time and value.
   */
  const headOf = (series: Series, anchor: number): Buffer => {
    const found = heads.get(series);
    if (found?.anchor === anchor) return found.bytes;
    const labels = NumberDataPoint.encode({ attributes: attributes(series.labels) }).finish();
    const start = sum ? writer().uint32(OTLP_TAG.startTime).fixed64(nanos(anchor)).finish() : new Uint8Array(0);
    const pointLength = labels.length + start.length + POINT_TAIL;
    const dataPoint = writer().uint32(OTLP_TAG.first).uint32(pointLength).finish();
    const innerLength = sumFields.length + dataPoint.length + pointLength;
    const named = writer().uint32(OTLP_TAG.first).string(name);
    if (help) named.uint32(OTLP_TAG.second).string(help);
    const metric = named
      .uint32(sum ? OTLP_TAG.sum : OTLP_TAG.gauge)
      .uint32(innerLength)
      .finish();
    const record = writer()
      .uint32(OTLP_TAG.second)
      .uint32(metric.length + innerLength)
      .finish();
    const bytes = Buffer.concat([record, metric, sumFields, dataPoint, labels, start]);
    heads.set(series, { bytes, anchor });
    return bytes;
  };

  return {
    encode(batch): EncodedBatch<Uint8Array> {
      const { size, value, series } = batch;
      let out: Buffer = Buffer.allocUnsafe(size * RECORD_ESTIMATE);
      let at = 0;
      const ends = new Array<number>(size);
      for (let i = 0; i < size; i++) {
        const head = headOf(series[i]!, batch.anchor);
        if (at + head.length + POINT_TAIL > out.length) out = grown(out, at, (head.length + POINT_TAIL) * (size - i));
        out.set(head, at);
        at += head.length;
        out[at] = OTLP_TAG.time;
        at = out.writeBigUInt64LE(nanoseconds(timestampOf(batch, i)), at + 1);
        out[at] = OTLP_TAG.asDouble;
        at = out.writeDoubleLE(value[i]!, at + 1);
        ends[i] = at;
      }
      return {
        size,
        data: out.subarray(0, at),
        bytes: at,
        frames: recordFrames(ends, series, batch.anchor, batch.offset),
      };
    },
  };
}

/**
 * The fields of a histogram data point from the rows of one event: cumulative buckets (+Inf last), `_sum`,
 * `_count`.
 */
function histogramPoint(batch: Labelled<SampleBatch>, at: number, rows: number) {
  const buckets = rows - 2;
  const explicitBounds: number[] = [];
  const bucketCounts: number[] = [];
  for (let b = 0, below = 0; b < buckets; b++) {
    const cumulative = batch.value[at + b]!;
    if (b < buckets - 1) explicitBounds.push(Number(batch.series[at + b]!.labels.le));
    bucketCounts.push(cumulative - below);
    below = cumulative;
  }
  return { explicitBounds, bucketCounts, sum: batch.value[at + buckets]!, count: batch.value[at + buckets + 1]! };
}

/** The fields of a summary data point from the rows of one event: quantiles, `_sum`, `_count`. */
function summaryPoint(batch: Labelled<SampleBatch>, at: number, rows: number) {
  const quantileValues = [];
  for (let q = 0; q < rows - 2; q++)
    quantileValues.push({ quantile: Number(batch.series[at + q]!.labels.quantile), value: batch.value[at + q]! });
  return { quantileValues, sum: batch.value[at + rows - 2]!, count: batch.value[at + rows - 1]! };
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
 * naming a span (`trace_context`) carries its `trace_id`, `span_id` and the sampled flag.
 */
export function otlpLogs({ observedAt = Date.now }: OtlpLogsOptions = {}): OtlpEncoder<Labelled<LogBatch>> {
  const { protobuf, type } = otlpMessages();
  const LogRecord = type('LogRecord');
  return {
    encode(batch) {
      const writer = protobuf.Writer.create();
      const ends = new Array<number>(batch.size);
      const observed = nanos(observedAt());
      for (let i = 0; i < batch.size; i++) {
        const severity = batch.severity[i] as Severity;
        writer.uint32(OTLP_TAG.second).fork();
        LogRecord.encode(
          {
            timeUnixNano: nanos(timestampOf(batch, i)),
            observedTimeUnixNano: observed,
            severityNumber: SEVERITY_NUMBER[severity],
            severityText: severity,
            body: { stringValue: batch.message[i]! },
            attributes: attributes({ ...batch.series[i]!.labels, ...batch.fields[i] }),
            ...spanOf(batch.context?.[i]),
          },
          writer,
        );
        writer.ldelim();
        ends[i] = writer.len;
      }
      const data = writer.finish();
      return {
        size: batch.size,
        data,
        bytes: data.byteLength,
        frames: recordFrames(ends, batch.series, batch.anchor, batch.offset),
      };
    },
  };
}

/** A log record's trace fields when it names a span: the ids as bytes, and the W3C flag "sampled". */
function spanOf(context: SpanContext | undefined) {
  return (
    context && {
      traceId: Buffer.from(context.traceId, 'hex'),
      spanId: Buffer.from(context.spanId, 'hex'),
      flags: SAMPLED_FLAG,
    }
  );
}

/** Frames of binary records, one per event. */
function recordFrames(ends: number[], series: readonly Series[], anchor: number, offset: Float64Array): Frames {
  return { ends, separator: 0, perEvent: 1, series, anchor, offset };
}
