import { expect } from 'chai';
import { entryOf, entryProblems, histogram, logs, metric } from '../support/scenarios.js';
import type { TemplateLogGenerator } from '../../lib/language/types.js';

const generatorOf = (generator: unknown) => entryOf(metric({ generator })).generator;
const generatorProblems = (generator: unknown) => entryProblems(metric({ generator }));

describe('generator', () => {
  it('constant {value}', () =>
    expect(generatorOf({ type: 'constant', value: -2.5 })).to.deep.equal({ type: 'constant', value: -2.5 }));

  it('sine {amplitude, period_secs, offset = 0}', () => {
    expect(generatorOf({ type: 'sine', amplitude: 5, period_secs: 30 })).to.deep.equal({
      type: 'sine',
      amplitude: 5,
      period_secs: 30,
      offset: 0,
    });
    expect(generatorOf({ type: 'sine', amplitude: 5, period_secs: 0.5, offset: 50 })).to.deep.equal({
      type: 'sine',
      amplitude: 5,
      period_secs: 0.5,
      offset: 50,
    });
  });

  it('sine needs a period greater than 0', () => {
    expect(generatorProblems({ type: 'sine', amplitude: 5, period_secs: 0 })).to.deep.equal([
      'scenarios[0] (cpu): generator.period_secs: expected a number greater than 0, got 0',
    ]);
  });

  it('step {start = 0, step_size}', () => {
    expect(generatorOf({ type: 'step', step_size: 2 })).to.deep.equal({ type: 'step', start: 0, step_size: 2 });
    expect(generatorOf({ type: 'step', start: 10, step_size: -1 })).to.deep.equal({
      type: 'step',
      start: 10,
      step_size: -1,
    });
    expect(generatorProblems({ type: 'step', start: 1 })).to.deep.equal([
      'scenarios[0] (cpu): generator.step_size: missing required field',
    ]);
  });

  it('sequence {values, repeat = true}', () => {
    expect(generatorOf({ type: 'sequence', values: [1, 2, 3] })).to.deep.equal({
      type: 'sequence',
      values: [1, 2, 3],
      repeat: true,
    });
    expect(generatorOf({ type: 'sequence', values: [1], repeat: false })).to.deep.equal({
      type: 'sequence',
      values: [1],
      repeat: false,
    });
  });

  it('sequence needs at least one number', () => {
    expect(generatorProblems({ type: 'sequence', values: [] })).to.deep.equal([
      'scenarios[0] (cpu): generator.values: expected a non-empty list, got an empty list',
    ]);
    expect(generatorProblems({ type: 'sequence', values: [1, '2'] })).to.deep.equal([
      'scenarios[0] (cpu): generator.values[1]: invalid type: expected a number, got string "2"',
    ]);
  });

  it('step {max}: wraps back to start; needs step_size > 0 and max > start', () => {
    expect(generatorOf({ type: 'step', start: 1, step_size: 2, max: 9 })).to.deep.equal({
      type: 'step',
      start: 1,
      step_size: 2,
      max: 9,
    });
    expect(generatorProblems({ type: 'step', start: 5, step_size: 1, max: 5 })).to.deep.equal([
      'scenarios[0] (cpu): generator.max: expected a number greater than start (5), got 5',
    ]);
    expect(generatorProblems({ type: 'step', step_size: -1, max: 5 })).to.deep.equal([
      'scenarios[0] (cpu): generator.step_size: expected a number greater than 0 with max (the values climb toward max, then wrap), got -1',
    ]);
    expect(generatorProblems({ type: 'step', step_size: 1e-300, max: 1e300 })).to.deep.equal([
      `scenarios[0] (cpu): generator.step_size: expected at least ${1e300 / Number.MAX_SAFE_INTEGER} with max (at most 2^53 − 1 steps from start to max), got 1e-300`,
    ]);
  });

  it('uniform {min, max, seed = 0}: min less than max', () => {
    expect(generatorOf({ type: 'uniform', min: 1, max: 2 })).to.deep.equal({
      type: 'uniform',
      min: 1,
      max: 2,
      seed: 0,
    });
    expect(generatorOf({ type: 'uniform', min: 1, max: 2, seed: 9 })).to.deep.equal({
      type: 'uniform',
      min: 1,
      max: 2,
      seed: 9,
    });
    expect(generatorProblems({ type: 'uniform', min: 2, max: 2 })).to.deep.equal([
      'scenarios[0] (cpu): generator.max: expected a number greater than min (2), got 2',
    ]);
    expect(generatorProblems({ type: 'uniform', min: 0, max: 1, seed: 0.5 })).to.deep.equal([
      'scenarios[0] (cpu): generator.seed: expected an integer, got 0.5',
    ]);
  });

  it('sawtooth {min, max, period_secs}: min less than max, period bounded like sine', () => {
    expect(generatorOf({ type: 'sawtooth', min: 0, max: 100, period_secs: 60 })).to.deep.equal({
      type: 'sawtooth',
      min: 0,
      max: 100,
      period_secs: 60,
    });
    expect(generatorProblems({ type: 'sawtooth', min: 0, max: 100, period_secs: 1e9 })).to.deep.equal([
      'scenarios[0] (cpu): generator.period_secs: expected at most 31536000, got 1000000000',
    ]);
    expect(generatorProblems({ type: 'sawtooth', min: 5, max: 1, period_secs: 1 })).to.deep.equal([
      'scenarios[0] (cpu): generator.max: expected a number greater than min (5), got 1',
    ]);
  });

  it('spike {baseline, magnitude, duration_secs, interval_secs}: the spike shorter than its interval', () => {
    const spike = { type: 'spike', baseline: 1, magnitude: 9, duration_secs: 5, interval_secs: 60 };
    expect(generatorOf(spike)).to.deep.equal(spike);
    expect(generatorProblems({ ...spike, duration_secs: 60 })).to.deep.equal([
      'scenarios[0] (cpu): generator.duration_secs: expected a number less than interval_secs (60), got 60',
    ]);
    expect(generatorProblems({ ...spike, interval_secs: 0 })).to.deep.equal([
      'scenarios[0] (cpu): generator.interval_secs: expected a number greater than 0, got 0',
    ]);
  });

  it('names the allowed types when type is missing or unknown', () => {
    expect(generatorProblems({ value: 1 })).to.deep.equal([
      'scenarios[0] (cpu): generator.type: missing required field (allowed: constant, sine, step, sequence, uniform, sawtooth, spike, csv_replay, flap, saturation, leak, degradation, steady, spike_event)',
    ]);
    expect(generatorProblems({ type: 'random_walk' })).to.deep.equal([
      'scenarios[0] (cpu): generator.type: expected one of constant, sine, step, sequence, uniform, sawtooth, spike, csv_replay, flap, saturation, leak, degradation, steady, spike_event, got "random_walk"',
    ]);
  });

  it('rejects a field of another generator type', () => {
    expect(generatorProblems({ type: 'constant', value: 1, amplitude: 2 })).to.deep.equal([
      'scenarios[0] (cpu): generator.amplitude: unknown field (allowed: type, value)',
    ]);
  });

  it('rejects the bare type name, showing the mapping form', () => {
    expect(generatorProblems('constant')).to.deep.equal([
      'scenarios[0] (cpu): generator: invalid type: expected a mapping such as {type: constant}, got string "constant"',
    ]);
  });
});

