import { expect } from 'chai';
import { map, of } from 'rxjs';
import { exemplars } from '../../operators/exemplars.js';
import { traceContext } from '../../operators/trace-context.js';
import { histogram } from '../../operators/histogram.js';
import { labels } from '../../operators/labels.js';
import { observe } from '../../operators/observe.js';
import { ticks } from '../../operators/ticks.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import {
  ExemplarCursor,
  exemplarAt,
  type Labelled,
  type LogBatch,
  type SampleBatch,
} from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { spanIdHex } from '../../operators/model/ids.js';
import { SPAN_STATUS } from '../../operators/model/span.js';
import { spanBatch, withSpanId } from '../support/span-batches.js';
import { collect, virtualTime } from '../support/marbles.js';

/**
 * A histogram event ([1, 2] buckets, or `bounds`) at tick `index`, written at `ms` epoch milliseconds (default: after
 * every span of these specs has ended), its rows `_bucket{le=1}`, `le=2`, `+Inf`, `_sum`, `_count`.
 */
function histogramEvent(index: number, ms = LATER, bounds = ['1', '2', '+Inf']): Labelled<SampleBatch> {
  const rows = bounds.map((le) => seriesOf({ le }, '_bucket'));
  const series = [...rows, seriesOf({}, '_sum'), seriesOf({}, '_count')];
  return {
    size: 5,
    events: 1,
    anchor: ms - index * 10,
    index: new Float64Array(5).fill(index),
    offset: new Float64Array(5).fill(index * 10),
    value: new Float64Array(5),
    series,
  };
}

/** Epoch milliseconds by which every span of these specs has ended (spanBatch's start at 0, lasting under 10 s). */
const LATER = 10_000;

/** Where each exemplar of a batch is, as `<row suffix>{le} <span id> <value>`. */
const placed = (batch: Labelled<SampleBatch>) =>
  [...(batch.exemplars?.rows ?? [])].map((i, k) => {
    const exemplar = exemplarAt(batch.exemplars!, k);
    return `${batch.series[i]!.suffix ?? ''}${batch.series[i]!.labels.le ?? ''} ${exemplar.spanId.slice(-2)} ${exemplar.value}`;
  });

