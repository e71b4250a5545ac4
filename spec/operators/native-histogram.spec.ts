import { expect } from 'chai';
import fc from 'fast-check';
import { concat, map, of } from 'rxjs';
import type { Labelled, ObservationBatch, SampleBatch } from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import { seriesOf } from '../../operators/model/series.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { observe } from '../../operators/observe.js';
import { labels } from '../../operators/labels.js';
import { DEFAULT_NATIVE, histogram } from '../../operators/histogram.js';
import { nativeHistogram } from '../../operators/native-histogram.js';
import { bucketIndex, type NativeHistogramOptions } from '../../operators/internal/exponential-buckets.js';
import { collect, virtualTime } from '../support/marbles.js';
import { boundaryCases, bucketByDefinition } from '../support/native-buckets/index.js';

const NO_LABELS = seriesOf({});

function observed(index: number, observations: number[]): Labelled<ObservationBatch> {
  return {
    size: 1,
    anchor: 0,
    index: Float64Array.of(index),
    offset: Float64Array.of(index * 10),
    observations: [Float64Array.from(observations)],
    series: [NO_LABELS],
  };
}

/** The buckets of one side of a histogram by index, read back from its spans. */
function bucketsOf(spans: NativeHistogram['positiveSpans'], counts: readonly number[]): Map<number, number> {
  const buckets = new Map<number, number>();
  let index = 0;
  let k = 0;
  spans.forEach((span, s) => {
    index = s === 0 ? span.offset : index + span.offset;
    for (let j = 0; j < span.length; j++) buckets.set(index++, counts[k++]!);
  });
  return buckets;
}

/** A histogram as plain data: its schema, zero bucket, totals and bucket maps. */
function readable(h: NativeHistogram) {
  return {
    schema: h.schema,
    zeroCount: h.zeroCount,
    count: h.count,
    sum: h.sum,
    positive: Object.fromEntries(bucketsOf(h.positiveSpans, h.positiveCounts)),
    negative: Object.fromEntries(bucketsOf(h.negativeSpans, h.negativeCounts)),
  };
}

/** The last native histogram a pipeline of `observations` (one tick each) makes. */
function recorded(ticksOfObservations: number[][], options: NativeHistogramOptions): NativeHistogram {
  let last: NativeHistogram | undefined;
  of(...ticksOfObservations.map((o, i) => observed(i, o)))
    .pipe(nativeHistogram(options))
    .subscribe((batch) => (last = batch.native![0]));
  return last!;
}

