import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { gaps } from '../../operators/gaps.js';
import {
  COUNTED_LABEL_SETS,
  labels,
  labelSetCount,
  rotationPeriod,
  type LabelOptions,
} from '../../operators/labels.js';
import fc from 'fast-check';
import type { Labelled, TickBatch } from '../../operators/model/batch.js';
import { holeMarker, seriesOf } from '../../operators/model/series.js';
import { SplitMix64 } from '../../lib/random.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

const run = (options: LabelOptions, rate = 10, duration = 1000) =>
  collect(of(RateSchedule.constant(rate)).pipe(ticks({ duration }), labels(options)), (b, i) => b.series[i]!);

describe('labels', () => {
  it('puts static labels on every event, sorted, one shared series', () => {
    const series = run({ static: { zone: 'b', app: 'api' } }, 10, 300);
    expect(series.map((s) => s.key)).to.deep.equal(Array(3).fill('app="api",zone="b"'));
    expect(new Set(series).size).to.equal(1);
  });

  it('rotates dynamic labels by tick, independently, counter and list forms', () => {
    const series = run(
      {
        dynamic: [
          { key: 'pod', cardinality: 3 },
          { key: 'dc', values: ['east', 'west'] },
        ],
      },
      10,
      600,
    );
    expect(series.map((s) => s.labels)).to.deep.equal([
      { dc: 'east', pod: 'pod_0' },
      { dc: 'west', pod: 'pod_1' },
      { dc: 'east', pod: 'pod_2' },
      { dc: 'west', pod: 'pod_0' },
      { dc: 'east', pod: 'pod_1' },
      { dc: 'west', pod: 'pod_2' },
    ]);
  });

  it('interns series: equal label sets are one object', () => {
    const series = run({ dynamic: [{ key: 'pod', cardinality: 2, prefix: 'p-' }] }, 10, 600);
    expect(series[0]).to.equal(series[2]);
    expect(series[0]).to.not.equal(series[1]);
    expect(series[1]!.labels).to.deep.equal({ pod: 'p-1' });
  });

  it('past 65,536 possible label sets builds a transient series per tick, with the same labels, and keeps none', () => {
    const wide = { static: { env: 'ci' }, dynamic: [{ key: 'pod', cardinality: 70_000 }] };
    const series = run(wide, 1000, 3);
    expect(series.map((s) => s.key)).to.deep.equal([
      'env="ci",pod="pod_0"',
      'env="ci",pod="pod_1"',
      'env="ci",pod="pod_2"',
    ]);
    expect(series.every((s) => s.transient)).to.equal(true);
    // Interned below the bound: no series is transient, equal label sets are one object.
    const narrow = run({ static: { env: 'ci' }, dynamic: [{ key: 'pod', cardinality: 60_000 }] }, 1000, 3);
    expect(narrow.some((s) => s.transient)).to.equal(false);
  });

  it('past interning gives each tick its shape with the counters filled in, which reads as the whole label set', () => {
    const spike = {
      label: 'user',
      every: 4,
      for: 2,
      cardinality: 5,
      strategy: 'random' as const,
      prefix: 'u',
      seed: 3,
    };
    const options = {
      static: { env: 'c"i', pod: 'fixed' },
      dynamic: [
        { key: 'pod', cardinality: 70_000 },
        { key: 'dc', values: ['east', 'west'] },
      ],
      spikes: [spike],
    };
    const series = run(options, 1000, 8);
    const user = new SplitMix64(3);
    expect(series.map((s) => s.labels)).to.deep.equal(
      series.map((_, i) => ({
        env: 'c"i',
        pod: `pod_${i}`,
        dc: i % 2 ? 'west' : 'east',
        ...(i % 4 < 2 && { user: `u${user.hex(i % 5)}` }),
      })),
    );
    expect(series.map((s) => s.key)).to.deep.equal(series.map((s) => seriesOf(s.labels).key));
    // One shape per combination of the list label's value and the spike's presence.
    expect(series.every((s) => s.transient && s.shape)).to.equal(true);
    expect(new Set(series.map((s) => s.shape)).size).to.equal(4);
    expect(series[0]!.shape).to.equal(series[4]!.shape);
    expect(series[0]!.shape!.marked.key).to.equal(
      `dc="east",env="c\\"i",pod="pod_${holeMarker(0)}",user="u${holeMarker(2)}"`,
    );
  });

  it('does not shape label sets whose text holds a hole marker: they are built whole, still right', () => {
    const series = run(
      { static: { note: `x${holeMarker(0)}` }, dynamic: [{ key: 'pod', cardinality: 70_000 }] },
      1000,
      2,
    );
    expect(series.map((s) => s.shape)).to.deep.equal([undefined, undefined]);
    expect(series.map((s) => s.labels)).to.deep.equal(
      [0, 1].map((i) => ({ note: `x${holeMarker(0)}`, pod: `pod_${i}` })),
    );
  });

  it('lets a dynamic value win over a static label with the same key', () => {
    const series = run({ static: { pod: 'fixed', env: 'ci' }, dynamic: [{ key: 'pod', values: ['x'] }] }, 10, 100);
    expect(series[0]!.labels).to.deep.equal({ env: 'ci', pod: 'x' });
  });

  it('injects a spike label only in the head of its window, cycling its values', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 80 }),
        labels({ static: { a: '1' }, spikes: [{ label: 'user', every: 40, for: 20, cardinality: 3 }] }),
        perTick((b: Labelled<TickBatch>, i) => b.series[i]!.key),
      );
      expectObservable(source).toBe('a 9ms b 9ms c 9ms c 9ms d 9ms e 9ms c 9ms c 9ms |', {
        a: 'a="1",user="user_0"',
        b: 'a="1",user="user_1"',
        c: 'a="1"',
        d: 'a="1",user="user_1"',
        e: 'a="1",user="user_2"',
      });
    });
  });

  it('random spikes draw exactly `cardinality` distinct hex values, reproducibly', () => {
    const spike = {
      label: 'id',
      every: 10_000,
      for: 5_000,
      cardinality: 50,
      strategy: 'random' as const,
      prefix: 'u',
      seed: 9,
    };
    const values = run({ spikes: [spike] }, 100, 5000).map((s) => s.labels.id!);
    expect(new Set(values).size).to.equal(50);
    for (const v of values) expect(v).to.match(/^u[0-9a-f]{16}$/);
    expect(run({ spikes: [spike] }, 100, 5000).map((s) => s.labels.id)).to.deep.equal(values);
    expect(run({ spikes: [{ ...spike, seed: 10 }] }, 100, 100).map((s) => s.labels.id)).to.not.deep.equal(
      values.slice(0, 10),
    );
  });

  it('a gap overlapping a spike suppresses all output', () => {
    const keys = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        gaps({ every: 1000, for: 500 }),
        labels({ spikes: [{ label: 's', every: 1000, for: 800, cardinality: 100 }] }),
      ),
      (b, i) => b.series[i]!.key,
    );
    expect(keys).to.deep.equal(['s="s_0"', 's="s_1"', 's="s_2"', 's="s_3"', 's="s_4"']);
  });

  it('leaves out a label whose value is empty, as Prometheus and VictoriaMetrics read it: {k=""} is the series {}', () => {
    const series = run({ static: { env: '', app: 'api' }, dynamic: [{ key: 'zone', values: ['', 'b'] }] }, 10, 200);
    expect(series.map((s) => s.key)).to.deep.equal(['app="api"', 'app="api",zone="b"']);
    expect(series.map((s) => s.labels)).to.deep.equal([{ app: 'api' }, { app: 'api', zone: 'b' }]);
  });

  it('escapes label values in the series key', () => {
    const series = run({ static: { q: 'say "hi"\\\n' } }, 10, 100);
    expect(series[0]!.key).to.equal('q="say \\"hi\\"\\\\\\n"');
  });
});

