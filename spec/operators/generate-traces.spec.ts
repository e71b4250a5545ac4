import { expect } from 'chai';
import { concat, map, of } from 'rxjs';
import { traceGenerator } from '../../lib/generators/trace.js';
import { generateTraces } from '../../operators/generate-traces.js';
import { gaps } from '../../operators/gaps.js';
import type { TickBatch } from '../../operators/model/batch.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import type { SpanBatch, TraceGenerator } from '../../operators/model/span.js';
import { ticks } from '../../operators/ticks.js';
import { perTick, virtualTime } from '../support/marbles.js';
import { spanRows, T0, traceConfig } from '../support/trace-generators.js';

/** A frontend server span calling the cart: three spans a trace. */
const checkout = () =>
  traceGenerator(
    traceConfig({
      seed: 3,
      root: {
        service: 'frontend',
        operation: 'GET /checkout',
        kind: 'server',
        calls: [{ service: 'cart', operation: 'GET /cart', kind: 'client', duration: '20ms' }],
      },
    }),
  );

/** Ticks `indexes`, 100 ms apart. */
function tickBatch(...indexes: number[]): TickBatch {
  const index = Float64Array.from(indexes);
  return { size: index.length, anchor: T0, index, offset: index.map((n) => n * 100) };
}

/** A batch's traces as `tick:services` (the services of its spans in order), one per kept tick. */
const tracesOf = (batch: SpanBatch) =>
  Array.from({ length: batch.size }, (_, i) => {
    const first = batch.firstSpan[i]!;
    const services = Array.from(
      { length: batch.spanCount[i]! },
      (_, k) => batch.spans.nodes[batch.spans.node[first + k]!]!.service,
    );
    return `${batch.index[i]}:${services.join(',')}`;
  }).join(' ');

describe('generateTraces', () => {
  it('gives every tick its trace, root first, and keeps the ticks’ columns', () => {
    virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a--b|', { a: tickBatch(0, 1), b: tickBatch(2) });
      expectObservable(source.pipe(generateTraces(checkout()), map(tracesOf))).toBe('-x--y|', {
        x: '0:frontend,frontend,cart 1:frontend,frontend,cart',
        y: '2:frontend,frontend,cart',
      });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('carries traces through gaps on the scheduler’s time: a dropped tick drops its whole trace', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 60 }),
        generateTraces(checkout()),
        gaps({ every: 30, for: 10 }),
        perTick((batch: SpanBatch, i) => {
          const root = batch.firstSpan[i]!;
          return `${batch.index[i]} ${batch.spanCount[i]} ${batch.spans.parent[root]}`;
        }),
      );
      expectObservable(source).toBe('a 9ms b 19ms c 9ms d 19ms |', {
        a: '0 3 -1',
        b: '1 3 -1',
        c: '3 3 -1',
        d: '4 3 -1',
      });
    });
  });

  it('writes each subscription’s spans afresh: a chain subscribed again makes the same traces', () => {
    const idsOf = (batch: SpanBatch) =>
      spanRows(batch)
        .map((row) => row.spanId)
        .join(',');
    const operator = generateTraces(checkout());
    const once: string[] = [];
    of(tickBatch(0), tickBatch(1, 2))
      .pipe(operator, map(idsOf))
      .subscribe((ids) => once.push(ids));
    virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b|', { a: tickBatch(0), b: tickBatch(1, 2) });
      const chain = source.pipe(operator, map(idsOf));
      expectObservable(concat(chain, chain)).toBe('-x-y-x-y|', { x: once[0], y: once[1] });
      expectSubscriptions(source.subscriptions).toBe(['^---!', '----^---!']);
    });
  });

  it('writes ids of their own for a run that starts at another instant, and only the ids differ', () => {
    const rowsAt = (anchor: number) => {
      const rows: ReturnType<typeof spanRows> = [];
      of({ ...tickBatch(0, 1, 2, 3), anchor })
        .pipe(generateTraces(checkout()))
        .subscribe((batch) => rows.push(...spanRows(batch)));
      return rows;
    };
    const [first, again, later] = [rowsAt(T0), rowsAt(T0), rowsAt(T0 + 1)];
    // The same start instant (a replay, a backfill with an absolute start_time): the same spans, ids included.
    expect(again).to.deep.equal(first);
    // Another (a second run starting now): no trace or span id in common, the rest as before.
    const ids = (rows: typeof first) => new Set(rows.flatMap((row) => [row.traceId, row.spanId]));
    expect([...ids(later)].filter((id) => ids(first).has(id))).to.deep.equal([]);
    const withoutIds = (rows: typeof first) => rows.map(({ traceId: _t, spanId: _s, parentId: _p, ...rest }) => rest);
    expect(withoutIds(later)).to.deep.equal(withoutIds(first));
  });

  it('keeps earlier batches intact while later ones are written (a sink may still hold them)', () => {
    const batches: SpanBatch[] = [];
    const seen: ReturnType<typeof spanRows>[] = [];
    of(tickBatch(0), tickBatch(1, 2, 3, 4, 5, 6, 7, 8, 9), tickBatch(10))
      .pipe(generateTraces(checkout()))
      .subscribe((batch) => {
        batches.push(batch);
        seen.push(spanRows(batch));
      });
    expect(batches.map(spanRows)).to.deep.equal(seen);
    expect(seen.map((rows) => rows.length)).to.deep.equal([3, 27, 3]);
  });

  it('routes a throwing generator into the stream as an error', () => {
    const failing: TraceGenerator = {
      nodes: [],
      trace: () => {
        throw new Error('broken tree');
      },
    };
    virtualTime().run(({ cold, expectObservable }) => {
      const source = cold('-a-b|', { a: tickBatch(0), b: tickBatch(1) });
      expectObservable(source.pipe(generateTraces(failing))).toBe('-#', undefined, new Error('broken tree'));
    });
  });
});