describe('log_generator', () => {
  const logGeneratorOf = (log_generator: unknown) => entryOf(logs({ log_generator })).log_generator;
  const logProblems = (log_generator: unknown) => entryProblems(logs({ log_generator }));

  it('defaults field_pools to {} and seed to 0', () => {
    expect(logGeneratorOf({ type: 'template', templates: [{ message: 'started' }] })).to.deep.equal({
      type: 'template',
      templates: [{ message: 'started' }],
      field_pools: {},
      seed: 0,
    });
  });

  it('keeps pools, per-template pools, severity weights and seed', () => {
    const generator = {
      type: 'template',
      templates: [
        { message: 'login {user} from {ip}', field_pools: { ip: ['10.0.0.1'] } },
        { message: 'logout {user}' },
      ],
      field_pools: { user: ['ann', 'bob'] },
      severity_weights: { info: 8, warn: 1.5, error: 0 },
      seed: 3,
    };
    expect(logGeneratorOf(generator)).to.deep.equal(generator);
  });

  it('accepts placeholders without a pool (they stay literal)', () => {
    const generator = {
      type: 'template',
      templates: [{ message: '{user} did {action}' }],
      field_pools: { user: ['a'] },
    };
    expect(logGeneratorOf(generator)).to.deep.equal({ ...generator, seed: 0 });
  });

  it('requires at least one template and non-empty pools', () => {
    expect(logProblems({ type: 'template', templates: [] })).to.deep.equal([
      'scenarios[0] (app): log_generator.templates: expected a non-empty list, got an empty list',
    ]);
    expect(logProblems({ type: 'template', templates: [{ message: 'x' }], field_pools: { user: [] } })).to.deep.equal([
      'scenarios[0] (app): log_generator.field_pools.user: expected a non-empty list, got an empty list',
    ]);
  });

  it('refuses a pool named __proto__: the records of its template lost its values (syslog stopped the entry)', () => {
    // JSON.parse makes __proto__ an own key, as a YAML file does; an object literal would set the prototype.
    const pools = JSON.parse('{"__proto__": ["v1"]}') as unknown;
    const problem =
      'expected a placeholder name other than __proto__ (a template\'s records cannot carry a field so named), got "__proto__"';
    expect(
      logProblems({ type: 'template', templates: [{ message: 'hi {__proto__}' }], field_pools: pools }),
    ).to.deep.equal([`scenarios[0] (app): log_generator.field_pools.__proto__: ${problem}`]);
    expect(
      logProblems({ type: 'template', templates: [{ message: 'hi {__proto__}', field_pools: pools }] }),
    ).to.deep.equal([`scenarios[0] (app): log_generator.templates[0].field_pools.__proto__: ${problem}`]);
  });

  it('refuses a template whose longest message is past MAX_MESSAGE_CHARS: repeated placeholders made records of gigabytes', () => {
    // 8000 × a 100 000-character value: one record of 800 million characters stopped the entry with V8's
    // "Invalid string length"; 5000 × wrote a record of 477 MiB from a file of 115 KB.
    const value = 'x'.repeat(100_000);
    expect(
      logProblems({ type: 'template', templates: [{ message: '{a}'.repeat(8000) }], field_pools: { a: ['y', value] } }),
    ).to.deep.equal([
      'scenarios[0] (app): log_generator.templates[0].message: makes messages of up to 800000000 characters (each placeholder given its longest value), more than 1048576: use fewer placeholders or shorter values',
    ]);
    // A template's own pool wins over the shared one; a name without a pool stays literal text and counts as written.
    expect(
      logProblems({
        type: 'template',
        templates: [{ message: 'ok' }, { message: '{a}{a}{b}', field_pools: { a: ['x'.repeat(600_000)] } }],
        field_pools: { a: ['y'] },
      }),
    ).to.deep.equal([
      'scenarios[0] (app): log_generator.templates[1].message: makes messages of up to 1200003 characters (each placeholder given its longest value), more than 1048576: use fewer placeholders or shorter values',
    ]);
    const atTheLimit = {
      type: 'template',
      templates: [{ message: '{a}{a}' }],
      field_pools: { a: ['x'.repeat(524_288)] },
    };
    expect(logGeneratorOf(atTheLimit)).to.deep.equal({ ...atTheLimit, seed: 0 });
  });

  it('accepts only known severities with non-negative weights, one of them positive', () => {
    const base = { type: 'template', templates: [{ message: 'x' }] };
    expect(logProblems({ ...base, severity_weights: { critical: 1 } })).to.deep.equal([
      'scenarios[0] (app): log_generator.severity_weights.critical: unknown field (allowed: trace, debug, info, warn, error, fatal)',
    ]);
    expect(logProblems({ ...base, severity_weights: { info: -1 } })).to.deep.equal([
      'scenarios[0] (app): log_generator.severity_weights.info: expected a number greater than or equal to 0, got -1',
    ]);
    expect(logProblems({ ...base, severity_weights: { info: 0 } })).to.deep.equal([
      'scenarios[0] (app): log_generator.severity_weights: expected at least one weight greater than 0',
    ]);
  });

  it("takes the reference tool's replay {file} alone", () => {
    expect(logGeneratorOf({ type: 'replay', file: 'app.log' })).to.deep.equal({ type: 'replay', file: 'app.log' });
    expect(logProblems({ type: 'replay' })).to.deep.equal([
      'scenarios[0] (app): log_generator.file: missing required field',
    ]);
    expect(logProblems({ type: 'replay', file: 'app.log', repeat: false })).to.deep.equal([
      'scenarios[0] (app): log_generator.repeat: unknown field (allowed: type, file)',
    ]);
  });

  it('names the allowed types', () => {
    expect(logProblems({ type: 'tail' })).to.deep.equal([
      'scenarios[0] (app): log_generator.type: expected one of template, csv_replay, replay, got "tail"',
    ]);
  });
});

