/**
 * The messages of Prometheus remote write 1.0 (`prometheus.WriteRequest` and what it holds, as
 * the protocol's specification lists them: prometheus/prompb remote.proto and types.proto),
 * declared for protobufjs by their field numbers. protobufjs is an optional package of the
 * `remote-write` feature, loaded on first use.
 */
import type * as Protobuf from 'protobufjs';
import { featurePackage } from '../features.js';

const DESCRIPTOR = {
  nested: {
    prometheus: {
      nested: {
        WriteRequest: {
          fields: {
            timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 },
            metadata: { rule: 'repeated', type: 'MetricMetadata', id: 3 },
          },
        },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
            exemplars: { rule: 'repeated', type: 'Exemplar', id: 3 },
            histograms: { rule: 'repeated', type: 'Histogram', id: 4 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
        Exemplar: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            value: { type: 'double', id: 2 },
            timestamp: { type: 'int64', id: 3 },
          },
        },
        // A native histogram with integer counts (the float variant's fields 2, 7, 10 and 13 are not written).
        Histogram: {
          fields: {
            countInt: { type: 'uint64', id: 1 },
            sum: { type: 'double', id: 3 },
            schema: { type: 'sint32', id: 4 },
            zeroThreshold: { type: 'double', id: 5 },
            zeroCountInt: { type: 'uint64', id: 6 },
            negativeSpans: { rule: 'repeated', type: 'BucketSpan', id: 8 },
            negativeDeltas: { rule: 'repeated', type: 'sint64', id: 9 },
            positiveSpans: { rule: 'repeated', type: 'BucketSpan', id: 11 },
            positiveDeltas: { rule: 'repeated', type: 'sint64', id: 12 },
            timestamp: { type: 'int64', id: 15 },
          },
        },
        BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
        MetricMetadata: {
          fields: {
            type: { type: 'MetricType', id: 1 },
            metricFamilyName: { type: 'string', id: 2 },
            help: { type: 'string', id: 4 },
            unit: { type: 'string', id: 5 },
          },
          nested: {
            MetricType: {
              values: {
                UNKNOWN: 0,
                COUNTER: 1,
                GAUGE: 2,
                HISTOGRAM: 3,
                GAUGEHISTOGRAM: 4,
                SUMMARY: 5,
                INFO: 6,
                STATESET: 7,
              },
            },
          },
        },
      },
    },
  },
};

/** Wire tags (field number << 3 | wire type) the encoder writes itself, record by record. */
export const TAG = {
  /** `WriteRequest.timeseries`, `TimeSeries.labels`: field 1, length-delimited. */
  first: (1 << 3) | 2,
  /** `TimeSeries.samples`: field 2, length-delimited. */
  samples: (2 << 3) | 2,
  /** `Sample.value`: field 1, 64-bit. */
  value: (1 << 3) | 1,
  /** `Sample.timestamp`: field 2, varint. */
  timestamp: (2 << 3) | 0,
} as const;

export interface WriteRequestMessages {
  readonly protobuf: typeof Protobuf;
  readonly WriteRequest: Protobuf.Type;
  readonly TimeSeries: Protobuf.Type;
}

let messages: WriteRequestMessages | undefined;

/** The remote-write messages, built once. */
export function writeRequestMessages(): WriteRequestMessages {
  if (!messages) {
    const protobuf = featurePackage<typeof Protobuf>('remote-write', 'protobufjs');
    const root = protobuf.Root.fromJSON(DESCRIPTOR);
    messages = {
      protobuf,
      WriteRequest: root.lookupType('prometheus.WriteRequest'),
      TimeSeries: root.lookupType('prometheus.TimeSeries'),
    };
  }
  return messages;
}
