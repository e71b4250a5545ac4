import type { BucketSpan, NativeHistogram } from '../../operators/model/native-histogram.js';

/**
 * One side (positive or negative) of an OpenTelemetry exponential histogram: `counts[k]` is the count of bucket
 * `offset + k`, bucket `j` of scale `s` holding the observations in `(base^j, base^(j+1)]`, `base = 2^(2^-s)`.
 * Dense: the buckets between the first and the last populated one are all listed.
 */
export interface ExponentialBuckets {
  readonly offset: number;
  readonly counts: readonly number[];
}

/** No bucket. */
const EMPTY: ExponentialBuckets = { offset: 0, counts: [] };

/**
 * The dense buckets of one side of a native histogram (its sparse `spans` and their `counts`) at `scale`, its
 * schema or lower (each step down merges bucket pairs, as a lower resolution's buckets are). Prometheus' bucket
 * `i` holds `(base^(i-1), base^i]`, OpenTelemetry's `i - 1` the same range: the offset is one less.
 */
export function exponentialBuckets(
  spans: readonly BucketSpan[],
  counts: readonly number[],
  schema: number,
  scale = schema,
): ExponentialBuckets {
  if (counts.length === 0) return EMPTY;
  const shift = schema - scale;
  const indexes = new Array<number>(counts.length);
  for (let s = 0, k = 0, index = 0; s < spans.length; s++) {
    index += spans[s]!.offset;
    for (let b = 0; b < spans[s]!.length; b++, index++) indexes[k++] = (index - 1) >> shift;
  }
  const offset = indexes[0]!;
  const dense = new Array<number>(indexes[counts.length - 1]! - offset + 1).fill(0);
  for (let k = 0; k < counts.length; k++) dense[indexes[k]! - offset] += counts[k]!;
  return { offset, counts: dense };
}

/** `after` minus `before`, bucket by bucket (both at one scale); a bucket only one of them has counts as 0 in the other. */
export function bucketsMinus(after: ExponentialBuckets, before: ExponentialBuckets): ExponentialBuckets {
  if (before.counts.length === 0) return after;
  const offset = after.counts.length === 0 ? before.offset : Math.min(after.offset, before.offset);
  const end = Math.max(after.offset + after.counts.length, before.offset + before.counts.length);
  const counts = new Array<number>(end - offset).fill(0);
  for (let k = 0; k < after.counts.length; k++) counts[after.offset + k - offset] += after.counts[k]!;
  for (let k = 0; k < before.counts.length; k++) counts[before.offset + k - offset] -= before.counts[k]!;
  return { offset, counts };
}

/** The fields of an OTLP exponential histogram point: scale, zero bucket, both sides, count and sum. */
export interface ExponentialPoint {
  readonly scale: number;
  readonly zeroThreshold: number;
  readonly zeroCount: number;
  readonly count: number;
  readonly sum: number;
  readonly positive: ExponentialBuckets;
  readonly negative: ExponentialBuckets;
}

/**
 * The point of a native histogram; with `before`, an earlier state of the same series, the change since it (delta
 * temporality), at the lower of the two schemas (a series' schema only goes down, when its buckets are merged).
 */
export function exponentialPoint(histogram: NativeHistogram, before?: NativeHistogram): ExponentialPoint {
  const scale = Math.min(histogram.schema, before?.schema ?? histogram.schema);
  const side = (h: NativeHistogram, sign: 'positive' | 'negative') =>
    exponentialBuckets(h[`${sign}Spans`], h[`${sign}Counts`], h.schema, scale);
  const { zeroThreshold, zeroCount, count, sum } = histogram;
  if (!before)
    return {
      scale,
      zeroThreshold,
      zeroCount,
      count,
      sum,
      positive: side(histogram, 'positive'),
      negative: side(histogram, 'negative'),
    };
  return {
    scale,
    zeroThreshold,
    zeroCount: zeroCount - before.zeroCount,
    count: count - before.count,
    sum: sum - before.sum,
    positive: bucketsMinus(side(histogram, 'positive'), side(before, 'positive')),
    negative: bucketsMinus(side(histogram, 'negative'), side(before, 'negative')),
  };
}
