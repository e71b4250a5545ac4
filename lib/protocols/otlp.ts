/**
 * The OTLP messages svc writes and reads (opentelemetry-proto v1: the metrics and logs data
 * models, the collector services' requests and responses with partial success), plus the
 * google.rpc.Status and RetryInfo a gRPC server attaches to a refusal, declared for protobufjs by
 * their field numbers. protobufjs is an optional package of the `otlp` feature, loaded on first
 * use.
 */
import type * as Protobuf from 'protobufjs';
import { featurePackage } from '../features.js';

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });
const field = (type: string, id: number) => ({ type, id });

const DESCRIPTOR = {
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'bytesValue'] } },
          fields: {
            stringValue: field('string', 1),
            boolValue: field('bool', 2),
            intValue: field('int64', 3),
            doubleValue: field('double', 4),
            bytesValue: field('bytes', 7),
          },
        },
        KeyValue: { fields: { key: field('string', 1), value: field('AnyValue', 2) } },
        InstrumentationScope: {
          fields: { name: field('string', 1), version: field('string', 2), attributes: repeated('KeyValue', 3) },
        },
        Resource: { fields: { attributes: repeated('KeyValue', 1) } },
        Metric: {
          fields: {
            name: field('string', 1),
            description: field('string', 2),
            unit: field('string', 3),
            gauge: field('Gauge', 5),
            sum: field('Sum', 7),
            histogram: field('Histogram', 9),
            summary: field('Summary', 11),
          },
        },
        Gauge: { fields: { dataPoints: repeated('NumberDataPoint', 1) } },
        Sum: {
          fields: {
            dataPoints: repeated('NumberDataPoint', 1),
            aggregationTemporality: field('int32', 2),
            isMonotonic: field('bool', 3),
          },
        },
        Histogram: {
          fields: { dataPoints: repeated('HistogramDataPoint', 1), aggregationTemporality: field('int32', 2) },
        },
        Summary: { fields: { dataPoints: repeated('SummaryDataPoint', 1) } },
        NumberDataPoint: {
          fields: {
            attributes: repeated('KeyValue', 7),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            asDouble: field('double', 4),
          },
        },
        HistogramDataPoint: {
          fields: {
            attributes: repeated('KeyValue', 9),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            count: field('fixed64', 4),
            sum: field('double', 5),
            bucketCounts: repeated('fixed64', 6),
            explicitBounds: repeated('double', 7),
          },
        },
        SummaryDataPoint: {
          fields: {
            attributes: repeated('KeyValue', 7),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            count: field('fixed64', 4),
            sum: field('double', 5),
            quantileValues: repeated('ValueAtQuantile', 6),
          },
        },
        ValueAtQuantile: { fields: { quantile: field('double', 1), value: field('double', 2) } },
        LogRecord: {
          fields: {
            timeUnixNano: field('fixed64', 1),
            observedTimeUnixNano: field('fixed64', 11),
            severityNumber: field('int32', 2),
            severityText: field('string', 3),
            body: field('AnyValue', 5),
            attributes: repeated('KeyValue', 6),
          },
        },
        /** ExportMetricsServiceResponse and ExportLogsServiceResponse: the same fields. */
        ExportResponse: { fields: { partialSuccess: field('PartialSuccess', 1) } },
        /** `rejected_data_points` or `rejected_log_records`, and why. */
        PartialSuccess: { fields: { rejected: field('int64', 1), errorMessage: field('string', 2) } },
        Status: { fields: { code: field('int32', 1), message: field('string', 2), details: repeated('Any', 3) } },
        Any: { fields: { typeUrl: field('string', 1), value: field('bytes', 2) } },
        RetryInfo: { fields: { retryDelay: field('Duration', 1) } },
        Duration: { fields: { seconds: field('int64', 1), nanos: field('int32', 2) } },
      },
    },
  },
};

/**
 * Wire tags (field number << 3 | wire type) svc writes itself, in an order of its choosing (a
 * decoder takes fields in any order; protobufjs writes them by number): a number data point's
 * time and value last, so everything before them is computed once per series.
 */
export const OTLP_TAG = {
  /**
   * Field 1, length-delimited: `resource_metrics`/`resource_logs`, `resource`, `scope`, `data_points`,
   * `Metric.name`.
   */
  first: (1 << 3) | 2,
  /** Field 2, length-delimited: `scope_metrics`/`scope_logs`, `metrics`/`log_records`, `Metric.description`. */
  second: (2 << 3) | 2,
  /** `Metric.gauge` (5) and `Metric.sum` (7), length-delimited. */
  gauge: (5 << 3) | 2,
  sum: (7 << 3) | 2,
  /** `Sum.aggregation_temporality` (2) and `Sum.is_monotonic` (3), varints. */
  temporality: (2 << 3) | 0,
  monotonic: (3 << 3) | 0,
  /** NumberDataPoint fields, 64-bit: `start_time_unix_nano` (2), `time_unix_nano` (3), `as_double` (4). */
  startTime: (2 << 3) | 1,
  time: (3 << 3) | 1,
  asDouble: (4 << 3) | 1,
} as const;

export type OtlpType =
  | 'Metric'
  | 'NumberDataPoint'
  | 'LogRecord'
  | 'Resource'
  | 'InstrumentationScope'
  | 'ExportResponse'
  | 'Status'
  | 'RetryInfo';

export interface OtlpMessages {
  readonly protobuf: typeof Protobuf;
  readonly type: (name: OtlpType) => Protobuf.Type;
}

let messages: OtlpMessages | undefined;

/** The OTLP messages, built once. */
export function otlpMessages(): OtlpMessages {
  if (!messages) {
    const protobuf = featurePackage<typeof Protobuf>('otlp', 'protobufjs');
    const root = protobuf.Root.fromJSON(DESCRIPTOR);
    messages = { protobuf, type: (name) => root.lookupType(`otlp.${name}`) };
  }
  return messages;
}

/**
 * Nanoseconds since the epoch of an epoch-millisecond time (before 1970: 0, which OTLP's unsigned times
 * cannot go below).
 */
export function nanoseconds(ms: number): bigint {
  return ms > 0 ? BigInt(Math.trunc(ms)) * 1_000_000n : 0n;
}

/** {@link nanoseconds} as protobufjs takes a fixed64. */
export function nanos(ms: number): { low: number; high: number; unsigned: true } {
  const value = nanoseconds(ms);
  return { low: Number(value & 0xffffffffn) | 0, high: Number((value >> 32n) & 0xffffffffn) | 0, unsigned: true };
}

/** String attributes, in key order. */
export function attributes(
  values: Readonly<Record<string, string>>,
): { key: string; value: { stringValue: string } }[] {
  return Object.keys(values)
    .sort()
    .map((key) => ({ key, value: { stringValue: values[key]! } }));
}
