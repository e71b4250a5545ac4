import { expect } from 'chai';
import fc from 'fast-check';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { labels, type LabelOptions } from '../../operators/labels.js';
import type { Labelled, TickBatch } from '../../operators/model/batch.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

/** Every event of a run of `options` as `tick index:series key`, in order. */
const events = (options: LabelOptions, rate = 10, duration = 1000) =>
  collect(
    of(RateSchedule.constant(rate)).pipe(ticks({ duration }), labels(options)),
    (b: Labelled<TickBatch>, i) => `${b.index[i]}:${b.series[i]!.key}`,
  );

const shards = (options: LabelOptions, count: number, rate?: number, duration?: number) =>
  Array.from({ length: count }, (_, index) => events({ ...options, shard: { index, count } }, rate, duration));

describe('labels with a shard: each of N shards emits its share of the series', () => {
  it('splits the series of a rotating label evenly: series s goes to shard s mod N', () => {
    const [a, b, c] = shards({ dynamic: [{ key: 'pod', cardinality: 6 }] }, 3, 10, 1200);
    const keys = (share: string[]) => [...new Set(share.map((e) => e.split(':')[1]))].sort();
    expect(keys(a!)).to.deep.equal(['pod="pod_0"', 'pod="pod_3"']);
    expect(keys(b!)).to.deep.equal(['pod="pod_1"', 'pod="pod_4"']);
    expect(keys(c!)).to.deep.equal(['pod="pod_2"', 'pod="pod_5"']);
    // Every event of a series, at its own tick: 12 ticks, 2 series of 6 per shard, 4 events each.
    expect([a!.length, b!.length, c!.length]).to.deep.equal([4, 4, 4]);
  });

  it('keeps each event at its own time, and the label set of a single series on shard 0 only', () => {
    virtualTime().run(({ expectObservable }) => {
      const share = (index: number, options: LabelOptions) =>
        of(RateSchedule.constant(100)).pipe(
          ticks({ duration: 60 }),
          labels({ ...options, shard: { index, count: 2 } }),
          perTick((b: Labelled<TickBatch>, i) => b.series[i]!.labels.pod ?? 'static'),
        );
      expectObservable(share(1, { dynamic: [{ key: 'pod', cardinality: 2 }] })).toBe('10ms a 19ms a 19ms a 9ms |', {
        a: 'pod_1',
      });
      expectObservable(share(0, { static: { pod: 'only' } })).toBe('a 9ms a 9ms a 9ms a 9ms a 9ms a 9ms |', {
        a: 'only',
      });
      expectObservable(share(1, { static: { pod: 'only' } })).toBe('60ms |');
    });
  });

  it('N shards together produce every event of the unsharded run exactly once, whatever the labels', () => {
    const rotating = fc.oneof(
      fc.record({ key: fc.constantFrom('pod', 'dc', 'zone'), cardinality: fc.integer({ min: 1, max: 7 }) }),
      fc.record({
        key: fc.constantFrom('pod', 'dc', 'zone'),
        values: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1 }),
      }),
    );
    const spike = fc.record({
      label: fc.constantFrom('user', 'pod'),
      every: fc.constant(1000),
      for: fc.integer({ min: 100, max: 900 }),
      cardinality: fc.integer({ min: 1, max: 9 }),
    });
    fc.assert(
      fc.property(
        fc.array(rotating, { maxLength: 3 }),
        fc.array(spike, { maxLength: 1 }),
        fc.integer({ min: 1, max: 6 }),
        (dynamic, spikes, count) => {
          const options: LabelOptions = { static: { job: 'svc' }, dynamic, spikes };
          const whole = events(options, 20, 3000);
          const parts = shards(options, count, 20, 3000);
          expect(parts.flat().sort()).to.deep.equal([...whole].sort());
          // A series belongs to one shard only.
          const owners = new Map<string, number>();
          parts.forEach((part, shard) =>
            part.forEach((event) => {
              const key = event.slice(event.indexOf(':') + 1);
              expect(owners.get(key) ?? shard, key).to.equal(shard);
              owners.set(key, shard);
            }),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('past 65,536 possible label sets splits them by a hash of their labels, still each event once', () => {
    const options: LabelOptions = { static: { job: 'svc' }, dynamic: [{ key: 'pod', cardinality: 70_000 }] };
    const whole = events(options, 1000, 300);
    const parts = shards(options, 3, 1000, 300);
    expect(parts.flat().sort()).to.deep.equal([...whole].sort());
    // 300 series over 3 shards: each gets a share, none all of them.
    for (const part of parts) expect(part.length).to.be.within(50, 150);
  });

  it('one shard of one is the whole run', () => {
    const options: LabelOptions = { dynamic: [{ key: 'pod', cardinality: 3 }] };
    expect(events({ ...options, shard: { index: 0, count: 1 } })).to.deep.equal(events(options));
  });
});
