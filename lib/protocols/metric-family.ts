/**
 * The messages of Prometheus' protobuf exposition format (`io.prometheus.client.MetricFamily` and what it holds, as
 * prometheus/client_model's metrics.proto lists them), declared for protobufjs by their field numbers. A scrape body
 * is a sequence of length-delimited `MetricFamily` messages. protobufjs is the optional package of the build feature
 * `protobuf-exposition`, loaded on first use.
 */
import type * as Protobuf from 'protobufjs';
import { featurePackage } from '../features.js';

/** The Content-Type of a scrape body of length-delimited `MetricFamily` messages (client_golang's `FmtProtoDelim`). */
export const PROTOBUF_EXPOSITION =
  'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

/**
 * Whether an `Accept` header asks for {@link PROTOBUF_EXPOSITION} rather than the text format, as client_golang
 * negotiates (expfmt's `Negotiate`): its media ranges by q-value, highest first (in their order on a tie; q=0 ones
 * never), the first that names a format deciding: `application/vnd.google.protobuf` with
 * `proto=io.prometheus.client.MetricFamily` and `encoding=delimited` (protobuf), or `text/plain` (text). Other
 * parameters do not matter: Prometheus 3 adds `escaping=allow-utf-8` to every range, which changes nothing here (a
 * metric or label name of svc is always one of the classic character set). Text when no range names a format.
 */
export function acceptsProtobufExposition(accept: string | undefined): boolean {
  const ranges = (accept ?? '').split(',').map((range, order) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim());
    const params = new Map(
      parameters.map((parameter) => {
        const at = parameter.indexOf('=');
        const value = at < 0 ? '' : parameter.slice(at + 1).trim();
        return [
          parameter
            .slice(0, at < 0 ? undefined : at)
            .trim()
            .toLowerCase(),
          value.replace(/^"(.*)"$/, '$1'),
        ];
      }),
    );
    const q = params.has('q') ? Number(params.get('q')) : 1;
    return { type: type.toLowerCase(), params, q: Number.isNaN(q) ? 0 : q, order };
  });
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { type, params, q } of ranges) {
    if (q <= 0) break;
    if (type === 'text/plain') return false;
    if (
      type === 'application/vnd.google.protobuf' &&
      params.get('proto') === 'io.prometheus.client.MetricFamily' &&
      params.get('encoding') === 'delimited'
    )
      return true;
  }
  return false;
}

const exemplar = { type: 'Exemplar' } as const;
const timestamp = { type: 'google.protobuf.Timestamp' } as const;

const DESCRIPTOR = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Timestamp: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
      },
    },
    io: {
      nested: {
        prometheus: {
          nested: {
            client: {
              nested: {
                MetricFamily: {
                  fields: {
                    name: { type: 'string', id: 1 },
                    help: { type: 'string', id: 2 },
                    type: { type: 'MetricType', id: 3 },
                    metric: { rule: 'repeated', type: 'Metric', id: 4 },
                    unit: { type: 'string', id: 5 },
                  },
                },
                MetricType: {
                  values: { COUNTER: 0, GAUGE: 1, SUMMARY: 2, UNTYPED: 3, HISTOGRAM: 4, GAUGE_HISTOGRAM: 5 },
                },
                Metric: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    gauge: { type: 'Gauge', id: 2 },
                    counter: { type: 'Counter', id: 3 },
                    summary: { type: 'Summary', id: 4 },
                    untyped: { type: 'Untyped', id: 5 },
                    timestampMs: { type: 'int64', id: 6 },
                    histogram: { type: 'Histogram', id: 7 },
                  },
                },
                LabelPair: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
                Gauge: { fields: { value: { type: 'double', id: 1 } } },
                Counter: {
                  fields: {
                    value: { type: 'double', id: 1 },
                    exemplar: { ...exemplar, id: 2 },
                    createdTimestamp: { ...timestamp, id: 3 },
                  },
                },
                Untyped: { fields: { value: { type: 'double', id: 1 } } },
                Summary: {
                  fields: {
                    sampleCount: { type: 'uint64', id: 1 },
                    sampleSum: { type: 'double', id: 2 },
                    quantile: { rule: 'repeated', type: 'Quantile', id: 3 },
                    createdTimestamp: { ...timestamp, id: 4 },
                  },
                },
                Quantile: { fields: { quantile: { type: 'double', id: 1 }, value: { type: 'double', id: 2 } } },
                // Integer counts only: the float variants (sample_count_float 4, zero_count_float 8, negative_count
                // 11, positive_count 14, cumulative_count_float 4) are not written.
                Histogram: {
                  fields: {
                    sampleCount: { type: 'uint64', id: 1 },
                    sampleSum: { type: 'double', id: 2 },
                    bucket: { rule: 'repeated', type: 'Bucket', id: 3 },
                    schema: { type: 'sint32', id: 5 },
                    zeroThreshold: { type: 'double', id: 6 },
                    zeroCount: { type: 'uint64', id: 7 },
                    negativeSpan: { rule: 'repeated', type: 'BucketSpan', id: 9 },
                    negativeDelta: { rule: 'repeated', type: 'sint64', id: 10 },
                    positiveSpan: { rule: 'repeated', type: 'BucketSpan', id: 12 },
                    positiveDelta: { rule: 'repeated', type: 'sint64', id: 13 },
                    createdTimestamp: { ...timestamp, id: 15 },
                    exemplars: { rule: 'repeated', type: 'Exemplar', id: 16 },
                  },
                },
                Bucket: {
                  fields: {
                    cumulativeCount: { type: 'uint64', id: 1 },
                    upperBound: { type: 'double', id: 2 },
                    exemplar: { ...exemplar, id: 3 },
                  },
                },
                BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
                Exemplar: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    value: { type: 'double', id: 2 },
                    timestamp: { ...timestamp, id: 3 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

let metricFamily: Protobuf.Type | undefined;
let protobuf: typeof Protobuf | undefined;

/** protobufjs, loaded on first use (an install without the optional packages has none). */
function protobufjs(): typeof Protobuf {
  protobuf ??= featurePackage<typeof Protobuf>('protobuf-exposition', 'protobufjs');
  return protobuf;
}

/** The `io.prometheus.client.MetricFamily` message type, built once. */
export function metricFamilyType(): Protobuf.Type {
  metricFamily ??= protobufjs().Root.fromJSON(DESCRIPTOR).lookupType('io.prometheus.client.MetricFamily');
  return metricFamily;
}

/** A new protobufjs `Writer`, for messages written a part at a time. */
export function newWriter(): Protobuf.Writer {
  return protobufjs().Writer.create();
}
