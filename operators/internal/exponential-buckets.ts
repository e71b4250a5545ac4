import type { BucketSpan, NativeHistogram } from '../model/native-histogram.js';
import { check, NON_NEGATIVE, OBJECT, POSITIVE_COUNT } from './arguments.js';

/** How a native histogram records: its finest resolution, its zero bucket, the most buckets it keeps populated. */
export interface NativeHistogramOptions {
  /** Resolution to start at, -4 to 8 (bucket bounds grow by 2^(2^-schema)); lowered as `maxBuckets` requires. */
  readonly schema: number;
  /** Observations with an absolute value at most this count in the zero bucket. */
  readonly zeroThreshold: number;
  /** Populated buckets (positive and negative, the zero bucket aside) beyond which the resolution is halved. */
  readonly maxBuckets: number;
}

/** The coarsest schema: halving stops there, whatever the bucket count. */
const MIN_SCHEMA = -4;
/** The finest schema Prometheus defines. */
const MAX_SCHEMA = 8;

/** Throws unless `options` (the argument `name` of `operator`) are native histogram settings Prometheus defines. */
export function checkNativeOptions(operator: string, name: string, options: NativeHistogramOptions): void {
  check(operator, name, options, OBJECT);
  check(operator, `${name}.schema`, options.schema, {
    type: 'number',
    test: (schema: number) => Number.isInteger(schema) && schema >= MIN_SCHEMA && schema <= MAX_SCHEMA,
    expected: `a whole number from ${MIN_SCHEMA} to ${MAX_SCHEMA}`,
  });
  check(operator, `${name}.zeroThreshold`, options.zeroThreshold, NON_NEGATIVE);
  check(operator, `${name}.maxBuckets`, options.maxBuckets, POSITIVE_COUNT);
}
/**
 * How wide (in bucket indexes) a window may grow, as a multiple of `maxBuckets`, before the resolution is halved
 * even though fewer buckets are populated: the dense counts of a series then stay within a few times its budget
 * when observations spread over many powers of ten.
 */
const WINDOW_PER_BUCKET = 4;
/**
 * The least window limit: at schema -4 every double, subnormals to infinity, has one of 133 indexes, so halving
 * always ends with the observation fitting.
 */
const MIN_WINDOW = 256;

// The IEEE 754 fields of a double, read through one shared view (frexp without a loop or a logarithm).
const double = new Float64Array(1);
const words = new Uint32Array(double.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LOW = 1 - HIGH;
const SUBNORMAL_SCALE = 2 ** 64;

/** Fractional bits of the fixed-point numbers the bounds are computed in: 200 more than a double's. */
const PRECISION = 256n;

/** The greatest integer whose square is at most `n` (Newton's method from above). */
function floorSqrt(n: bigint): bigint {
  let root = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const next = (root + n / root) >> 1n;
    if (next >= root) return root;
    root = next;
  }
}

/**
 * 2^(k / 2^MAX_SCHEMA − 1) for k in 0..2^MAX_SCHEMA, each the greatest double not above it, so that `fraction <=
 * bound` decides (base^(i−1), base^i] exactly. Not `2 ** x`, nor the nearest double: either is above the bound for
 * about half of them, and the double above the bound then counts in the bucket below. Computed in fixed point:
 * 2^(2^-m) by successive square roots of 2, multiplied as k's bits select them, every step rounded down, the
 * result cut to 53 bits (its error, below 2^-252, is far below the 2^-61 or more between any of these irrational
 * numbers and a double; spec/operators/native-histogram.spec.ts checks every bound exactly).
 */
function finestBounds(): Float64Array {
  const roots = [2n << PRECISION];
  for (let m = 1; m <= MAX_SCHEMA; m++) roots.push(floorSqrt(roots[m - 1]! << PRECISION));
  return Float64Array.from({ length: (1 << MAX_SCHEMA) + 1 }, (_, k) => {
    let power = 1n << PRECISION;
    for (let bit = 0; bit <= MAX_SCHEMA; bit++)
      if (k & (1 << bit)) power = (power * roots[MAX_SCHEMA - bit]!) >> PRECISION;
    // power / 2^PRECISION is in [1, 2]: its top 53 bits over 2^53 are the fraction in [0.5, 1], rounded down.
    return Number(power >> (PRECISION - 52n)) / 2 ** 53;
  });
}

/** `bounds[s][j]` = 2^(j / 2^s − 1) for j in 0..2^s, rounded down: the upper bounds within one power of two, as frexp's fraction. */
const FRACTION_BOUNDS: readonly Float64Array[] = (() => {
  const finest = finestBounds();
  return Array.from({ length: MAX_SCHEMA + 1 }, (_, schema) =>
    Float64Array.from({ length: (1 << schema) + 1 }, (_, j) => finest[j << (MAX_SCHEMA - schema)]!),
  );
})();

/**
 * Index of the bucket of schema `schema` holding `value` (> 0): the `i` with `value` in (base^(i−1), base^i],
 * base = 2^(2^-schema), exactly (client_golang strays from it within a few ulps of a bound: docs/native-histograms.md).
 * The exponent comes from the double's bits; within a power of two a logarithm gives the bucket, and one comparison
 * on each side corrects its rounding.
 */
