import { expect } from 'chai';
import { entryOf, entryProblems, histogram, load, logs, metric, spike, summary } from '../support/scenarios.js';

describe('labels', () => {
  it('keeps static labels, default {}', () => {
    expect(entryOf(metric()).labels).to.deep.equal({});
    expect(entryOf(metric({ labels: { host: 'a', _x: '' } })).labels).to.deep.equal({ host: 'a', _x: '' });
  });

  it('requires label keys matching [a-zA-Z_][a-zA-Z0-9_]*', () => {
    expect(entryProblems(metric({ labels: { 'bad-key': 'x', 'a:b': 'y', '1a': 'z' } }))).to.deep.equal([
      'scenarios[0] (cpu): labels["bad-key"]: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-key"',
      'scenarios[0] (cpu): labels["a:b"]: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "a:b"',
      'scenarios[0] (cpu): labels["1a"]: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "1a"',
    ]);
  });

  it('refuses label keys beginning with __, which Prometheus reserves, static and rotating alike', () => {
    const reserved = (key: string) =>
      `expected a label key not beginning with __ (Prometheus reserves those; __name__ is the metric name, the entry's name), got "${key}"`;
    expect(
      entryProblems(
        metric({ labels: { __name__: 'x', _ok: 'y' }, dynamic_labels: [{ key: '__pod', cardinality: 2 }] }),
      ),
    ).to.deep.equal([
      `scenarios[0] (cpu): labels.__name__: ${reserved('__name__')}`,
      `scenarios[0] (cpu): dynamic_labels[0].key: ${reserved('__pod')}`,
    ]);
  });

  it("refuses a histogram's le and a summary's quantile as labels, static, rotating and spiking", () => {
    const own = (signal: string, samples: string) =>
      `not allowed on a ${signal} entry (its ${samples}): give the label another name`;
    const le = own('histogram', 'bucket samples carry le, their bound');
    expect(
      entryProblems(
        histogram({
          labels: { le: 'x', quantile: 'y' },
          dynamic_labels: [{ key: 'le', values: ['a'] }],
          cardinality_spikes: [spike({ label: 'le' })],
        }),
      ),
    ).to.deep.equal([
      `scenarios[0] (latency): labels.le: ${le}`,
      `scenarios[0] (latency): dynamic_labels[0].key: ${le}`,
      `scenarios[0] (latency): cardinality_spikes[0].label: ${le}`,
    ]);
    expect(entryProblems(summary({ labels: { quantile: 'x', le: 'y' } }))).to.deep.equal([
      `scenarios[0] (latency): labels.quantile: ${own('summary', 'quantile samples carry quantile')}`,
    ]);
    // Other signals write neither: a gauge or a counter may have them.
    expect(entryOf(metric({ labels: { le: 'x', quantile: 'y' } })).labels).to.deep.equal({ le: 'x', quantile: 'y' });
  });

  it('refuses a label or a field_key named time with the influx_lp encoder, which InfluxDB refuses, and takes it with others', () => {
    const refused = 'InfluxDB refuses a point with a tag or field named time';
    const time = `not allowed with the influx_lp encoder (${refused}): give the label another name`;
    const encoder = { type: 'influx_lp' };
    expect(
      entryProblems(
        metric({
          labels: { time: 'x' },
          cardinality_spikes: [spike({ label: 'time' })],
          encoder,
        }),
      ),
    ).to.deep.equal([
      `scenarios[0] (cpu): labels.time: ${time}`,
      `scenarios[0] (cpu): cardinality_spikes[0].label: ${time}`,
    ]);
    expect(entryProblems(histogram({ dynamic_labels: [{ key: 'time', values: ['a'] }], encoder }))).to.deep.equal([
      `scenarios[0] (latency): dynamic_labels[0].key: ${time}`,
    ]);
    expect(entryProblems(metric({ encoder: { ...encoder, field_key: 'time' } }))).to.deep.equal([
      `scenarios[0] (cpu): encoder.field_key: expected a non-empty string other than time (${refused}), got "time"`,
    ]);
    expect(entryOf(metric({ labels: { time: 'x' } })).labels).to.deep.equal({ time: 'x' });
  });

  it('takes a reserved label of an empty value, which is no label (--label time= takes it off)', () => {
    const encoder = { type: 'influx_lp' };
    const none = { key: 'time', values: [''] };
    expect(entryOf(metric({ labels: { time: '', job: 'a' }, dynamic_labels: [none], encoder })).labels).to.deep.equal({
      time: '',
      job: 'a',
    });
    expect(entryOf(histogram({ labels: { le: '' }, dynamic_labels: [{ ...none, key: 'le' }] })).labels).to.deep.equal({
      le: '',
    });
    // A list that can hold a value writes the label on those events.
    expect(entryProblems(metric({ dynamic_labels: [{ key: 'time', values: ['', 'a'] }], encoder }))).to.have.length(1);
  });

  it('takes YAML numbers and booleans as their text (status: 200)', () => {
    const file = load(`
version: 2
kind: runnable
defaults: { rate: 1, labels: { canary: false } }
scenarios:
  - { name: cpu, signal_type: metrics, generator: { type: constant, value: 1 }, labels: { status: 200, ratio: 0.25, big: 1e21, on: true } }
  - { name: up, signal_type: metrics, generator: { type: constant, value: 1 }, dynamic_labels: [{ key: code, values: [200, 404, true] }] }
`);
    expect(file.scenarios[0]!.labels).to.deep.equal({
      canary: 'false',
      status: '200',
      ratio: '0.25',
      big: '1e+21',
      on: 'true',
    });
    expect(file.scenarios[1]!.dynamic_labels).to.deep.equal([
      { key: 'code', form: 'list', values: ['200', '404', 'true'] },
    ]);
  });

  it('refuses other values: null, lists, mappings', () => {
    expect(entryProblems(metric({ labels: { a: null, b: [1], c: { d: 1 } } }))).to.deep.equal([
      'scenarios[0] (cpu): labels.a: invalid type: expected a string, a number or a boolean, got null',
      'scenarios[0] (cpu): labels.b: invalid type: expected a string, a number or a boolean, got a list',
      'scenarios[0] (cpu): labels.c: invalid type: expected a string, a number or a boolean, got a mapping',
    ]);
  });
});

