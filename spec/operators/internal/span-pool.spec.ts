import { expect } from 'chai';
import { SpanPool, type PooledSpan, type SpanAsk } from '../../../operators/internal/span-pool.js';
import type { SpanBatch } from '../../../operators/model/span.js';
import { spanBatch, withSpanId } from '../../support/span-batches.js';

/** A trace ticking at `tick` ms whose one span starts then and lasts `seconds`, its span id ending in `id`. */
const trace = (seconds: number, tick: number, id: number): SpanBatch => withSpanId(spanBatch([seconds], [], tick), id);

/** The last byte of a handed-out span's id, in hex; '-' for none. */
const named = (span: PooledSpan | undefined) => (span ? span.spans.spanId[2 * span.s + 1]!.toString(16) : '-');

describe('SpanPool', () => {
  // a0: 990 to 997.9 ms (wake 990); b1: 997.5 to 997.7 ms, ending within its trace's wake (998 ms), so for a record
  // from then on. In the wake of 1 000 ms a record ticks at 999.5 ms (stamped 999 ms) and c2's trace at 999.8 ms, in
  // either order. The trace steps the pool to 999 ms, ending a0 and b1 in one step, in the order of their ends; the
  // record asking first must take the same step, not one to 998 ms (a0 alone) and then 999 ms (b1, then the newest).
  for (const traceFirst of [true, false]) {
    const order = traceFirst ? 'the trace' : 'the record';
    const pool = (asked: SpanAsk, take: (pool: SpanPool) => PooledSpan | undefined) => {
      const spans = new SpanPool(() => true, asked);
      spans.add(trace(0.0079, 990, 0xa0));
      spans.add(trace(0.0002, 997.5, 0xb1));
      const later = trace(1, 999.8, 0xc2);
      if (traceFirst) spans.add(later);
      const got = take(spans);
      if (!traceFirst) spans.add(later);
      return named(got);
    };

    it(`ends spans in one order for a record ticking within a millisecond, whichever comes first in its wake (here ${order})`, () => {
      expect(pool('ended', (spans) => spans.take(999, 999.5))).to.equal('a0');
      expect(pool('running', (spans) => spans.takeRunning(999, 999.5) ?? spans.takeEndedBefore(999, 999.5))).to.equal(
        'a0',
      );
    });
  }

  /** A pool fed spans starting at 0 in batches of these durations (seconds), and which batch and span it names. */
  const fed = (asked: SpanAsk, durations: readonly (readonly number[])[]) => {
    const pool = new SpanPool(() => true, asked);
    const batches = durations.map((seconds) => spanBatch(seconds));
    for (const batch of batches) pool.add(batch);
    const which = (span: PooledSpan | undefined) =>
      span ? `batch ${batches.findIndex((batch) => batch.spans === span.spans)} span ${span.s}` : '-';
    return { pool, which };
  };

  it('ends spans ending at one time in the order they came, however the heap holds them: the last to come is the newest', () => {
    // Spans 1 of both batches end at 700 ms.
    const { pool, which } = fed('ended', [
      [0.6, 0.7],
      [0.6, 0.7],
    ]);
    expect(which(pool.take(1000, 1000))).to.equal('batch 1 span 1');
    expect(which(pool.take(1000, 1000))).to.equal('batch 0 span 1');
  });

  it('of running spans starting and ending at one time, names the first to come first', () => {
    // At 550 ms batch 1's span 0 has ended; span 0 of batch 0 and span 1 of batch 1 run from 0 to 600 ms.
    const { pool, which } = fed('running', [
      [0.6, 0.7],
      [0.5, 0.6],
    ]);
    expect(which(pool.takeRunning(550, 550))).to.equal('batch 0 span 0');
    expect(which(pool.takeRunning(550, 550))).to.equal('batch 1 span 1');
  });

  it('holds a record ticking within a millisecond to its stamp: it names spans of traces emitted before that millisecond, started before it', () => {
    // A record at 999.2 ms, stamped 999 ms, emitted in the wake of 1 000 ms (docs/correlation.md); a span runs 5 ms.
    const named = (tick: number, start = tick) => {
      const pool = new SpanPool(() => true, 'running');
      const batch = spanBatch([0.005], [], tick);
      batch.spans.start[0] = start * 1e6;
      batch.spans.end[0] = (start + 5) * 1e6;
      pool.add(batch);
      return pool.takeRunning(999, 999.2) !== undefined;
    };
    expect(named(998)).to.equal(true);
    expect(named(998.7), "a trace emitted in the wake of the record's stamp").to.equal(false);
    expect(named(990, 998.9)).to.equal(true);
    expect(named(990, 999.1), 'a span started within its millisecond').to.equal(false);
  });
});
