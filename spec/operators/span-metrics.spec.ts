import { map } from 'rxjs';
import { spanMetrics } from '../../operators/span-metrics.js';
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
  it('calls: each tick writes every dimension set, counting the traces started before it, cumulatively', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // Two fast spans at 10 ms, one of them failing; one more at 30 ms; a tick at 20 ms sees the first two.
      const spans = hot('-a-b----', { a: spanBatch([0.1, 0.2], [1], 10), b: spanBatch([0.3], [], 30) });
      const ticks = cold('--x-y-z|', { x: tick(20), y: tick(40), z: tick(60) });
      expectObservable(ticks.pipe(spanMetrics(spans, { family: 'calls' }), map(rows))).toBe('--x-y-z|', {
        x: ['{ok} 1', '{error} 1'],
        y: ['{ok} 2', '{error} 1'],
        z: ['{ok} 2', '{error} 1'],
      });
      expectSubscriptions(spans.subscriptions).toBe('^------!');
    });
  });

  it('with a scheduler, writes once more when the ticks end, at that time but not past the end: the last interval counted', () => {
    const scheduler = virtualTime();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const spans = hot('10ms a 34ms b', { a: spanBatch([0.1, 0.2], [1], 10), b: spanBatch([0.3], [], 45) });
      const ticks = cold('20ms x 19ms y 19ms |', { x: tick(20), y: tick(40) });
      const written = (end?: number) =>
        ticks.pipe(
          spanMetrics(spans, { family: 'calls', scheduler, ...(end !== undefined && { end }) }),
          map((batch) => [batch.offset[0], ...rows(batch)]),
        );
      // The last tick at 40 ms saw the traces of 10 ms; the end at 50 ms sees the one of 45 ms too.
      expectObservable(written(50)).toBe('20ms x 19ms y 19ms (z|)', {
        x: [20, '{ok} 1', '{error} 1'],
        y: [40, '{ok} 1', '{error} 1'],
        z: [50, '{ok} 2', '{error} 1'],
      });
      // Without an end: at the time the ticks end.
      expectObservable(written()).toBe('20ms x 19ms y 19ms (z|)', {
        x: [20, '{ok} 1', '{error} 1'],
        y: [40, '{ok} 1', '{error} 1'],
        z: [60, '{ok} 2', '{error} 1'],
      });
    });
  });

  it('labels a set as the connector does, OTLP or Prometheus names', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('a---', { a: spanBatch([0.1], [0], 0) });
      const labelsOf = (naming: 'otlp' | 'prometheus') =>
        cold('-x|', { x: tick(10) }).pipe(
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

  it('duration: a histogram in the unit asked, each bucket with the last span it counted since the last tick', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('-a-b---', { a: spanBatch([0.05, 2], [], 10), b: spanBatch([0.08], [], 30) });
      const ticks = cold('--x-y|', { x: tick(20), y: tick(40) });
      expectObservable(
        ticks.pipe(spanMetrics(spans, { family: 'duration', buckets: [0.1, 1], exemplars: true }), map(rows)),
      ).toBe('--x-y|', {
        // c8: 0.05 s, c9: 2 s; then c8 of the second batch: 0.08 s.
        x: ['_bucket{ok 100} 1 #c8', '_bucket{ok 1000} 1', '_bucket{ok +Inf} 2 #c9', '_sum{ok} 2050', '_count{ok} 2'],
        y: ['_bucket{ok 100} 2 #c8', '_bucket{ok 1000} 2', '_bucket{ok +Inf} 3', '_sum{ok} 2130', '_count{ok} 3'],
      });
    });
  });

  it('keeps its counts per subscription: a re-subscription counts only the spans that came after it', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const spans = hot('-a--b----', { a: spanBatch([0.1], [], 10), b: spanBatch([0.1, 0.1], [], 40) });
      const counted = cold('--x|', { x: tick(100) }).pipe(spanMetrics(spans, { family: 'calls' }), map(rows));
      expectObservable(counted).toBe('--x|', { x: ['{ok} 1'] });
      expectObservable(counted, '--^').toBe('----x|', { x: ['{ok} 2'] });
      expectSubscriptions(spans.subscriptions).toBe(['^--!', '--^--!']);
    });
  });
});