describe('labelSetCount', () => {
  const cardinality = fc.integer({ min: 1, max: 6 });
  /** Rotating labels, and spikes whose windows (at 10 ticks a second) let every subset of them hold for `ticks` ticks. */
  const optionsOf = (rotating: number[], spiking: number[], ticks: number): LabelOptions => ({
    dynamic: rotating.map((c, i) => ({ key: `r${i}`, cardinality: c })),
    spikes: spiking.map((c, i) => ({
      label: `s${i}`,
      cardinality: c,
      every: ticks * 200 * 2 ** i,
      for: ticks * 100 * 2 ** i,
    })),
  });

  it('is the number of distinct label sets the labels operator writes when each subset of spikes holds for a whole period', () => {
    fc.assert(
      fc.property(
        fc.array(cardinality, { maxLength: 3 }),
        fc.array(cardinality, { maxLength: 2 }),
        (rotating, spiking) => {
          const period = rotationPeriod([...rotating, ...spiking].map((c) => ({ key: 'k', cardinality: c })));
          const options = optionsOf(rotating, spiking, period);
          const written = run(options, 10, period * 200 * 2 ** spiking.length);
          expect(new Set(written.map((s) => s.key)).size).to.equal(labelSetCount(options));
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it('bounds what is written when windows are shorter than a period', () => {
    fc.assert(
      fc.property(
        fc.array(cardinality, { maxLength: 3 }),
        fc.array(cardinality, { minLength: 1, maxLength: 2 }),
        (rotating, spiking) => {
          const options = optionsOf(rotating, spiking, 1);
          const written = run(options, 10, 20_000);
          expect(new Set(written.map((s) => s.key)).size).to.be.at.most(labelSetCount(options));
        },
      ),
      { numRuns: 25, seed: 7 },
    );
  });

  it('stops counting at COUNTED_LABEL_SETS', () => {
    const huge = Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, cardinality: 1_000_003 + i * 2 }));
    expect(labelSetCount({ dynamic: huge })).to.equal(COUNTED_LABEL_SETS);
  });
});