describe('exemplars', () => {
  it('names the newest span not named yet, each on the bucket its duration falls in; none before a span came', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const spans = hot('-s-----t-', { s: spanBatch([0.5, 1.5]), t: spanBatch([7]) });
      const events = cold('a-b-c-d-e|', {
        a: histogramEvent(0, 1400),
        b: histogramEvent(1, 1500),
        c: histogramEvent(2, 1500),
        d: histogramEvent(3, 1500),
        e: histogramEvent(4, 7000),
      });
      // Newest first: c9 = span id 201: 1.5 s, c8 = 200: 0.5 s, c9 again when none is fresh, then c8 = 200 of the
      // next batch: 7 s.
      expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('a-b-c-d-e|', {
        a: [],
        b: ['_bucket2 c9 1.5'],
        c: ['_bucket1 c8 0.5'],
        d: ['_bucket2 c9 1.5'],
        e: ['_bucket+Inf c8 7'],
      });
      expectSubscriptions(spans.subscriptions).toBe('^--------!');
    });
  });

  it('names a span only once it has ended by the time of the event, the one that ended last first; a span unnamed for over a second is no longer fresh', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      // c8: 3 s, c9: 0.5 s, ca: 1 s, all started at 0.
      const spans = hot('s------', { s: spanBatch([3, 0.5, 1]) });
      const events = cold('-a-b-c-d-e|', {
        a: histogramEvent(0, 400),
        b: histogramEvent(1, 600),
        c: histogramEvent(2, 1000),
        d: histogramEvent(3, 3000),
        e: histogramEvent(4, 3000),
      });
      // e: c9 and ca, never named after c8, ended over a second before.
      expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('-a-b-c-d-e|', {
        a: [],
        b: ['_bucket1 c9 0.5'],
        c: ['_bucket1 ca 1'],
        d: ['_bucket+Inf c8 3'],
        e: ['_bucket+Inf c8 3'],
      });
    });
  });

  it('holds at most 4096 spans that have not ended: beyond, the newest are not kept, and the others are named as they end', () => {
    // 5000 spans started together, span k (span id 200 + k) lasting 1 + k/10000 s: all ended by 2 s, in order.
    const many = spanBatch(Array.from({ length: 5000 }, (_, k) => 1 + k / 10_000));
    const named = collect(
      of(histogramEvent(0, 2000)).pipe(exemplars({ spans: of(many) })),
      (batch, i) => new ExemplarCursor(batch.exemplars).at(i)?.spanId,
    ).filter(Boolean);
    // The last one kept, the 4096th, ended last among those kept; without the bound it would be the 5000th.
    expect(named.map((id) => Number.parseInt(id!, 16) - 200)).to.deep.equal([4095]);
  });

  it('names only spans of sampled traces, as an SDK records exemplars: none while only unsampled ones have ended', () => {
    // c8: 0.5 s, unsampled; c9: 1 s, sampled; ca: 1.5 s, unsampled.
    const batch = spanBatch([0.5, 1, 1.5]);
    batch.spans.flags[0] = 0;
    batch.spans.flags[2] = 0;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s------', { s: batch });
      const events = cold('-a-b-c|', {
        a: histogramEvent(0, 600),
        b: histogramEvent(1, 1000),
        c: histogramEvent(2, 1600),
      });
      expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('-a-b-c|', {
        a: [],
        b: ['_bucket1 c9 1'],
        c: ['_bucket1 c9 1'],
      });
    });
  });

  // Two streams whose timers fire in the same whole millisecond, in either order: the spans first, or the event.
  for (const [order, marbles] of [
    ['the spans', 'p s'],
    ['the event', 'p-s'],
  ] as const) {
    it(`names the same span whichever stream comes first in a wake (here ${order}): a span whose trace is emitted in the event’s millisecond has not ended for it, though it ended before the event`, () => {
      // c8: 0 to 0.5 s; d0: 999.5 to 999.8 ms, its trace's tick at 999.5 ms emitted in the wake of 1 000 ms, the
      // first event's.
      const short = spanBatch([0.0003], [], 999.5);
      short.spans.spanId.set([0, 0xd0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.5]), s: short });
        const events = cold('-a--b|', { a: histogramEvent(0, 1000), b: histogramEvent(1, 1001) });
        // b, in the next wake, names d0.
        expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('-a--b|', {
          a: ['_bucket1 c8 0.5'],
          b: ['_bucket1 d0 0.0003'],
        });
      });
    });

    it(`names the same span whichever stream comes first in a wake (here ${order}): a trace of the event’s millisecond ticking after it ends no span for it`, () => {
      // c8: 0 to 0.5 s; c9: 0 to 999.7 ms, running at the event's tick, 999.5 ms (stamped 999 ms); d0's trace ticks at
      // 999.9 ms, in the event's wake (1 000 ms), after it.
      const later = spanBatch([1], [], 999.9);
      later.spans.spanId.set([0, 0xd0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.5, 0.9997]), s: later });
        const events = cold('-a--|', { a: histogramEvent(0, 999.5) });
        expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('-a--|', { a: ['_bucket1 c8 0.5'] });
      });
    });
  }

  for (const [order, marbles] of [
    ['the spans', 'pas'],
    ['the event', 'pa-s'],
  ] as const) {
    it(`names the same span whichever stream comes first in a wake (here ${order}): a span that ended within its trace’s wake ends for an event only after that wake`, () => {
      // c8: 0 to 998.5 ms; d0: 998.25 to 998.375 ms, its trace emitted in the wake of 999 ms, so ending for an event
      // after c8; e0's trace ticks at 999.5 ms, in the event's wake (1 000 ms).
      const short = spanBatch([0.000125], [], 998.25);
      short.spans.spanId.set([0, 0xd0], 0);
      const later = spanBatch([1], [], 999.5);
      later.spans.spanId.set([0, 0xe0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.9985]), a: short, s: later });
        const events = cold('--a--|', { a: histogramEvent(0, 1000) });
        expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('--a--|', {
          a: ['_bucket1 d0 0.000125'],
        });
      });
    });
  }

  for (const [order, marbles] of [
    ['the spans', 'pq s'],
    ['the event', 'pq-s'],
  ] as const) {
    it(`names the same span whichever stream comes first in a wake (here ${order}): an event ticking within a millisecond steps the spans as a trace of its wake does`, () => {
      // a0: 990 to 997.9 ms; b1: 997.5 to 997.7 ms, its trace emitted in the wake of 998 ms; the event ticks at 999.5
      // ms (stamped 999 ms) in the wake of 1 000 ms, with c2's trace at 999.8 ms. Both ended by one step, a0 last.
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, {
          p: withSpanId(spanBatch([0.0079], [], 990), 0xa0),
          q: withSpanId(spanBatch([0.0002], [], 997.5), 0xb1),
          s: withSpanId(spanBatch([1], [], 999.8), 0xc2),
        });
        const events = cold('--a--|', { a: histogramEvent(0, 999.5) });
        expectObservable(events.pipe(exemplars({ spans }), map(placed))).toBe('--a--|', { a: ['_bucket1 a0 0.0079'] });
      });
    });
  }

  it('with unitsPerSecond, is worth the span duration in that unit, on the bucket holding it (1000: milliseconds)', () => {
    const inMs = (index: number) => histogramEvent(index, 1500, ['1000', '2000', '+Inf']);
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s-', { s: spanBatch([0.5, 1.5]) });
      expectObservable(
        cold('-ab|', { a: inMs(0), b: inMs(1) }).pipe(exemplars({ spans, unitsPerSecond: 1000 }), map(placed)),
      ).toBe('-ab|', { a: ['_bucket2000 c9 1500'], b: ['_bucket1000 c8 500'] });
    });
    expect(() => exemplars({ unitsPerSecond: 0 })).to.throw(/unitsPerSecond/);
  });

  it('with spanDurations false (observations of no time: bytes), is worth value, on the bucket holding it; the span gives the ids', () => {
    const inBytes = (index: number) => histogramEvent(index, 1500, ['1000', '2000', '+Inf']);
    const value = (index: number) => [1800, 700][index]!;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s-', { s: spanBatch([0.5, 1.5]) });
      expectObservable(
        cold('-ab|', { a: inBytes(0), b: inBytes(1) }).pipe(
          exemplars({ spans, value, spanDurations: false }),
          map(placed),
        ),
      ).toBe('-ab|', { a: ['_bucket2000 c9 1800'], b: ['_bucket1000 c8 700'] });
    });
    expect(() => exemplars({ spanDurations: 'no' as unknown as boolean })).to.throw(/spanDurations/);
  });

  it("on a counter's sample names a span and is worth one request, not the span's duration", () => {
    const counterEvent: Labelled<SampleBatch> = {
      size: 1,
      anchor: LATER,
      index: Float64Array.of(0),
      offset: Float64Array.of(0),
      value: Float64Array.of(41),
      series: [seriesOf({ pod: 'a' })],
    };
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s-', { s: spanBatch([0.5]) });
      expectObservable(cold('-a|', { a: counterEvent }).pipe(exemplars({ spans }), map(placed))).toBe('-a|', {
        a: [' c8 1'],
      });
    });
  });

  it('keeps its pool per subscription: a re-subscription names spans from what comes after it', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const spans = hot('-s--t----', { s: spanBatch([0.5]), t: spanBatch([1.5]) });
      const events = cold('--a|', { a: histogramEvent(0) });
      const named = events.pipe(exemplars({ spans }), map(placed));
      expectObservable(named).toBe('--a|', { a: ['_bucket1 c8 0.5'] });
      expectObservable(named, '---^').toBe('-----a|', { a: ['_bucket2 c8 1.5'] });
      expectObservable(named, '-----^').toBe('-------a|', { a: [] });
      expectSubscriptions(spans.subscriptions).toBe(['^--!', '---^--!', '-----^--!']);
    });
  });

  it('finds the bucket of each event as label sets of other layouts take turns, and again after them', () => {
    // One series object a row of a label set, as the histogram operator makes them: `a` with bounds 1 and 2, `b`
    // with bound 5 (fewer rows), `c` with the same number of rows as `a` but bounds 0.5 and 1.
    const layout = (set: string, bounds: readonly string[]) => [
      ...[...bounds, '+Inf'].map((le) => seriesOf({ set, le }, '_bucket')),
      seriesOf({ set }, '_sum'),
      seriesOf({ set }, '_count'),
    ];
    const a = layout('a', ['1', '2']);
    const b = layout('b', ['5']);
    const c = layout('c', ['0.5', '1']);
    // A batch an event: the events of one batch have as many rows each.
    const batches = [a, b, a, c, c, a].map(
      (rows, e): Labelled<SampleBatch> => ({
        size: rows.length,
        events: 1,
        anchor: 0,
        index: new Float64Array(rows.length).fill(e),
        offset: new Float64Array(rows.length).fill(e),
        value: new Float64Array(rows.length),
        series: rows,
      }),
    );
    const placedRows = collect(of(...batches).pipe(exemplars({ value: () => 1.5 })), (batch, i) =>
      new ExemplarCursor(batch.exemplars).at(i)
        ? `${batch.series[i]!.labels.set} ${batch.series[i]!.labels.le}`
        : undefined,
    ).filter(Boolean);
    expect(placedRows).to.deep.equal(['a 2', 'b 5', 'a 2', 'c +Inf', 'c +Inf', 'a 2']);
  });

  it('without spans: random ids from the seed and the slot, every Nth slot, worth the value asked', () => {
    const run = (seed: number) =>
      collect(
        of(RateSchedule.constant(10)).pipe(
          ticks({ duration: 1000 }),
          observe(() => 0.3, 1),
          labels(),
          histogram([0.5]),
          exemplars({ every: 4, seed, value: (index) => index / 10 }),
        ),
        (batch, i) => {
          const exemplar = new ExemplarCursor(batch.exemplars).at(i);
          return exemplar && `${batch.index[i]} ${batch.series[i]!.labels.le} ${exemplar.value}`;
        },
      ).filter(Boolean);
    expect(run(1)).to.deep.equal(['0 0.5 0', '4 0.5 0.4', '8 +Inf 0.8']);
    const ids = (seed: number) =>
      collect(
        of(RateSchedule.constant(10)).pipe(
          ticks({ duration: 500 }),
          observe(() => 0.3, 1),
          labels(),
          histogram([0.5]),
          exemplars({ seed }),
        ),
        (batch, i) => new ExemplarCursor(batch.exemplars).at(i)?.traceId,
      ).filter(Boolean);
    expect(ids(1)).to.deep.equal(ids(1));
    expect(ids(1)).to.not.deep.equal(ids(2));
    expect(new Set(ids(1)).size).to.equal(5);
  });
});