export function bucketIndex(value: number, schema: number): number {
  double[0] = value;
  let high = words[HIGH]!;
  let exponent = (high >>> 20) & 0x7ff;
  let scaled = 0;
  if (exponent === 0) {
    // Subnormal: scale it into the normal range to read a true exponent.
    double[0] = value * SUBNORMAL_SCALE;
    high = words[HIGH]!;
    exponent = (high >>> 20) & 0x7ff;
    scaled = 64;
  }
  // value = fraction × 2^exp, fraction in [0.5, 1).
  const exp = exponent - 1022 - scaled;
  if (schema <= 0) {
    // A power of two lies on its bucket's upper bound.
    const powerOfTwo = (high & 0xfffff) === 0 && words[LOW] === 0;
    return ((powerOfTwo ? exp - 1 : exp) + (1 << -schema) - 1) >> -schema;
  }
  words[HIGH] = (high & 0x800fffff) | (1022 << 20);
  const fraction = double[0]!;
  const bounds = FRACTION_BOUNDS[schema]!;
  const perOctave = 1 << schema;
  let j = Math.ceil(Math.log2(fraction) * perOctave) + perOctave;
  if (bounds[j]! < fraction) j++;
  else if (j > 0 && bounds[j - 1]! >= fraction) j--;
  return j + (exp - 1) * perOctave;
}

/** Counts of consecutive bucket indexes, `counts[k]` for index `first + k`, grown as observations arrive. */
class BucketWindow {
  counts = new Float64Array(0);
  first = 0;
  populated = 0;

  /** Whether `index` fits a window no wider than `limit`. */
  fits(index: number, limit: number): boolean {
    if (this.populated === 0) return true;
    const low = Math.min(index, this.first);
    const high = Math.max(index, this.first + this.counts.length - 1);
    return high - low < limit || (index >= this.first && index < this.first + this.counts.length);
  }

  add(index: number, limit: number): void {
    let at = index - this.first;
    if (at < 0 || at >= this.counts.length) at = this.grow(index, limit);
    if (this.counts[at]++ === 0) this.populated++;
  }

  /** Halves the resolution: buckets 2j − 1 and 2j become bucket j. */
  halve(): void {
    if (this.counts.length === 0) return;
    const first = (this.first + 1) >> 1;
    const merged = new Float64Array(((this.first + this.counts.length) >> 1) - first + 1);
    let populated = 0;
    for (let k = 0; k < this.counts.length; k++) {
      const count = this.counts[k]!;
      if (count === 0) continue;
      const to = ((this.first + k + 1) >> 1) - first;
      if (merged[to] === 0) populated++;
      merged[to]! += count;
    }
    this.counts = merged;
    this.first = first;
    this.populated = populated;
  }

  /** The populated buckets as spans (a new span after every empty bucket) and their counts. */
  spans(): { spans: BucketSpan[]; counts: number[] } {
    const spans: BucketSpan[] = [];
    const counts: number[] = [];
    let end = 0;
    let start = -1;
    for (let k = 0; k <= this.counts.length; k++) {
      const count = k < this.counts.length ? this.counts[k]! : 0;
      if (count !== 0) {
        if (start < 0) start = k;
        counts.push(count);
        continue;
      }
      if (start < 0) continue;
      const index = this.first + start;
      spans.push({ offset: spans.length === 0 ? index : index - end, length: k - start });
      end = this.first + k;
      start = -1;
    }
    return { spans, counts };
  }

  /** Reallocates with room for `index` (twice the width needed, capped at `limit`); returns its position. */
  private grow(index: number, limit: number): number {
    const length = this.counts.length;
    const low = length === 0 ? index : Math.min(index, this.first);
    const high = length === 0 ? index : Math.max(index, this.first + length - 1);
    const width = Math.min(limit, Math.max(2 * (high - low + 1), 16));
    const first = index < this.first || length === 0 ? high - width + 1 : low;
    const counts = new Float64Array(width);
    if (length > 0) counts.set(this.counts, this.first - first);
    this.counts = counts;
    this.first = first;
    return index - first;
  }
}

/**
 * The running state of one native histogram: observations recorded into sparse exponential buckets, cumulative,
 * the resolution halved (schema lowered by one, merging bucket pairs, as client_golang does) whenever more than
 * `maxBuckets` buckets are populated.
 */
export class ExponentialBuckets {
  schema: number;
  zeroCount = 0;
  count = 0;
  sum = 0;
  private readonly positive = new BucketWindow();
  private readonly negative = new BucketWindow();
  private readonly windowLimit: number;

  constructor(private readonly options: NativeHistogramOptions) {
    this.schema = options.schema;
    this.windowLimit = Math.max(MIN_WINDOW, WINDOW_PER_BUCKET * options.maxBuckets);
  }

  /**
   * Records one observation; NaN counts in the zero bucket (client_golang counts it in no bucket), so the count stays
   * the buckets' total, as OTLP's exponential histogram requires.
   */
  record(value: number): void {
    const threshold = this.options.zeroThreshold;
    this.count++;
    this.sum += value;
    if (value > threshold) this.add(this.positive, value);
    else if (value < -threshold) this.add(this.negative, -value);
    else this.zeroCount++;
  }

  /** The histogram as recorded so far (counts absolute, cumulative). */
  snapshot(): NativeHistogram {
    const positive = this.positive.spans();
    const negative = this.negative.spans();
    return {
      schema: this.schema,
      zeroThreshold: this.options.zeroThreshold,
      zeroCount: this.zeroCount,
      count: this.count,
      sum: this.sum,
      positiveSpans: positive.spans,
      positiveCounts: positive.counts,
      negativeSpans: negative.spans,
      negativeCounts: negative.counts,
    };
  }

  private add(window: BucketWindow, magnitude: number): void {
    let index = bucketIndex(magnitude, this.schema);
    while (this.schema > MIN_SCHEMA && !window.fits(index, this.windowLimit)) {
      this.halve();
      index = bucketIndex(magnitude, this.schema);
    }
    window.add(index, this.windowLimit);
    while (this.schema > MIN_SCHEMA && this.positive.populated + this.negative.populated > this.options.maxBuckets)
      this.halve();
  }

  private halve(): void {
    this.schema--;
    this.positive.halve();
    this.negative.halve();
  }
}
