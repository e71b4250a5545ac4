/**
 * The OTLP messages svc writes and reads (opentelemetry-proto v1.x: the metrics, logs and trace data
 * models, the collector services' requests and responses with partial success), plus the
 * google.rpc.Status and RetryInfo a gRPC server attaches to a refusal, declared for protobufjs by
 * their field numbers. protobufjs is an optional package of the `otlp` feature, loaded on first
 * use.
 */
import type * as Protobuf from 'protobufjs';
import { featurePackage } from '../features.js';
import { wellFormed } from './bytes.js';
import { nanosecondsWithin, timestampAt } from '../../operators/model/batch.js';

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });
const field = (type: string, id: number) => ({ type, id });
/**
 * A proto3 `optional` field, which has explicit presence: written whenever set, 0 too. protobufjs
 * knows one by its option and the synthetic oneof ({@link optionalOneof}) protoc gives it.
 */
const optional = (type: string, id: number) => ({ type, id, options: { proto3_optional: true } });
const optionalOneof = (name: string) => ({ [`_${name}`]: { oneof: [name] } });

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
            exponentialHistogram: field('ExponentialHistogram', 10),
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
        ExponentialHistogram: {
          fields: {
            dataPoints: repeated('ExponentialHistogramDataPoint', 1),
            aggregationTemporality: field('int32', 2),
          },
        },
        Summary: { fields: { dataPoints: repeated('SummaryDataPoint', 1) } },
        NumberDataPoint: {
          fields: {
            attributes: repeated('KeyValue', 7),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            asDouble: field('double', 4),
            exemplars: repeated('Exemplar', 5),
          },
        },
        HistogramDataPoint: {
          oneofs: optionalOneof('sum'),
          fields: {
            attributes: repeated('KeyValue', 9),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            count: field('fixed64', 4),
            sum: optional('double', 5),
            bucketCounts: repeated('fixed64', 6),
            explicitBounds: repeated('double', 7),
            exemplars: repeated('Exemplar', 8),
          },
        },
        ExponentialHistogramDataPoint: {
          oneofs: optionalOneof('sum'),
          fields: {
            attributes: repeated('KeyValue', 1),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            count: field('fixed64', 4),
            sum: optional('double', 5),
            scale: field('sint32', 6),
            zeroCount: field('fixed64', 7),
            positive: field('Buckets', 8),
            negative: field('Buckets', 9),
            exemplars: repeated('Exemplar', 11),
            zeroThreshold: field('double', 14),
          },
          nested: { Buckets: { fields: { offset: field('sint32', 1), bucketCounts: repeated('uint64', 2) } } },
        },
        Exemplar: {
          fields: {
            timeUnixNano: field('fixed64', 2),
            asDouble: field('double', 3),
            spanId: field('bytes', 4),
            traceId: field('bytes', 5),
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
            flags: field('fixed32', 8),
            traceId: field('bytes', 9),
            spanId: field('bytes', 10),
          },
        },
        /** opentelemetry.proto.trace.v1 (trace.proto): a span with its events and links. */
        Span: {
          fields: {
            traceId: field('bytes', 1),
            spanId: field('bytes', 2),
            traceState: field('string', 3),
            parentSpanId: field('bytes', 4),
            name: field('string', 5),
            kind: field('int32', 6),
            startTimeUnixNano: field('fixed64', 7),
            endTimeUnixNano: field('fixed64', 8),
            attributes: repeated('KeyValue', 9),
            droppedAttributesCount: field('uint32', 10),
            events: repeated('Event', 11),
            droppedEventsCount: field('uint32', 12),
            links: repeated('Link', 13),
            droppedLinksCount: field('uint32', 14),
            status: field('SpanStatus', 15),
            flags: field('fixed32', 16),
          },
          nested: {
            Event: {
              fields: {
                timeUnixNano: field('fixed64', 1),
                name: field('string', 2),
                attributes: repeated('KeyValue', 3),
                droppedAttributesCount: field('uint32', 4),
              },
            },
            Link: {
              fields: {
                traceId: field('bytes', 1),
                spanId: field('bytes', 2),
                traceState: field('string', 3),
                attributes: repeated('KeyValue', 4),
                droppedAttributesCount: field('uint32', 5),
                flags: field('fixed32', 6),
              },
            },
          },
        },
        /** trace.v1's `Status` (the name `Status` is google.rpc's here): field 1 is reserved. */
        SpanStatus: { fields: { message: field('string', 2), code: field('int32', 3) } },
        ScopeSpans: {
          fields: {
            scope: field('InstrumentationScope', 1),
            spans: repeated('Span', 2),
            schemaUrl: field('string', 3),
          },
        },
        ResourceSpans: {
          fields: {
            resource: field('Resource', 1),
            scopeSpans: repeated('ScopeSpans', 2),
            schemaUrl: field('string', 3),
          },
        },
        /** TracesData and the collector's ExportTraceServiceRequest: the same one field. */
        ExportTraceServiceRequest: { fields: { resourceSpans: repeated('ResourceSpans', 1) } },
        /** ExportMetricsServiceResponse, ExportLogsServiceResponse and ExportTraceServiceResponse: the same fields. */
        ExportResponse: { fields: { partialSuccess: field('PartialSuccess', 1) } },
        /** `rejected_data_points`, `rejected_log_records` or `rejected_spans`, and why. */
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
  /** `Metric.unit` (3), length-delimited. */
  unit: (3 << 3) | 2,
  /** `Metric.gauge` (5) and `Metric.sum` (7), length-delimited. */
  gauge: (5 << 3) | 2,
  sum: (7 << 3) | 2,
  /** `Sum.aggregation_temporality` (2) and `Sum.is_monotonic` (3), varints. */
  temporality: (2 << 3) | 0,
  monotonic: (3 << 3) | 0,
  /**
   * NumberDataPoint fields, 64-bit: `start_time_unix_nano` (2), `time_unix_nano` (3), `as_double` (4), `as_int` (6,
   * sfixed64).
   */
  startTime: (2 << 3) | 1,
  time: (3 << 3) | 1,
  asDouble: (4 << 3) | 1,
  asInt: (6 << 3) | 1,
} as const;

