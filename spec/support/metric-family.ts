import protobuf from 'protobufjs';

/**
 * prometheus/client_model's metrics.proto as proto text, written for the specs from the public definition (the
 * messages a scrape body holds, the fields Prometheus reads), independent of lib/protocols/metric-family.ts: a
 * decoder built from it checks what svc-server encodes.
 */
const METRICS_PROTO = `
syntax = "proto3";
package io.prometheus.client;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message LabelPair { string name = 1; string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { double value = 1; }
message Counter { double value = 1; Exemplar exemplar = 2; Timestamp created_timestamp = 3; }
message Quantile { double quantile = 1; double value = 2; }
message Summary {
  uint64 sample_count = 1; double sample_sum = 2; repeated Quantile quantile = 3; Timestamp created_timestamp = 4;
}
message Untyped { double value = 1; }
message Histogram {
  uint64 sample_count = 1; double sample_count_float = 4; double sample_sum = 2; repeated Bucket bucket = 3;
  Timestamp created_timestamp = 15;
  sint32 schema = 5; double zero_threshold = 6; uint64 zero_count = 7; double zero_count_float = 8;
  repeated BucketSpan negative_span = 9; repeated sint64 negative_delta = 10; repeated double negative_count = 11;
  repeated BucketSpan positive_span = 12; repeated sint64 positive_delta = 13; repeated double positive_count = 14;
  repeated Exemplar exemplars = 16;
}
message Bucket { uint64 cumulative_count = 1; double cumulative_count_float = 4; double upper_bound = 2; Exemplar exemplar = 3; }
message BucketSpan { sint32 offset = 1; uint32 length = 2; }
message Exemplar { repeated LabelPair label = 1; double value = 2; Timestamp timestamp = 3; }
message Metric {
  repeated LabelPair label = 1; Gauge gauge = 2; Counter counter = 3; Summary summary = 4; Untyped untyped = 5;
  Histogram histogram = 7; int64 timestamp_ms = 6;
}
message MetricFamily { string name = 1; string help = 2; MetricType type = 3; repeated Metric metric = 4; string unit = 5; }
`;

const MetricFamily = protobuf
  .parse(METRICS_PROTO, { keepCase: true })
  .root.lookupType('io.prometheus.client.MetricFamily');

/**
 * A decoded `MetricFamily`, as plain data: snake_case fields, enums by name, 64-bit integers as numbers; as proto3 has
 * it, a zero, an empty list or the first enum value is absent (but `type`, always there).
 */
export type DecodedFamily = {
  name: string;
  help?: string;
  type: string;
  metric: Record<string, any>[];
};

/** The length-delimited `MetricFamily` messages of a protobuf scrape body. */
export function decodeFamilies(body: Uint8Array): DecodedFamily[] {
  const reader = protobuf.Reader.create(body);
  const families: DecodedFamily[] = [];
  while (reader.pos < reader.len) {
    const message = MetricFamily.decodeDelimited(reader);
    const family = MetricFamily.toObject(message, { longs: Number, enums: String });
    // proto3 leaves the first enum value out.
    families.push({ ...family, type: family.type ?? 'COUNTER' } as DecodedFamily);
  }
  return families;
}

/** A native histogram's buckets (`positive` or `negative`) from its spans and deltas: index → absolute count, 0s left out. */
export function nativeBuckets(histogram: Record<string, any>, side: 'positive' | 'negative'): Record<number, number> {
  const buckets: Record<number, number> = {};
  const deltas: number[] = histogram[`${side}_delta`] ?? [];
  let index = 0;
  let k = 0;
  let count = 0;
  for (const { offset = 0, length = 0 } of histogram[`${side}_span`] ?? []) {
    index += offset;
    for (let j = 0; j < length; j++, index++) {
      count += deltas[k++]!;
      if (count !== 0) buckets[index] = count;
    }
  }
  if (k !== deltas.length) throw new Error(`${side}: the spans cover ${k} buckets, the deltas ${deltas.length}`);
  return buckets;
}
