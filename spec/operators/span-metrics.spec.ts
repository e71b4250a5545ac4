import { map, of } from 'rxjs';
import { spanMetrics } from '../../operators/span-metrics.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { ExemplarCursor, type Labelled, type SampleBatch, type TickBatch } from '../../operators/model/batch.js';
import { spanBatch } from '../support/span-batches.js';
import { virtualTime } from '../support/marbles.js';

/** A flush tick at `ms`. */
const tick = (ms: number): TickBatch => ({
  size: 1,
  anchor: 0,
  index: Float64Array.of(ms / 10),
  offset: Float64Array.of(ms),
});

/** Each row as `suffix{status le} value`, plus ` #<span id>` when it carries an exemplar. */
const rows = (batch: Labelled<SampleBatch>) =>
  Array.from({ length: batch.size }, (_, i) => {
    const { labels, suffix } = batch.series[i]!;
    const status = labels.status_code === 'STATUS_CODE_ERROR' ? 'error' : 'ok';
    const exemplar = new ExemplarCursor(batch.exemplars).at(i);
    return `${suffix ?? ''}{${status}${labels.le ? ` ${labels.le}` : ''}} ${batch.value[i]}${exemplar ? ` #${exemplar.spanId.slice(-2)}` : ''}`;
  });

describe('spanMetrics', () => {
  it('calls: each tick counts the spans ended by its time, cumulatively; a span still running waits for a later tick', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // At 10 ms a span of 5 ms and a failing one of 20 ms; at 30 ms one of 10 ms, which ends at the tick of 40 ms.
      const spans = hot('-a-b----', { a: spanBatch([0.005, 0.02], [1], 10), b: spanBatch([0.01], [], 30) });
      const ticks = cold('--x-y-z|', { x: tick(20), y: tick(40), z: tick(60) });
      expectObservable(ticks.pipe(spanMetrics(spans, { family: 'calls' }), map(rows))).toBe('--x-y-z|', {
        x: ['{ok} 1'],
        y: ['{ok} 2', '{error} 1'],
        z: ['{ok} 2', '{error} 1'],
      });
      expectSubscriptions(spans.subscriptions).toBe('^------!');
    });
  });

  // Two streams whose timers fire in the same whole millisecond, in either order: the spans first, or the tick.
  for (const [order, marbles] of [
    ['the spans', 'p s'],
    ['the tick', 'p-s'],
  ] as const) {
    it(`counts the same spans whichever stream comes first in a wake (here ${order}): a span whose trace is emitted in the tick’s millisecond waits for a later tick, though it ended before`, () => {
      virtualTime().run(({ cold, hot, expectObservable }) => {
        // A span of 0 to 0.5 s; one of 999.5 to 999.8 ms, its trace's tick at 999.5 ms emitted in the wake of 1 000 ms.
        const spans = hot(marbles, { p: spanBatch([0.5]), s: spanBatch([0.0003], [], 999.5) });
        const ticks = cold('-x--y|', { x: tick(1000), y: tick(1010) });
        expectObservable(ticks.pipe(spanMetrics(spans, { family: 'calls' }), map(rows))).toBe('-x--y|', {
          x: ['{ok} 1'],
          y: ['{ok} 2'],
        });
      });
    });
  }

  it('with a scheduler, writes once more when the ticks end, at that time but not past the end: what ended in the last interval counted', () => {
    const scheduler = virtualTime();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const spans = hot('10ms a 34ms b', {
        a: spanBatch([0.005, 0.02], [1], 10),
        b: spanBatch([0.003, 0.01], [], 45),
      });
      const ticks = cold('20ms x 19ms y 19ms |', { x: tick(20), y: tick(40) });
      const written = (end?: number) =>
        ticks.pipe(
          spanMetrics(spans, { family: 'calls', scheduler, ...(end !== undefined && { end }) }),
          map((batch) => [batch.offset[0], ...rows(batch)]),
        );
      // The end at 50 ms counts the span ended at 48 ms; the one ending at 55 ms, still running, is never counted.
      expectObservable(written(50)).toBe('20ms x 19ms y 19ms (z|)', {
        x: [20, '{ok} 1'],
        y: [40, '{ok} 1', '{error} 1'],
        z: [50, '{ok} 2', '{error} 1'],
      });
      // Without an end: at the time the ticks end, by which both have ended.
      expectObservable(written()).toBe('20ms x 19ms y 19ms (z|)', {
        x: [20, '{ok} 1'],
        y: [40, '{ok} 1', '{error} 1'],
        z: [60, '{ok} 3', '{error} 1'],
      });
    });
  });

  it("writes once more at the ticks' end on their own clock, whatever epoch `ticks`' anchor writes (a start_time ahead or behind)", () => {
    for (const epoch of [1_700_000_000_000, -3_600_000]) {
      const scheduler = virtualTime();
      scheduler.run(({ hot, expectObservable }) => {
        // The spans of traces started 10 ms and 45 ms after that start, stamped from the same epoch as the ticks.
        const spans = hot('10ms a 34ms b', {
          a: { ...spanBatch([0.005, 0.02], [1], 10), anchor: epoch },
          b: { ...spanBatch([0.003, 0.01], [], 45), anchor: epoch },
        });
        const written = of(RateSchedule.constant(50)).pipe(
          ticks({ scheduler, duration: 50, anchor: () => epoch }),
          spanMetrics(spans, { family: 'calls', scheduler }),
          map((batch) => [batch.offset[0], ...rows(batch)]),
        );
        // The ticks end at 50 ms, which counts the span ended at 48 ms.
        expectObservable(written).toBe('a 19ms b 19ms c 9ms (d|)', {
          a: [undefined], // no span has ended at 0 ms: no row
          b: [20, '{ok} 1'],
          c: [40, '{ok} 1', '{error} 1'],
          d: [50, '{ok} 2', '{error} 1'],
        });
      });
    }
  });

  it('labels a set as the connector does, OTLP or Prometheus names', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('a---', { a: spanBatch([0.1], [0], 0) });
      const labelsOf = (naming: 'otlp' | 'prometheus') =>
        cold('-x|', { x: tick(200) }).pipe(
          spanMetrics(spans, { family: 'calls', naming }),
          map((batch) => batch.series[0]!.labels),
        );
      expectObservable(labelsOf('prometheus')).toBe('-x|', {
        x: {
          service_name: 'payment',
          span_name: 'POST /pay',
          span_kind: 'SPAN_KIND_SERVER',
          status_code: 'STATUS_CODE_ERROR',
        },
      });
      expectObservable(labelsOf('otlp')).toBe('-x|', {
        x: {
          'service.name': 'payment',
          'span.name': 'POST /pay',
          'span.kind': 'SPAN_KIND_SERVER',
          'status.code': 'STATUS_CODE_ERROR',
        },
      });
    });
  });

  it('duration: a histogram in the unit asked, each bucket with the span that ended last among those it counted since the last tick', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      // At 10 ms: c8 of 50 ms, c9 of 2 s, ca of 40 ms; at 30 ms: c8 of 8 ms.
      const spans = hot('-ab----', { a: spanBatch([0.05, 2, 0.04], [], 10), b: spanBatch([0.008], [], 30) });
      const ticks = cold('---x-y-z|', { x: tick(40), y: tick(70), z: tick(2100) });
      expectObservable(
        ticks.pipe(spanMetrics(spans, { family: 'duration', buckets: [0.1, 1], exemplars: true }), map(rows)),
      ).toBe('---x-y-z|', {
        x: ['_bucket{ok 100} 1 #c8', '_bucket{ok 1000} 1', '_bucket{ok +Inf} 1', '_sum{ok} 8', '_count{ok} 1'],
        // ca ended at 50 ms, c8 at 60 ms: c8 is the bucket's exemplar.
        y: ['_bucket{ok 100} 3 #c8', '_bucket{ok 1000} 3', '_bucket{ok +Inf} 3', '_sum{ok} 98', '_count{ok} 3'],
        z: ['_bucket{ok 100} 3', '_bucket{ok 1000} 3', '_bucket{ok +Inf} 4 #c9', '_sum{ok} 2098', '_count{ok} 4'],
      });
    });
  });

  it('keeps its counts per subscription: a re-subscription counts only the spans that came after it', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const spans = hot('-a--b----', { a: spanBatch([0.1], [], 10), b: spanBatch([0.1, 0.1], [], 40) });
      const counted = cold('--x|', { x: tick(1000) }).pipe(spanMetrics(spans, { family: 'calls' }), map(rows));
      expectObservable(counted).toBe('--x|', { x: ['{ok} 1'] });
      expectObservable(counted, '--^').toBe('----x|', { x: ['{ok} 2'] });
      expectSubscriptions(spans.subscriptions).toBe(['^--!', '--^--!']);
    });
  });
});