/** Wire tags of a number point's exemplar the metrics encoder writes itself (lib/encoders/otlp.ts). */
export const EXEMPLAR_TAG = {
  /** NumberDataPoint's `exemplars` (5), length-delimited. */
  numberPoint: (5 << 3) | 2,
  /** Exemplar's `time_unix_nano` (2) and `as_double` (3), 64-bit; `span_id` (4) and `trace_id` (5), bytes. */
  time: (2 << 3) | 1,
  asDouble: (3 << 3) | 1,
  spanId: (4 << 3) | 2,
  traceId: (5 << 3) | 2,
} as const;

/**
 * Wire tags of the Span fields the trace encoder writes itself (lib/encoders/otlp-traces.ts);
 * the rest of a span (name, kind, fixed attributes, an error's event and status) it has
 * protobufjs encode once per node of the call tree.
 */
export const SPAN_TAG = {
  /** `trace_id` (1) and `span_id` (2), `parent_span_id` (4): bytes. Link has `trace_id` (1) and `span_id` (2) too. */
  traceId: (1 << 3) | 2,
  spanId: (2 << 3) | 2,
  parentSpanId: (4 << 3) | 2,
  /** `start_time_unix_nano` (7), `end_time_unix_nano` (8): fixed64. */
  startTime: (7 << 3) | 1,
  endTime: (8 << 3) | 1,
  /** `attributes` (9), `events` (11), `links` (13), `status` (15): length-delimited. */
  attributes: (9 << 3) | 2,
  events: (11 << 3) | 2,
  links: (13 << 3) | 2,
  status: (15 << 3) | 2,
  /** `flags` (16): fixed32, a two-byte tag. Link's `flags` (6): fixed32. */
  flags: (16 << 3) | 5,
  linkFlags: (6 << 3) | 5,
  /** Event's `time_unix_nano` (1): fixed64. */
  eventTime: (1 << 3) | 1,
  /** KeyValue's `key` (1) and `value` (2), AnyValue's `string_value` (1): length-delimited. */
  key: (1 << 3) | 2,
  value: (2 << 3) | 2,
  stringValue: (1 << 3) | 2,
} as const;

/** OTLP's `AggregationTemporality` of each `temporality` of the otlp encoder. */
export const OTLP_TEMPORALITY = { delta: 1, cumulative: 2 } as const;

/** OTLP `Span.SpanKind` of each kind. */
export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
/** OTLP `Status.StatusCode.STATUS_CODE_ERROR`. */
export const OTLP_STATUS_ERROR = 2;

export type OtlpType =
  | 'KeyValue'
  | 'Span'
  | 'SpanStatus'
  | 'ScopeSpans'
  | 'ResourceSpans'
  | 'ExportTraceServiceRequest'
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

/** A google.rpc.Status decoded (throws on bytes that are not one): an OTLP refusal's message, and its details. */
export function decodeStatus(bytes: Uint8Array): {
  message?: string;
  details?: { typeUrl: string; value: Uint8Array }[];
} {
  const status = otlpMessages().type('Status');
  return status.toObject(status.decode(bytes));
}

/** The tag of protobuf field `number` of wire type `wire` (0: a varint, 2: length-delimited). */
export const fieldTag = (number: number, wire: 0 | 2): number => (number << 3) | wire;

/** google.rpc.Status' `message` (2), length-delimited. */
const STATUS_MESSAGE_TAG = fieldTag(2, 2);

/**
 * The first field of tag `tag` (see {@link fieldTag}) of a protobuf message from its bytes, or from their head when
 * they were cut short (an HTTP answer's body is read only so far): a varint's value, or a length-delimited field's
 * bytes, as many as the head holds. Null when the message (or the head: a field it cuts ends it) has no such field;
 * undefined for bytes that are no message: their first field does not decode.
 */