describe('dynamic_labels', () => {
  it('default to an empty list', () => expect(entryOf(metric()).dynamic_labels).to.deep.equal([]));

  it('counter form: cardinality, prefix defaults to <key>_', () => {
    expect(entryOf(metric({ dynamic_labels: [{ key: 'pod', cardinality: 3 }] })).dynamic_labels).to.deep.equal([
      { key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 3 },
    ]);
    expect(
      entryOf(metric({ dynamic_labels: [{ key: 'pod', cardinality: 3, prefix: 'web-' }] })).dynamic_labels,
    ).to.deep.equal([{ key: 'pod', form: 'counter', prefix: 'web-', cardinality: 3 }]);
  });

  it('list form: values', () => {
    expect(entryOf(logs({ dynamic_labels: [{ key: 'region', values: ['eu', 'us'] }] })).dynamic_labels).to.deep.equal([
      { key: 'region', form: 'list', values: ['eu', 'us'] },
    ]);
  });

  it('requires exactly one form', () => {
    expect(entryProblems(metric({ dynamic_labels: [{ key: 'pod', cardinality: 2, values: ['a'] }] }))).to.deep.equal([
      'scenarios[0] (cpu): dynamic_labels[0]: expected either cardinality (counter form) or values (list form), not both',
    ]);
    expect(entryProblems(metric({ dynamic_labels: [{ key: 'pod' }] }))).to.deep.equal([
      'scenarios[0] (cpu): dynamic_labels[0]: expected cardinality (counter form) or values (list form)',
    ]);
    expect(entryProblems(metric({ dynamic_labels: [{ key: 'pod', values: ['a'], prefix: 'p_' }] }))).to.deep.equal([
      'scenarios[0] (cpu): dynamic_labels[0].prefix: only allowed with cardinality (the counter form); the list form uses its values as written',
    ]);
  });

  it('checks key, cardinality and values', () => {
    expect(
      entryProblems(
        metric({
          dynamic_labels: [
            { key: 'bad-key', cardinality: 1 },
            { key: 'a', cardinality: 0 },
            { key: 'b', cardinality: 1.5 },
            { key: 'c', values: [] },
          ],
        }),
      ),
    ).to.deep.equal([
      'scenarios[0] (cpu): dynamic_labels[0].key: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-key"',
      'scenarios[0] (cpu): dynamic_labels[1].cardinality: expected an integer greater than 0, got 0',
      'scenarios[0] (cpu): dynamic_labels[2].cardinality: expected an integer greater than 0, got 1.5',
      'scenarios[0] (cpu): dynamic_labels[3].values: expected a non-empty list, got an empty list',
    ]);
  });

  it('rejects two dynamic labels with the same key', () => {
    expect(
      entryProblems(
        metric({
          dynamic_labels: [
            { key: 'pod', cardinality: 1 },
            { key: 'pod', values: ['x'] },
          ],
        }),
      ),
    ).to.deep.equal(['scenarios[0] (cpu): dynamic_labels[1].key: duplicate key "pod" (also dynamic_labels[0])']);
  });
});

