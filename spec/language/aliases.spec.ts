import { expect } from 'chai';
import fc from 'fast-check';
import { valueGenerator } from '../../lib/generators/value.js';
import { loadPack } from '../../lib/config/pack.js';
import { compile } from '../support/plans.js';
import { entryOf, entryProblems, load, metric, problems, v2 } from '../support/scenarios.js';

const aliasOf = (generator: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const { generator: desugared, jitter, jitter_seed } = entryOf(metric({ generator, ...extra }));
  return { generator: desugared, jitter, jitter_seed };
};
const aliasProblems = (generator: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  entryProblems(metric({ generator, ...extra }));

describe('operational aliases desugar into generators before validation', () => {
  it('flap: up for up_duration, down for down_duration, as a spike starting up', () => {
    expect(aliasOf({ type: 'flap', up_duration: '30s', down_duration: '10s' }).generator).to.deep.equal({
      type: 'spike',
      baseline: 0,
      magnitude: 1,
      duration_secs: 30,
      interval_secs: 40,
    });
    expect(
      aliasOf({ type: 'flap', up_duration: '1m', down_duration: '15s', enum: 'oper_status' }).generator,
    ).to.include({ baseline: 2, magnitude: -1 });
    expect(
      aliasOf({ type: 'flap', up_duration: '1s', down_duration: '1s', up_value: 100, down_value: 5 }).generator,
    ).to.include({ baseline: 5, magnitude: 95 });
    const gen = valueGenerator(
      aliasOf({ type: 'flap', up_duration: '3s', down_duration: '2s', up_value: 7, down_value: 3 }).generator!,
    );
    fc.assert(
      // Times on the microsecond grid, where a spike's cycle is reckoned (operators/model/window.ts).
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        (us) => void expect(gen(0, us / 1000)).to.equal(us % 5e6 < 3e6 ? 7 : 3),
      ),
    );
  });

  it('saturation and leak: a sawtooth from baseline to ceiling over the time given', () => {
    const sawtooth = { type: 'sawtooth', min: 20, max: 95, period_secs: 300 };
    expect(aliasOf({ type: 'saturation', baseline: 20, ceiling: 95, time_to_saturate: '5m' }).generator).to.deep.equal(
      sawtooth,
    );
    expect(aliasOf({ type: 'leak', baseline: 20, ceiling: 95, time_to_ceiling: '5m' }).generator).to.deep.equal(
      sawtooth,
    );
  });

  it('degradation: a sawtooth, with noise as the entry jitter', () => {
    expect(
      aliasOf({ type: 'degradation', baseline: 0.1, ceiling: 2, time_to_degrade: '10m', noise: 0.05, noise_seed: 4 }),
    ).to.deep.equal({
      generator: { type: 'sawtooth', min: 0.1, max: 2, period_secs: 600 },
      jitter: 0.05,
      jitter_seed: 4,
    });
    // Noise 1 unless given, as in the reference tool; 0 for none.
    expect(aliasOf({ type: 'degradation', baseline: 0.1, ceiling: 2, time_to_degrade: '10m' })).to.deep.equal({
      generator: { type: 'sawtooth', min: 0.1, max: 2, period_secs: 600 },
      jitter: 1,
      jitter_seed: 0,
    });
    expect(
      aliasOf({ type: 'degradation', baseline: 0.1, ceiling: 2, time_to_degrade: '10m', noise: 0 }).jitter,
    ).to.equal(undefined);
  });

  it('steady: a sine around center, with noise as the entry jitter', () => {
    expect(aliasOf({ type: 'steady', center: 50, amplitude: 10, period: '1m', noise: 2 })).to.deep.equal({
      generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 50 },
      jitter: 2,
      jitter_seed: 0,
    });
  });

  it('spike_event: a spike of spike_height for spike_duration every spike_interval', () => {
    expect(
      aliasOf({ type: 'spike_event', baseline: 1, spike_height: 50, spike_duration: '10s', spike_interval: '2m' })
        .generator,
    ).to.deep.equal({
      type: 'spike',
      baseline: 1,
      magnitude: 50,
      duration_secs: 10,
      interval_secs: 120,
    });
  });

  it("takes the reference tool's default for every field left out", () => {
    const only = (type: string) => aliasOf({ type });
    expect(only('flap').generator).to.deep.equal({
      type: 'spike',
      baseline: 0,
      magnitude: 1,
      duration_secs: 10,
      interval_secs: 15,
    });
    expect(only('saturation').generator).to.deep.equal({ type: 'sawtooth', min: 0, max: 100, period_secs: 300 });
    expect(only('leak').generator).to.deep.equal({ type: 'sawtooth', min: 0, max: 100, period_secs: 600 });
    expect(only('degradation')).to.deep.equal({
      generator: { type: 'sawtooth', min: 0, max: 100, period_secs: 300 },
      jitter: 1,
      jitter_seed: 0,
    });
    expect(only('steady')).to.deep.equal({
      generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 50 },
      jitter: 1,
      jitter_seed: 0,
    });
    expect(only('spike_event').generator).to.deep.equal({
      type: 'spike',
      baseline: 0,
      magnitude: 100,
      duration_secs: 10,
      interval_secs: 30,
    });
    // An entry's own jitter replaces the default noise; noise_seed alone seeds the default noise.
    expect(aliasOf({ type: 'steady' }, { jitter: 3 }).jitter).to.equal(3);
    expect(aliasOf({ type: 'steady', noise_seed: 9 })).to.deep.include({ jitter: 1, jitter_seed: 9 });
  });

  it("takes the reference tool's flap enums: link_state, oper_state, admin_state, neighbor_state", () => {
    const states = (value: string) => {
      const { baseline, magnitude } = aliasOf({ type: 'flap', enum: value }).generator as {
        baseline: number;
        magnitude: number;
      };
      return [baseline + magnitude, baseline];
    };
    expect(['link_state', 'oper_state', 'admin_state', 'neighbor_state'].map(states)).to.deep.equal([
      [1, 0],
      [1, 2],
      [1, 2],
      [6, 1],
    ]);
  });

  it('names the alias own fields in its errors', () => {
    expect(aliasProblems({ type: 'flap', up_duration: 5 })).to.deep.equal([
      'scenarios[0] (cpu): generator.up_duration: invalid type: expected a duration string such as "30s", got number 5',
    ]);
    expect(aliasProblems({ type: 'saturation', baseline: 90, ceiling: 10, time_to_saturate: '1m' })).to.deep.equal([
      'scenarios[0] (cpu): generator.ceiling: expected a number greater than baseline (90), got 10',
    ]);
    expect(
      aliasProblems({ type: 'spike_event', baseline: 0, spike_height: 1, spike_duration: '1m', spike_interval: '1m' }),
    ).to.deep.equal([
      'scenarios[0] (cpu): generator.spike_duration: expected a duration shorter than spike_interval (1m), got 1m',
    ]);
    expect(aliasProblems({ type: 'flap', up_duration: '200 days', down_duration: '200d' })[0]).to.include(
      'generator.up_duration',
    );
    expect(aliasProblems({ type: 'flap', up_duration: '5000h', down_duration: '5000h' })).to.deep.equal([
      'scenarios[0] (cpu): generator.down_duration: expected up_duration + down_duration up to 8760h (365 days), got 10000h',
    ]);
    expect(aliasProblems({ type: 'steady', center: 1, amplitude: 1, period: '1m', noise: -1 })).to.deep.equal([
      'scenarios[0] (cpu): generator.noise: expected a number greater than or equal to 0, got -1',
    ]);
    expect(
      aliasProblems({ type: 'steady', center: 1, amplitude: 1, period: '1m', noise: 1 }, { jitter: 2 }),
    ).to.deep.equal(['scenarios[0] (cpu): generator.noise: not allowed with jitter (noise becomes the entry jitter)']);
    expect(aliasProblems({ type: 'leak', baseline: 1, ceiling: 2, time_to_ceiling: '1m', amplitude: 3 })).to.deep.equal(
      ['scenarios[0] (cpu): generator.amplitude: unknown field (allowed: type, baseline, ceiling, time_to_ceiling)'],
    );
  });

  it('lists the aliases among the allowed types', () => {
    expect(aliasProblems({ type: 'wobble' })).to.deep.equal([
      'scenarios[0] (cpu): generator.type: expected one of constant, sine, step, sequence, uniform, sawtooth, spike, csv_replay, flap, saturation, leak, degradation, steady, spike_event, got "wobble"',
    ]);
  });

  it('desugars an alias in defaults once, for every entry', () => {
    const file = load(
      JSON.stringify({
        version: 2,
        kind: 'runnable',
        defaults: { generator: { type: 'steady', center: 5, amplitude: 1, period: '10s', noise: 0.5 } },
        scenarios: [metric({ generator: undefined }), metric({ name: 'b', generator: undefined })],
      }),
      { format: 'json' },
    );
    for (const entry of file.scenarios)
      expect(entry).to.deep.include({
        generator: { type: 'sine', amplitude: 1, period_secs: 10, offset: 5 },
        jitter: 0.5,
      });
    expect(
      problems(v2([metric({ generator: undefined })], { defaults: { generator: { type: 'leak', baseline: 100 } } })),
    ).to.deep.equal(['defaults: generator.ceiling: expected a number greater than baseline (100), got 100']);
  });

  it("desugars an alias in a pack override too; its noise becomes that metric's jitter", () => {
    const overrides = {
      node_cpu_seconds_total: { generator: { type: 'leak', baseline: 0, ceiling: 1, time_to_ceiling: '1m' } },
      node_load1: {
        generator: { type: 'degradation', baseline: 1, ceiling: 4, time_to_degrade: '10m', noise: 0.2, noise_seed: 7 },
      },
    };
    const plan = compile([{ signal_type: 'metrics', pack: 'node_cpu', rate: 1, overrides }]);
    const byName = new Map(plan.scenarios.map((entry) => [entry.name, entry]));
    expect(byName.get('node_cpu_seconds_total')).to.deep.include({
      generator: { type: 'sawtooth', min: 0, max: 1, period_secs: 60 },
    });
    expect(byName.get('node_cpu_seconds_total')!.jitter).to.equal(undefined);
    expect(byName.get('node_load1')).to.deep.include({
      generator: { type: 'sawtooth', min: 1, max: 4, period_secs: 600 },
      jitter: 0.2,
      jitter_seed: 7,
    });
    expect(byName.get('node_load5')!.jitter).to.equal(undefined);
  });

  it('names the alias field at fault in a pack override', () => {
    const problems = entryProblems({
      signal_type: 'metrics',
      pack: 'node_cpu',
      rate: 1,
      overrides: { node_load1: { generator: { type: 'flap', up_duration: '1m', down_duration: 2 } } },
    });
    expect(problems).to.deep.equal([
      'scenarios[0] (node_cpu): overrides.node_load1.generator.down_duration: invalid type: expected a duration string such as "30s", got number 2',
    ]);
  });

  it("takes an alias in a pack file's metric, as the reference tool's packs have: its noise becomes the metric's jitter", () => {
    const text = JSON.stringify({
      version: 2,
      kind: 'composable',
      name: 'p',
      description: 'd',
      metrics: [
        { name: 'm', generator: { type: 'leak', baseline: 0, ceiling: 1, time_to_ceiling: '1m' } },
        { name: 'p50', generator: { type: 'steady', center: 0.03, amplitude: 0.004, period: '5m', noise: 0.002 } },
      ],
    });
    expect(loadPack(text, { origin: 'p.json' }).metrics).to.deep.equal([
      { name: 'm', generator: { type: 'sawtooth', min: 0, max: 1, period_secs: 60 }, labels: {} },
      {
        name: 'p50',
        generator: { type: 'sine', offset: 0.03, amplitude: 0.004, period_secs: 300 },
        labels: {},
        jitter: 0.002,
      },
    ]);
  });
});