describe('nativeHistogram', () => {
  describe('bucketIndex', () => {
    it('puts a value in (base^(i-1), base^i], powers of two on their upper bound', () => {
      expect([1, 2, 3, 4, 0.75, 0.5].map((v) => bucketIndex(v, 0))).to.deep.equal([0, 1, 2, 2, 0, -1]);
      // Schema -1: base 4; schema -2: base 16.
      expect([4, 5, 16, 17, 0.25].map((v) => bucketIndex(v, -1))).to.deep.equal([1, 2, 2, 3, -1]);
      expect([16, 17, 256].map((v) => bucketIndex(v, -2))).to.deep.equal([1, 2, 2]);
      // Schema 3: base 2^(1/8) ≈ 1.0905; 1.1 lies in (1.0905, 1.1892].
      expect([1, 1.1, 2, 1.09].map((v) => bucketIndex(v, 3))).to.deep.equal([0, 2, 8, 1]);
      // The smallest subnormal, 2^-1074, and the largest double.
      expect(bucketIndex(Number.MIN_VALUE, 0)).to.equal(-1074);
      expect(bucketIndex(Number.MAX_VALUE, 0)).to.equal(1024);
    });

    it('agrees with the definition for any positive value and schema, subnormals and the greatest doubles too', () => {
      fc.assert(
        fc.property(
          fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }),
          fc.integer({ min: -4, max: 8 }),
          (value, schema) => {
            expect(bucketIndex(value, schema), `${value} at schema ${schema}`).to.equal(
              bucketByDefinition(value, schema),
            );
          },
        ),
        { numRuns: 2000 },
      );
    });

    it('puts a value on a bound, or 1 to 3 ulps from it, where the definition does: the bounds are not 2 ** x', () => {
      // 2 ** x gives a double an ulp above the bound for 248 of the 510 (schema, j) bounds within a power of two,
      // the nearest double is above it for 250: 2^-0.25 = 0.84089641525371454…, between these two doubles.
      const misplaced = boundaryCases()
        .filter(({ value, schema }) => bucketIndex(value, schema) !== bucketByDefinition(value, schema))
        .map(({ value, schema }) => `${value} at schema ${schema}: ${bucketIndex(value, schema)}`);
      expect(misplaced.slice(0, 5), `${misplaced.length} misplaced`).to.deep.equal([]);
      expect([0.8408964152537145, 0.8408964152537146].map((v) => bucketIndex(v, 2))).to.deep.equal([-1, 0]);
    });
  });

  it('writes one row a tick: the series without suffix, its count, the histogram cumulative since start', () => {
    const options = { schema: 0, zeroThreshold: 0.001, maxBuckets: 160 };
    virtualTime().run(({ cold, expectObservable }) => {
      const source = cold('a-b|', { a: observed(0, [0.2, 3]), b: observed(1, [-1, 0]) });
      const rows = source.pipe(
        nativeHistogram(options),
        map((batch) => ({
          suffix: batch.series[0]!.suffix,
          value: batch.value[0],
          events: batch.events,
          native: readable(batch.native![0]!),
        })),
      );
      expectObservable(rows).toBe('a-b|', {
        a: {
          suffix: undefined,
          value: 2,
          events: 1,
          native: { schema: 0, zeroCount: 0, count: 2, sum: 3.2, positive: { '-2': 1, 2: 1 }, negative: {} },
        },
        b: {
          suffix: undefined,
          value: 4,
          events: 1,
          native: { schema: 0, zeroCount: 1, count: 4, sum: 2.2, positive: { '-2': 1, 2: 1 }, negative: { 0: 1 } },
        },
      });
    });
  });

  it('starts from zero on every subscription', () => {
    virtualTime().run(({ cold, expectObservable }) => {
      const source = cold('a|', { a: observed(0, [1, 2]) });
      const chain = source.pipe(
        nativeHistogram(),
        map((batch) => batch.native![0]!.positiveCounts.join()),
      );
      expectObservable(concat(chain, chain)).toBe('ab|', { a: '1,1', b: '1,1' });
    });
  });

  it('lists populated runs as spans: first offset the index, later ones the gap', () => {
    const h = recorded([[1, 2, 16, 32, 32]], { schema: 0, zeroThreshold: 0, maxBuckets: 160 });
    expect(h.positiveSpans).to.deep.equal([
      { offset: 0, length: 2 },
      { offset: 2, length: 2 },
    ]);
    expect(h.positiveCounts).to.deep.equal([1, 1, 1, 2]);
  });

  it('counts values within zero_threshold in the zero bucket, and NaN too (client_golang counts it in none)', () => {
    const h = recorded([[0, 1e-9, -1e-9, NaN, 1]], { schema: 0, zeroThreshold: 1e-6, maxBuckets: 160 });
    expect(h.zeroCount).to.equal(4);
    expect(h.count).to.equal(5);
    expect(h.positiveCounts).to.deep.equal([1]);
  });

  it('halves the resolution past max_buckets: the same buckets as recording at the lower schema from the start', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 40 }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.integer({ min: -2, max: 8 }),
        fc.integer({ min: 1, max: 20 }),
        (observations, schema, maxBuckets) => {
          const reduced = recorded(observations, { schema, zeroThreshold: 1e-3, maxBuckets });
          const populated = reduced.positiveCounts.length + reduced.negativeCounts.length;
          if (reduced.schema > -4) expect(populated, 'populated buckets').to.be.at.most(maxBuckets);
          const direct = recorded(observations, { schema: reduced.schema, zeroThreshold: 1e-3, maxBuckets: 1e9 });
          expect(readable(reduced)).to.deep.equal(readable(direct));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps its resolution while the populated buckets stay within max_buckets', () => {
    // One observation in each of the 8 buckets of (1, 2] at schema 3: within 8; one more above 2 is past it.
    const octave = Array.from({ length: 8 }, (_, k) => 2 ** ((k + 0.5) / 8));
    const options = { schema: 3, zeroThreshold: 0, maxBuckets: 8 };
    expect(recorded([octave], options).positiveCounts).to.deep.equal([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(recorded([octave], options).schema).to.equal(3);
    const halved = recorded([[...octave, 2.1]], options);
    expect(halved.schema).to.equal(2);
    expect(halved.positiveCounts).to.deep.equal([2, 2, 2, 2, 1]);
  });

  it('bounds the dense window: observations from 1e-300 to 1e300 lower the schema, not the memory', () => {
    const h = recorded([[1e-300, 1, 1e300]], { schema: 8, zeroThreshold: 0, maxBuckets: 3 });
    // 2000 powers of two wide: at most 4 × 64 indexes fit at schema −2 (2^4 each): about 125 indexes.
    expect(h.schema).to.be.at.most(-2);
    expect(h.positiveCounts).to.deep.equal([1, 1, 1]);
  });

  it('histogram(…, {native}) writes the classic rows, then the native row, from the same observations', () => {
    const out = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 200 }),
        observe((i) => [0.2, 3, 0.7, 5][i]!, 2),
        labels(),
        histogram([1], { native: DEFAULT_NATIVE }),
      ),
      (b: Labelled<SampleBatch>, i) =>
        `${b.series[i]!.suffix ?? ''} ${b.value[i]}${b.native?.[i] ? ` native count ${b.native[i]!.count}` : ''}`,
    );
    expect(out).to.deep.equal([
      '_bucket 1',
      '_bucket 2',
      '_sum 3.2',
      '_count 2',
      ' 2 native count 2',
      '_bucket 2',
      '_bucket 4',
      '_sum 8.9',
      '_count 4',
      ' 4 native count 4',
    ]);
  });
});
