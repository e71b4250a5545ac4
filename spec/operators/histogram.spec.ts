import { expect } from 'chai';
import fc from 'fast-check';
import { map, of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { bursts } from '../../operators/bursts.js';
import { gaps } from '../../operators/gaps.js';
import { labels } from '../../operators/labels.js';
import { observe } from '../../operators/observe.js';
import { histogram } from '../../operators/histogram.js';
import { collect, sampleRow, virtualTime } from '../support/marbles.js';

describe('histogram', () => {
  it('writes cumulative buckets, +Inf, _sum and _count per tick, cumulative since start', () => {
    const out = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 200 }),
        // Two observations a tick: [0.2, 3] on tick 0, [0.7, NaN] on tick 1.
        observe((i) => [0.2, 3, 0.7, NaN][i]!, 2),
        labels(),
        histogram([1]),
      ),
      sampleRow,
    );
    // Tick 1 observes [0.7, NaN]: NaN lands in +Inf like any value above every bound.
    expect(out.slice(0, 4)).to.deep.equal(['_bucket{le="1"} 1', '_bucket{le="+Inf"} 2', '_sum{} 3.2', '_count{} 2']);
    expect(out.slice(4, 6)).to.deep.equal(['_bucket{le="1"} 2', '_bucket{le="+Inf"} 4']);
  });

  it('keeps one cumulative state per label set and counts only ticks outside gaps', () => {
    const out = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        observe(() => 0.5, 10),
        gaps({ every: 1000, for: 400 }),
        labels({ dynamic: [{ key: 'pod', cardinality: 2 }] }),
        histogram([1]),
      ),
      (b, i) => (b.series[i]!.suffix === '_count' ? `${b.series[i]!.labels.pod} ${b.value[i]}` : undefined),
    ).filter(Boolean);
    // Six ticks survive the gap [600, 1000): pods alternate, each gaining 10 observations a tick.
    expect(out).to.deep.equal(['pod_0 10', 'pod_1 10', 'pod_0 20', 'pod_1 20', 'pod_0 30', 'pod_1 30']);
  });

  it('keeps the state of a label set whose series come as a new object every tick (past interning)', () => {
    const out = collect(
      of(RateSchedule.constant(1000)).pipe(
        ticks({ duration: 6 }),
        observe(() => 0.5, 1),
        // 70,000 possible label sets, past interning: each tick carries a transient series.
        labels({
          dynamic: [
            { key: 'pod', cardinality: 70_000 },
            { key: 'dc', values: ['east', 'west'] },
          ],
        }),
        map((b) => ({
          ...b,
          series: b.series.map((s) => ({ ...s, labels: { dc: s.labels.dc! }, key: `dc="${s.labels.dc}"` })),
        })),
        histogram([1]),
      ),
      (b, i) => (b.series[i]!.suffix === '_count' ? `${b.series[i]!.labels.dc} ${b.value[i]}` : undefined),
    ).filter(Boolean);
    expect(out).to.deep.equal(['east 1', 'west 1', 'east 2', 'west 2', 'east 3', 'west 3']);
  });

  it('emits each tick as one event of bucket, sum and count rows at the tick frame', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        bursts({ every: 40, for: 20, multiplier: 2 }),
        ticks({ duration: 40 }),
        observe(() => 1, 1),
        labels(),
        histogram([0.5, 2]),
        map((b) => `${b.events}/${b.size}`),
      );
      // 200/s in [0, 20): ticks at 0, 5, 10, 15; 100/s after: 20, 30. Each is one event of 5 rows.
      expectObservable(source).toBe('a 4ms a 4ms a 4ms a 4ms a 9ms a 9ms |', { a: '1/5' });
    });
  });

  it('holds its invariants for any observations and buckets', () => {
    const bucketsArb = fc
      .uniqueArray(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 1, maxLength: 6 })
      .map((b) => b.sort((x, y) => x - y));
    fc.assert(
      fc.property(
        bucketsArb,
        fc.array(fc.double({ min: -200, max: 200, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 5 }),
        (buckets, pool, perTick) => {
          const rowsPerTick = buckets.length + 3;
          const values = collect(
            of(RateSchedule.constant(10)).pipe(
              ticks({ duration: 500 }),
              observe((i) => pool[i % pool.length]!, perTick),
              labels(),
              histogram(buckets),
            ),
            (b, i) => b.value[i]!,
          );
          let previous: number[] | undefined;
          for (let t = 0; t * rowsPerTick < values.length; t++) {
            const tick = values.slice(t * rowsPerTick, (t + 1) * rowsPerTick);
            const counts = tick.slice(0, buckets.length + 1);
            const count = tick[rowsPerTick - 1]!;
            expect(counts.at(-1), '+Inf equals _count').to.equal(count);
            expect(count, '_count grows by observations_per_tick').to.equal((t + 1) * perTick);
            for (let b = 1; b < counts.length; b++) expect(counts[b]!, 'monotone in le').to.be.at.least(counts[b - 1]!);
            if (previous)
              tick.forEach(
                (v, r) => r !== rowsPerTick - 2 && expect(v, 'never decreases').to.be.at.least(previous![r]!),
              );
            previous = tick;
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