describe('gaps', () => {
  it('reads every and for as milliseconds', () => {
    expect(entryOf(metric({ gaps: { every: '1m', for: '15s' } })).gaps).to.deep.equal({ every: 60_000, for: 15_000 });
  });

  it('needs for shorter than every', () => {
    for (const span of ['2m', '1m']) {
      expect(entryProblems(metric({ gaps: { every: '1m', for: span } }))).to.deep.equal([
        `scenarios[0] (cpu): gaps.for: expected a duration shorter than every ("1m"), got "${span}"`,
      ]);
    }
    // Shorter as written, equal once counted in microseconds: the message says why.
    expect(entryProblems(metric({ gaps: { every: '0.001ms', for: '0.0005ms' } }))).to.deep.equal([
      'scenarios[0] (cpu): gaps.for: expected a duration shorter than every ("0.001ms"), got "0.0005ms" (both 0.001ms once counted in whole microseconds)',
    ]);
    // Equal as written, in other units: nothing was rounded, so no word of microseconds.
    for (const [every, span] of [
      ['1s', '1000ms'],
      ['1.1s', '1100ms'],
      ['0.001s', '1ms'],
      ['1h', '60m'],
    ]) {
      expect(entryProblems(metric({ gaps: { every, for: span } }))).to.deep.equal([
        `scenarios[0] (cpu): gaps.for: expected a duration shorter than every ("${every}"), got "${span}"`,
      ]);
    }
  });

  it('needs both fields', () => {
    expect(entryProblems(metric({ gaps: { every: '1m' } }))).to.deep.equal([
      'scenarios[0] (cpu): gaps.for: missing required field',
    ]);
    expect(entryProblems(metric({ gaps: { for: '1s' } }))).to.deep.equal([
      'scenarios[0] (cpu): gaps.every: missing required field',
    ]);
  });
});

describe("gap_windows (the reference tool's one-shot silences)", () => {
  it('reads a list of {at, for} as milliseconds; at may be 0s, an empty list is none', () => {
    const windows = [
      { at: '4m', for: '7m' },
      { at: '0s', for: '1.5s' },
    ];
    expect(entryOf(metric({ gap_windows: windows })).gap_windows).to.deep.equal([
      { at: 240_000, for: 420_000 },
      { at: 0, for: 1500 },
    ]);
    expect(entryOf(metric({ gap_windows: [] }))).not.to.have.property('gap_windows');
  });

  it('refuses a window of no length, a missing field, an unknown one and too many windows, naming each', () => {
    expect(
      entryProblems(
        metric({ gap_windows: [{ at: '1s', for: '0s' }, { at: '1s' }, { at: '1s', for: '1s', every: '1m' }] }),
      ),
    ).to.deep.equal([
      'scenarios[0] (cpu): gap_windows[0].for: expected a positive, finite duration, got "0s"',
      'scenarios[0] (cpu): gap_windows[1].for: missing required field',
      'scenarios[0] (cpu): gap_windows[2].every: unknown field (allowed: at, for)',
    ]);
    const many = Array.from({ length: 10_001 }, () => ({ at: '1s', for: '1s' }));
    expect(entryProblems(metric({ gap_windows: many }))[0]).to.match(/^scenarios\[0\] \(cpu\): gap_windows: .*10000/);
  });
});