describe('distribution', () => {
  const distributionOf = (distribution: unknown) => entryOf(histogram({ distribution })).distribution;
  const distributionProblems = (distribution: unknown) => entryProblems(histogram({ distribution }));

  it('exponential {rate > 0}', () => {
    expect(distributionOf({ type: 'exponential', rate: 0.5 })).to.deep.equal({ type: 'exponential', rate: 0.5 });
    expect(distributionProblems({ type: 'exponential', rate: 0 })).to.deep.equal([
      'scenarios[0] (latency): distribution.rate: expected a number greater than 0, got 0',
    ]);
  });

  it('normal {mean, stddev >= 0}', () => {
    expect(distributionOf({ type: 'normal', mean: 0.2, stddev: 0.05 })).to.deep.equal({
      type: 'normal',
      mean: 0.2,
      stddev: 0.05,
    });
    expect(distributionProblems({ type: 'normal', mean: 0.2, stddev: -1 })).to.deep.equal([
      'scenarios[0] (latency): distribution.stddev: expected a number greater than or equal to 0, got -1',
    ]);
    expect(distributionProblems({ type: 'normal', mean: 0.2 })).to.deep.equal([
      'scenarios[0] (latency): distribution.stddev: missing required field',
    ]);
  });

  it('uniform {min < max}', () => {
    expect(distributionOf({ type: 'uniform', min: 1, max: 2 })).to.deep.equal({ type: 'uniform', min: 1, max: 2 });
    expect(distributionProblems({ type: 'uniform', min: 2, max: 2 })).to.deep.equal([
      'scenarios[0] (latency): distribution.max: expected a number greater than min (2), got 2',
    ]);
  });

  it('mean_shift_per_sec on every distribution: a finite number, kept as written, absent by default', () => {
    for (const d of [
      { type: 'exponential', rate: 2 },
      { type: 'normal', mean: 0.2, stddev: 0.05 },
      { type: 'uniform', min: 0, max: 1 },
    ]) {
      expect(distributionOf({ ...d, mean_shift_per_sec: 0.01 })).to.deep.equal({ ...d, mean_shift_per_sec: 0.01 });
    }
    expect(distributionProblems({ type: 'normal', mean: 1, stddev: 1, mean_shift_per_sec: '1' })).to.deep.equal([
      'scenarios[0] (latency): distribution.mean_shift_per_sec: invalid type: expected a number, got string "1"',
    ]);
  });

  it('keeps buckets beside distribution, not inside it', () => {
    expect(distributionProblems({ type: 'exponential', rate: 1, buckets: [1] })).to.deep.equal([
      'scenarios[0] (latency): distribution.buckets: unknown field (allowed: type, rate, mean_shift_per_sec)',
    ]);
  });

  it('names the allowed types', () => {
    expect(distributionProblems({ type: 'pareto' })).to.deep.equal([
      'scenarios[0] (latency): distribution.type: expected one of exponential, normal, uniform, got "pareto"',
    ]);
  });
});

describe('log templates: severity', () => {
  it('a template may carry its own severity', () => {
    const entry = entryOf(
      logs({
        log_generator: {
          type: 'template',
          templates: [{ message: 'charge accepted', severity: 'info' }, { message: 'x' }],
        },
      }),
    );
    expect(entry.log_generator).to.include({ type: 'template' });
    expect((entry.log_generator as TemplateLogGenerator).templates).to.deep.equal([
      { message: 'charge accepted', severity: 'info' },
      { message: 'x' },
    ]);
    expect(
      entryProblems(logs({ log_generator: { type: 'template', templates: [{ message: 'm', severity: 'critical' }] } })),
    ).to.deep.equal([
      'scenarios[0] (app): log_generator.templates[0].severity: expected one of trace, debug, info, warn, error, fatal, got "critical"',
    ]);
  });
});
