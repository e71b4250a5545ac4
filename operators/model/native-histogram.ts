/**
 * A native histogram sample: Prometheus' sparse exponential histogram (OpenTelemetry's
 * exponential histogram), as the histogram operator records it and the encoders that carry it
 * (remote write, OTLP, the protobuf exposition) read it.
 *
 * Bucket `i` of schema `s` holds the observations in `(base^(i-1), base^i]`, `base = 2^(2^-s)`;
 * negative observations mirror that on `negative*`; those within `zeroThreshold` of 0 count in
 * `zeroCount`. The populated buckets are listed sparsely: `spans` cover runs of bucket indexes
 * (the first span's `offset` is its first index, a later span's the gap after the previous one,
 * as Prometheus' `BucketSpan`), `counts` the count of each bucket the spans cover, in order.
 * Counts are absolute and cumulative since the series started, not deltas: an encoder that
 * wants deltas (remote write's integer histogram) computes them.
 */

/** A run of consecutive buckets: `offset` buckets after the previous run's end (the first: its index), `length` long. */
export interface BucketSpan {
  readonly offset: number;
  readonly length: number;
}

export interface NativeHistogram {
  /** Resolution: -4 (coarsest, base 2^16) to 8 (finest, base 2^(1/256)). */
  readonly schema: number;
  /** Observations with an absolute value at most this count in `zeroCount`. */
  readonly zeroThreshold: number;
  readonly zeroCount: number;
  /** All observations, the zero bucket's included. */
  readonly count: number;
  readonly sum: number;
  readonly positiveSpans: readonly BucketSpan[];
  readonly positiveCounts: readonly number[];
  readonly negativeSpans: readonly BucketSpan[];
  readonly negativeCounts: readonly number[];
}

/**
 * Absolute bucket counts as the deltas integer histograms carry (remote write's `Histogram`, the protobuf
 * exposition's): each count less the one before it, the first as is.
 */
export function countDeltas(counts: readonly number[]): number[] {
  return counts.map((count, k) => count - (k === 0 ? 0 : counts[k - 1]!));
}