describe('bursts', () => {
  it('reads every, for and multiplier', () => {
    expect(entryOf(metric({ bursts: { every: '10s', for: '2s', multiplier: 0.5 } })).bursts).to.deep.equal({
      every: 10_000,
      for: 2_000,
      multiplier: 0.5,
    });
  });

  it('needs all three fields', () => {
    expect(entryProblems(metric({ bursts: { every: '10s', for: '2s' } }))).to.deep.equal([
      'scenarios[0] (cpu): bursts.multiplier: missing required field',
    ]);
    expect(entryProblems(metric({ bursts: { multiplier: 2 } }))).to.deep.equal([
      'scenarios[0] (cpu): bursts.every: missing required field',
      'scenarios[0] (cpu): bursts.for: missing required field',
    ]);
  });

  it('needs a positive multiplier and for shorter than every', () => {
    expect(entryProblems(metric({ bursts: { every: '10s', for: '10s', multiplier: 0 } }))).to.deep.equal([
      'scenarios[0] (cpu): bursts.multiplier: expected a number greater than 0, got 0',
    ]);
    expect(entryProblems(metric({ bursts: { every: '10s', for: '10s', multiplier: 2 } }))).to.deep.equal([
      'scenarios[0] (cpu): bursts.for: expected a duration shorter than every ("10s"), got "10s"',
    ]);
  });
});

describe('cardinality_spikes', () => {
  it('default to an empty list', () => expect(entryOf(metric()).cardinality_spikes).to.deep.equal([]));

  it('default strategy counter, prefix <label>_, seed 0', () => {
    expect(entryOf(metric({ cardinality_spikes: [spike()] })).cardinality_spikes).to.deep.equal([
      { label: 'pod', every: 60_000, for: 10_000, cardinality: 5, strategy: 'counter', prefix: 'pod_', seed: 0 },
    ]);
  });

  it('keeps strategy, prefix and seed', () => {
    expect(
      entryOf(metric({ cardinality_spikes: [spike({ strategy: 'random', prefix: 'p', seed: 42 })] }))
        .cardinality_spikes[0],
    ).to.include({
      strategy: 'random',
      prefix: 'p',
      seed: 42,
    });
  });

  it('checks every field', () => {
    expect(
      entryProblems(
        metric({ cardinality_spikes: [spike({ label: 'a.b', cardinality: 0, strategy: 'hash', for: '2m' })] }),
      ),
    ).to.deep.equal([
      'scenarios[0] (cpu): cardinality_spikes[0].label: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "a.b"',
      'scenarios[0] (cpu): cardinality_spikes[0].cardinality: expected an integer greater than 0, got 0',
      'scenarios[0] (cpu): cardinality_spikes[0].strategy: expected one of counter, random, got "hash"',
    ]);
    expect(entryProblems(metric({ cardinality_spikes: [spike({ for: '2m' })] }))).to.deep.equal([
      'scenarios[0] (cpu): cardinality_spikes[0].for: expected a duration shorter than every ("1m"), got "2m"',
    ]);
    expect(entryProblems(metric({ cardinality_spikes: [{ label: 'pod' }] }))).to.deep.equal([
      'scenarios[0] (cpu): cardinality_spikes[0].every: missing required field',
      'scenarios[0] (cpu): cardinality_spikes[0].for: missing required field',
      'scenarios[0] (cpu): cardinality_spikes[0].cardinality: missing required field',
    ]);
  });
});
