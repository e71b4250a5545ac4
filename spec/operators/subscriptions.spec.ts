import { expect } from 'chai';
import {
  catchError,
  concat,
  defer,
  lastValueFrom,
  map,
  NEVER,
  of,
  toArray,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { Labelled, LogBatch, ObservationBatch, SampleBatch, TickBatch } from '../../operators/model/batch.js';
import { DEFAULT_NATIVE, histogram } from '../../operators/histogram.js';
import { nativeHistogram } from '../../operators/native-histogram.js';
import { labels } from '../../operators/labels.js';
import { summary } from '../../operators/summary.js';
import { seriesOf } from '../../operators/model/series.js';
import { deliver, type Delivery } from '../../operators/deliver.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { exemplars } from '../../operators/exemplars.js';
import { traceContext } from '../../operators/trace-context.js';
import { spanMetrics } from '../../operators/span-metrics.js';
import type { SpanBatch } from '../../operators/model/span.js';
import { chunk } from '../support/batches.js';
import { MemorySink } from '../support/sinks.js';
import { virtualTime } from '../support/marbles.js';

/** The empty label set, interned as `labels()` interns: state is kept per series object. */
const NO_LABELS = seriesOf({});

/** One tick at slot `index` observing `observations`, without labels. */
function observed(index: number, observations: number[]): Labelled<ObservationBatch> {
  return {
    size: 1,
    anchor: 0,
    index: Float64Array.of(index),
    offset: Float64Array.of(index * 100),
    observations: [Float64Array.from(observations)],
    series: [NO_LABELS],
  };
}

/** One tick at slot `index`. */
function tick(index: number): TickBatch {
  return { size: 1, anchor: 0, index: Float64Array.of(index), offset: Float64Array.of(index * 100) };
}

/** The last row of a series-set batch: `_count`, or the native histogram's row, whose value is its count. */
const countOf = (batch: Labelled<SampleBatch>) => batch.value[batch.size - 1];

/** Stateful operators: each subscription starts afresh, and unsubscribing reaches the source. */
const stateful: [string, OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>>][] = [
  ['histogram', histogram([1])],
  ['summary', summary([0.5])],
  ['nativeHistogram', nativeHistogram()],
  ['histogram with native', histogram([1], { native: DEFAULT_NATIVE })],
];

describe('operators keep their state per subscription', () => {
  for (const [name, operator] of stateful) {
    describe(name, () => {
      it('subscribes to the source once and unsubscribes when it completes', () => {
        virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
          const source = cold('-a-b|', { a: observed(0, [0.5]), b: observed(1, [2, 3]) });
          expectObservable(source.pipe(operator, map(countOf))).toBe('-x-y|', { x: 1, y: 3 });
          expectSubscriptions(source.subscriptions).toBe('^---!');
        });
      });

      it('starts from zero when the same chain is subscribed again', () => {
        virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
          const source = cold('-a-b|', { a: observed(0, [0.5]), b: observed(1, [2, 3]) });
          const chain: Observable<number | undefined> = source.pipe(operator, map(countOf));
          expectObservable(concat(chain, chain)).toBe('-x-y-x-y|', { x: 1, y: 3 });
          expectSubscriptions(source.subscriptions).toBe(['^---!', '----^---!']);
        });
      });

      it('tears the source down when the subscriber leaves early, and routes a source error', () => {
        virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
          const source = cold('-a-b-c|', { a: observed(0, [1]), b: observed(1, [1]), c: observed(2, [1]) });
          expectObservable(source.pipe(operator, map(countOf)), '^--!').toBe('-x-', { x: 1 });
          expectSubscriptions(source.subscriptions).toBe('^--!');
          const failing = cold('-a-#', { a: observed(0, [1]) }, new Error('upstream'));
          expectObservable(failing.pipe(operator, map(countOf))).toBe('-x-#', { x: 1 }, new Error('upstream'));
        });
      });
    });
  }

  describe('labels', () => {
    it('gives two subscriptions the same label sets, interned afresh for each', () => {
      const operator = labels({ dynamic: [{ key: 'pod', cardinality: 2 }] });
      virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a-b|', { a: tick(0), b: tick(1) });
        const chain = source.pipe(
          operator,
          map((batch) => batch.series[0]!.key),
        );
        expectObservable(concat(chain, chain)).toBe('-x-y-x-y|', { x: 'pod="pod_0"', y: 'pod="pod_1"' });
        expectSubscriptions(source.subscriptions).toBe(['^---!', '----^---!']);
      });
      const seen: object[] = [];
      const source = of(tick(0));
      source.pipe(operator).subscribe((batch) => seen.push(batch.series[0]!));
      source.pipe(operator).subscribe((batch) => seen.push(batch.series[0]!));
      expect(seen).to.have.length(2);
      expect(seen[0]).to.deep.equal(seen[1]);
      expect(seen[0]).not.to.equal(seen[1]);
    });
  });

  describe('ticks', () => {
    it('subscribes to its schedules once, unsubscribes at its duration, and starts its clock afresh on each subscription', () => {
      virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
        const schedules = cold('a', { a: RateSchedule.constant(1000) });
        const chain = schedules.pipe(
          ticks({ duration: 3 }),
          map((batch) => batch.index[0]),
        );
        expectObservable(concat(chain, chain)).toBe('abcabc|', { a: 0, b: 1, c: 2 });
        expectSubscriptions(schedules.subscriptions).toBe(['^--!', '---^--!']);
      });
    });
  });

  describe('deliver', () => {
    it('subscribes to its chunks once per subscription, and each subscription writes and flushes the same way', async () => {
      const sink = new MemorySink();
      let subscriptions = 0;
      const chunks = defer(() => (subscriptions++, of(chunk('a\n'), chunk('b\n'))));
      const chain = chunks.pipe(
        deliver(sink),
        map((delivery: Delivery) => delivery.kind),
        toArray(),
      );
      const first = await lastValueFrom(chain);
      const second = await lastValueFrom(chain);
      expect(first).to.deep.equal(['written', 'delivered', 'written', 'delivered']);
      expect(second).to.deep.equal(first);
      expect(subscriptions).to.equal(2);
      expect(sink.text).to.equal('a\nb\na\nb\n');
      expect(sink.flushes).to.equal(2);
    });

    it('errors the stream when the sink throws instead of rejecting: nothing escapes as an uncaught exception', () => {
      const sink = Object.assign(new MemorySink(), {
        flush(): Promise<void> {
          throw new Error('flush threw');
        },
      });
      const seen: string[] = [];
      of(chunk('a\n'))
        .pipe(deliver(sink))
        .subscribe({
          next: (d) => seen.push(d.kind),
          error: (e: Error) => seen.push(`error: ${e.message}`),
          complete: () => seen.push('complete'),
        });
      expect(seen).to.deep.equal(['written', 'delivered', 'error: flush threw']);
    });
  });

  describe('an error of what an operator reads beside its source goes down the stream', () => {
    const broken = new Error('spans broke');
    const readers: [string, (spans: Observable<SpanBatch>) => Observable<unknown>][] = [
      ['exemplars', (spans) => (NEVER as Observable<Labelled<SampleBatch>>).pipe(exemplars({ spans }))],
      ['traceContext', (spans) => (NEVER as Observable<LogBatch>).pipe(traceContext(spans))],
      ['spanMetrics', (spans) => (NEVER as Observable<TickBatch>).pipe(spanMetrics(spans, { family: 'calls' }))],
    ];
    for (const [name, read] of readers) {
      it(`${name}: spans that error error the result, not the process`, () => {
        virtualTime().run(({ cold, expectObservable }) => {
          const spans = cold<SpanBatch>('--#', undefined, broken);
          expectObservable(read(spans)).toBe('--#', undefined, broken);
        });
      });

      // Ticks given for spans (generateTraces left out) broke deep inside the pool, thrown out of the stream.
      it(`${name}: spans that are not batches of spans error the result, naming what they must be`, () => {
        virtualTime().run(({ cold, expectObservable }) => {
          const spans = cold<SpanBatch>('--a', { a: tick(0) as SpanBatch });
          const told = read(spans).pipe(catchError((error: Error) => of(error.message)));
          expectObservable(told).toBe('--(m|)', {
            m: `${name}: each value of spans must be a batch of spans (generateTraces' output), got {size, anchor, index, offset}`,
          });
        });
      });
    }

    it('deliver: a sink whose reports error errors the stream', () => {
      virtualTime().run(({ cold, expectObservable }) => {
        const sink = Object.assign(new MemorySink(), { reports: cold<never>('--#', undefined, broken) });
        const chunks = cold('a', { a: chunk('a\n') });
        const kinds = chunks.pipe(
          deliver(sink),
          map((d: Delivery) => d.kind),
        );
        expectObservable(kinds).toBe('w-#', { w: 'written' }, broken);
      });
    });
  });
});