export function headField(bytes: Uint8Array, tag: number): number | Uint8Array | null | undefined {
  const { protobuf } = otlpMessages();
  const reader = protobuf.Reader.create(bytes);
  let fields = 0;
  try {
    for (; reader.pos < reader.len; fields++) {
      const read = reader.uint32();
      if (read === tag && (tag & 7) === 2) {
        const length = reader.uint32();
        return bytes.subarray(reader.pos, reader.pos + length);
      }
      if (read === tag) return protobuf.util.LongBits.from(reader.int64()).toNumber();
      reader.skipType(read & 7);
    }
    return null;
  } catch {
    return fields > 0 ? null : undefined;
  }
}

/**
 * The text of UTF-8 bytes that may have been cut inside a character: such an incomplete tail is left out, not
 * shown as U+FFFD.
 */
export function headText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes, { stream: true });
}

/**
 * The `message` of a google.rpc.Status from its bytes, or of their head when they were cut short (an HTTP
 * refusal's body is read only so far): as much of the message as they hold. Undefined for bytes that are
 * no Status.
 */
export function statusMessage(bytes: Uint8Array): string | undefined {
  const message = headField(bytes, STATUS_MESSAGE_TAG);
  return message === undefined ? undefined : message instanceof Uint8Array ? headText(message) : '';
}

/**
 * Nanoseconds since the epoch of an epoch-millisecond time (before 1970: 0, which OTLP's unsigned times
 * cannot go below; validation refuses such a `start_time` to the otlp encoder, so this only guards).
 */
export function nanoseconds(ms: number): bigint {
  return ms > 0 ? BigInt(Math.trunc(ms)) * 1_000_000n : 0n;
}

/**
 * Nanoseconds since the epoch of tick `i` of a batch, its fraction of a millisecond included ({@link nanosecondsWithin}):
 * ticks of one millisecond (above 1000 a second) keep their own times, as spans do. Before 1970: 0, as
 * {@link nanoseconds}. The millisecond's nanoseconds are kept from the tick before (ticks come in time order), so a
 * tick costs one BigInt of its nanoseconds and a sum. Each encoder keeps its own.
 */
export function tickNanoseconds(): (anchor: number, offset: Float64Array, i: number) => bigint {
  let lastMs = NaN;
  let msNanos = 0n;
  return (anchor, offset, i) => {
    const ms = timestampAt(anchor, offset, i);
    if (ms <= 0) return 0n;
    if (ms !== lastMs) {
      lastMs = ms;
      msNanos = BigInt(ms) * 1_000_000n;
    }
    const nanos = nanosecondsWithin(anchor, offset, i, ms);
    return nanos === 0 ? msNanos : msNanos + BigInt(nanos);
  };
}

/** {@link nanoseconds} as protobufjs takes a fixed64. */
export function nanos(ms: number): Fixed64 {
  return fixed64(nanoseconds(ms));
}

/** A fixed64 as protobufjs takes it. */
export interface Fixed64 {
  readonly low: number;
  readonly high: number;
  readonly unsigned: true;
}

/** `value` (below 2^64) as protobufjs takes a fixed64. */
export function fixed64(value: bigint): Fixed64 {
  return { low: Number(value & 0xffffffffn) | 0, high: Number((value >> 32n) & 0xffffffffn) | 0, unsigned: true };
}

/** String attributes, in key order; each string {@link wellFormed}, as every text svc gives protobufjs for OTLP. */
export function attributes(
  values: Readonly<Record<string, string>>,
): { key: string; value: { stringValue: string } }[] {
  return Object.keys(values)
    .sort()
    .map((key) => ({ key: wellFormed(key), value: { stringValue: wellFormed(values[key]!) } }));
}

/** An attribute value as OTLP's AnyValue: a string, a bool, an int (a safe integer) or a double. */
export function anyValue(
  value: string | number | boolean,
): { stringValue: string } | { boolValue: boolean } | { intValue: number } | { doubleValue: number } {
  if (typeof value === 'string') return { stringValue: wellFormed(value) };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isSafeInteger(value) ? { intValue: value } : { doubleValue: value };
}

/** Typed attributes, in the order given. */
export function typedAttributes(
  values: Readonly<Record<string, string | number | boolean>>,
): { key: string; value: ReturnType<typeof anyValue> }[] {
  return Object.entries(values).map(([key, value]) => ({ key: wellFormed(key), value: anyValue(value) }));
}

/** The `resource` field (1) of a ResourceSpans, ResourceMetrics or ResourceLogs: a Resource of these attributes. */
export function resourceField(keyValues: ReturnType<typeof typedAttributes>): Uint8Array {
  const { protobuf, type } = otlpMessages();
  const resource = type('Resource').encode({ attributes: keyValues }).finish();
  return protobuf.Writer.create().uint32(OTLP_TAG.first).bytes(resource).finish();
}