/** A log batch of these severities, one tick each from slot `first`, a millisecond apart from `ms` epoch ms. */
function records(severities: readonly string[], first = 0, ms = 1000): Labelled<LogBatch> {
  const size = severities.length;
  return {
    size,
    anchor: ms - first,
    index: Float64Array.from(severities, (_, k) => first + k),
    offset: Float64Array.from(severities, (_, k) => first + k),
    severity: [...severities],
    message: severities.map(() => 'm'),
    fields: severities.map(() => ({})),
    series: severities.map(() => seriesOf({})),
  };
}

const contexts = (batch: Labelled<LogBatch>) =>
  batch.severity.map((severity, i) => `${severity}:${batch.context?.[i]?.spanId.slice(-2) ?? '-'}`);

describe('traceContext', () => {
  it('on error (default): failing records name spans that raised an error, the others none', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // Spans 200 and 202 raised an error.
      const spans = hot('-s---', { s: spanBatch([0.1, 0.1, 0.1], [0, 2]) });
      const logs = cold('a-b|', { a: records(['error']), b: records(['info', 'error', 'fatal', 'error'], 1) });
      expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('a-b|', {
        a: ['error:-'],
        b: ['info:-', 'error:ca', 'fatal:c8', 'error:ca'],
      });
      expectSubscriptions(spans.subscriptions).toBe('^--!');
    });
  });

  it('names a span running at the record’s time, the first to end among those not named yet; while none runs, the last to end before', () => {
    // c8 failed from 0 to 2 s, c9 from 0 to 0.1 s, ca from 0.6 to 1 s.
    const batch = spanBatch([2, 0.1, 1], [0, 1, 2]);
    batch.spans.start[2] = 0.6e9;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s----', { s: batch });
      const logs = cold('-a-b-c-d|', {
        a: records(['error', 'error'], 0, 50),
        b: records(['error', 'error'], 2, 700),
        c: records(['error'], 4, 2000),
        d: records(['error'], 5, 3000),
      });
      // a: ca has not started yet. b: c9 has ended; ca, not named yet, then ca again, the first of the named to end.
      // c: c8 ends then. d: none runs, c8 ended last.
      expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a-b-c-d|', {
        a: ['error:c9', 'error:c8'],
        b: ['error:ca', 'error:ca'],
        c: ['error:c8'],
        d: ['error:c8'],
      });
    });
  });

  // c8 failed from 0 to 0.5 s; d0 fails from 1 s, the instant of the record, to 1.1 s.
  for (const [order, marbles] of [
    ['the spans', 'p s'],
    ['the record', 'p-s'],
  ] as const) {
    it(`names the same span whichever stream comes first at an instant (here ${order}): a span starting at the record’s time has not started for it`, () => {
      const starting = spanBatch([0.1], [0], 1000);
      starting.spans.spanId.set([0, 0xd0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.5], [0]), s: starting });
        const logs = cold('-a--|', { a: records(['error'], 0, 1000) });
        expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a--|', { a: ['error:c8'] });
      });
    });

    // d0 fails from 999.5 ms, its trace's tick, emitted in the wake of 1 000 ms, the record's, to 1.1 s.
    it(`names the same span whichever stream comes first in a wake (here ${order}): a span whose trace is emitted in the record’s millisecond has not started for it`, () => {
      const starting = spanBatch([0.1], [0], 999.5);
      starting.spans.spanId.set([0, 0xd0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.5], [0]), s: starting });
        const logs = cold('-a--|', { a: records(['error'], 0, 1000) });
        expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a--|', { a: ['error:c8'] });
      });
    });
    it(`names the same span whichever stream comes first in a wake (here ${order}): a trace of the record’s millisecond ticking after it ends no span for it`, () => {
      // c8 fails from 0 to 999.7 ms and c9 from 0 to 2 s, both running at the record's tick, 999.5 ms (stamped 999
      // ms); d0's trace ticks at 999.9 ms, in the record's wake (1 000 ms), after it. The first of them to end is c8.
      const later = spanBatch([1], [0], 999.9);
      later.spans.spanId.set([0, 0xd0], 0);
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(marbles, { p: spanBatch([0.9997, 2], [0, 1]), s: later });
        const logs = cold('-a--|', { a: records(['error'], 0, 999.5) });
        expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a--|', { a: ['error:c8'] });
      });
    });
    it(`names the same span whichever stream comes first in a wake (here ${order}): a record ticking within a millisecond steps the spans as a trace of its wake does`, () => {
      // As for exemplars: a0 and b1 failed and ended before the record, which ticks at 999.5 ms (stamped 999 ms) in
      // the wake of 1 000 ms with c2's trace at 999.8 ms; ended in one step, a0 last.
      virtualTime().run(({ cold, hot, expectObservable }) => {
        const spans = hot(order === 'the spans' ? 'pq s' : 'pq-s', {
          p: withSpanId(spanBatch([0.0079], [0], 990), 0xa0),
          q: withSpanId(spanBatch([0.0002], [0], 997.5), 0xb1),
          s: withSpanId(spanBatch([1], [0], 999.8), 0xc2),
        });
        const logs = cold('--a--|', { a: records(['error'], 0, 999.5) });
        expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('--a--|', { a: ['error:a0'] });
      });
    });
  }

  it('names a span starting 0.5 ms before the record when its trace was emitted in an earlier wake', () => {
    // c8 fails from 999.5 ms to 1.1 s, in a trace whose tick, at 0, was emitted long before the record.
    const batch = spanBatch([0.1], [0]);
    batch.spans.start[0] = 999.5e6;
    batch.spans.end[0] = 1100e6;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s---', { s: batch });
      const logs = cold('-a-|', { a: records(['error'], 0, 1000) });
      expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a-|', { a: ['error:c8'] });
    });
  });

  it('names a failing record a running span that raised an error, else a running failed call, else the last raised, else the last failed call', () => {
    // c8 raised an error, 0 to 0.1 s; c9 saw a call fail, 0 to 10 s; ca saw a call fail, 0 to 0.2 s.
    const batch = spanBatch([0.1, 10, 0.2], [0]);
    batch.spans.status[1] = SPAN_STATUS.failedCall;
    batch.spans.status[2] = SPAN_STATUS.failedCall;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s----', { s: batch });
      const logs = cold('-a-b-c|', {
        a: records(['error'], 0, 50),
        b: records(['error'], 1, 5000),
        c: records(['error'], 2, 20_000),
      });
      // a: c8 runs. b: c8 has ended long ago, c9 runs. c: none runs, c8 raised the last error to end.
      expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a-b-c|', {
        a: ['error:c8'],
        b: ['error:c9'],
        c: ['error:c8'],
      });
    });
    // With no span that raised an error: the last failed call to end once none runs.
    const calls = spanBatch([0.1, 0.2]);
    calls.spans.status.fill(SPAN_STATUS.failedCall);
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s--', { s: calls });
      const logs = cold('-a|', { a: records(['error'], 0, 5000) });
      expectObservable(logs.pipe(traceContext(spans), map(contexts))).toBe('-a|', { a: ['error:c9'] });
    });
  });

  it('gives a record the W3C flags of its span’s trace: a span of an unsampled trace is named with the flag clear', () => {
    const batch = spanBatch([0.1, 0.2]);
    batch.spans.flags[0] = 0;
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s--', { s: batch });
      const logs = cold('-a|', { a: records(['info', 'info']) });
      const flags = (logged: Labelled<LogBatch>) =>
        logged.context?.map((span) => `${span?.spanId.slice(-2)}:${span?.flags}`);
      expectObservable(logs.pipe(traceContext(spans, { on: 'all' }), map(flags))).toBe('-a|', {
        a: ['c9:1', 'c8:0'],
      });
    });
  });

  it('on all: every record names a span; on probability: the records its seeded draws pick', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s--', { s: spanBatch([0.1, 0.1], [1]) });
      const logs = cold('-a|', { a: records(['info', 'error', 'info']) });
      expectObservable(logs.pipe(traceContext(spans, { on: 'all' }), map(contexts))).toBe('-a|', {
        a: ['info:c9', 'error:c9', 'info:c8'],
      });
    });
    const picked = (seed: number) => {
      let out: string[] = [];
      virtualTime().run(({ cold, hot, flush }) => {
        const spans = hot('s-', { s: spanBatch(Array.from({ length: 100 }, () => 0.1)) });
        cold('-a|', { a: records(Array.from({ length: 100 }, () => 'info')) })
          .pipe(traceContext(spans, { on: 'probability', probability: 0.3, seed }), map(contexts))
          .subscribe((value) => (out = value));
        flush();
      });
      return out.filter((text) => !text.endsWith(':-')).length;
    };
    expect(picked(5)).to.be.within(18, 42);
    expect(picked(5)).to.equal(picked(5));
    // A failing record names a failed span whatever the draw.
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const spans = hot('s--', { s: spanBatch([0.1, 0.1], [1]) });
      const logs = cold('-a|', { a: records(['error', 'info', 'fatal']) });
      expectObservable(logs.pipe(traceContext(spans, { on: 'probability', probability: 0 }), map(contexts))).toBe(
        '-a|',
        { a: ['error:c9', 'info:-', 'fatal:c9'] },
      );
    });
  });
});

describe('span ids in these specs', () => {
  it('are what the placed texts abbreviate', () => {
    expect(spanIdHex(spanBatch([1]).spans, 0)).to.equal('00000000000000c8');
  });
});
