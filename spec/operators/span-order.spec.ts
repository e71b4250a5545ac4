import { expect } from 'chai';
import { delay, of, ReplaySubject, VirtualAction, VirtualTimeScheduler, type Observable } from 'rxjs';
import { ticks } from '../../operators/ticks.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { generateTraces } from '../../operators/generate-traces.js';
import { generateLogs } from '../../operators/generate-logs.js';
import { observe } from '../../operators/observe.js';
import { labels } from '../../operators/labels.js';
import { histogram } from '../../operators/histogram.js';
import { exemplars } from '../../operators/exemplars.js';
import { spanMetrics } from '../../operators/span-metrics.js';
import { traceContext } from '../../operators/trace-context.js';
import { ExemplarCursor } from '../../operators/model/batch.js';
import type { SpanBatch } from '../../operators/model/span.js';
import { traceGenerator } from '../../lib/generators/trace.js';
import { traceConfig } from '../support/trace-generators.js';

/** Traces whose root lasts `seconds`, with a call of 0.2 ms. */
const tracesOf = (seconds: number) =>
  traceGenerator(
    traceConfig({
      seed: 1,
      root: {
        service: 'frontend',
        operation: 'GET /',
        kind: 'server',
        duration: seconds,
        calls: [{ service: 'payment', operation: 'POST /pay', kind: 'client', duration: 0.0002 }],
      },
    }),
  );

/**
 * What the readers of the spans of `traces` (7.3 a second) write over 10 s of one virtual clock: the span each exemplar
 * of a histogram of `rate` names, each log record's (as many), and every write of the span metrics (100 a second).
 * With `spansLast`, each batch of spans is emitted behind what is already due at its instant (the readers' timers):
 * the other order of two timers firing in one wake.
 */
function readings(
  traces: ReturnType<typeof tracesOf>,
  rate: number,
  spansLast: boolean,
): { named: string[]; logged: string[]; counted: string[] } {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
  const made = new ReplaySubject<SpanBatch>();
  const spans: Observable<SpanBatch> = spansLast ? made.pipe(delay(0, scheduler)) : made;
  const entry = (perSecond: number) =>
    of(RateSchedule.constant(perSecond)).pipe(ticks({ scheduler, duration: 10_000, anchor: () => 0 }));
  const named: string[] = [];
  const logged: string[] = [];
  const counted: string[] = [];
  entry(7.3).pipe(generateTraces(traces)).subscribe(made);
  entry(rate)
    .pipe(
      observe(() => 0.3, 1),
      labels(),
      histogram([0.5]),
      exemplars({ spans }),
    )
    .subscribe((batch) => {
      const cursor = new ExemplarCursor(batch.exemplars);
      for (let i = 0; i < batch.size; i++) named.push(`${batch.index[i]} ${cursor.at(i)?.spanId ?? '-'}`);
    });
  entry(rate)
    .pipe(
      generateLogs(() => ({ severity: 'info', message: 'm', fields: {} })),
      traceContext(spans, { on: 'all' }),
    )
    .subscribe((batch) => {
      for (let i = 0; i < batch.size; i++) logged.push(`${batch.index[i]} ${batch.context?.[i]?.spanId ?? '-'}`);
    });
  entry(100)
    .pipe(spanMetrics(spans, { family: 'calls' }))
    .subscribe((batch) => counted.push(Array.from(batch.value).join(',')));
  scheduler.flush();
  return { named, logged, counted };
}

describe('readers of spans on one clock', () => {
  for (const [rate, seconds, which] of [
    // Readers ticking on whole milliseconds, spans ending within their trace's millisecond.
    [1000, 0.0004, 'spans of 0.4 ms'],
    // Readers ticking between milliseconds (stamped at the one before), roots ending 0.3 ms before the next trace's
    // tick (1 / 7.3 s), so often between a record and a trace of its wake that ticks after it.
    [750, 1 / 7.3 - 0.0003, 'roots ending just before the next trace'],
  ] as const) {
    it(`exemplars, log records and span metrics name and count the same spans whichever timer fires first in a wake (${which}, readers at ${rate}/s)`, () => {
      const traces = tracesOf(seconds);
      const spansFirst = readings(traces, rate, false);
      const spansLast = readings(traces, rate, true);
      expect(spansFirst.named.filter((n) => !n.endsWith('-'))).to.have.length.above(rate * 9);
      expect(spansFirst.logged.filter((n) => !n.endsWith('-'))).to.have.length.above(rate * 9);
      expect(spansLast.named).to.deep.equal(spansFirst.named);
      expect(spansLast.logged).to.deep.equal(spansFirst.logged);
      expect(spansFirst.counted.at(-1), 'the last span-metrics write counts spans').to.match(/[1-9]/);
      expect(spansLast.counted).to.deep.equal(spansFirst.counted);
    });
  }
});
