import { expect } from 'chai';
import type * as t from 'io-ts';
import { histogram, load, logs, metric, problems, v2 } from '../support/scenarios.js';
import { entryFields } from '../../lib/config/entry-fields.js';
import type { ScenarioFile } from '../../lib/config/index.js';

describe('defaults', () => {
  it('fills fields an entry lacks; the entry value wins', () => {
    const file = load(
      v2(
        [
          { signal_type: 'metrics', name: 'a', generator: { type: 'constant', value: 1 } },
          metric({ name: 'b', rate: 9 }),
        ],
        {
          defaults: { rate: 3, duration: '1m', on_sink_error: 'fail' },
        },
      ),
    );
    expect(file.scenarios.map((e) => [e.rate, e.duration, e.on_sink_error])).to.deep.equal([
      [3, 60_000, 'fail'],
      [9, 60_000, 'fail'],
    ]);
  });

  it('merges labels key by key, the entry winning', () => {
    const file = load(
      v2([metric({ labels: { env: 'dev', host: 'a' } })], { defaults: { labels: { env: 'prod', team: 'obs' } } }),
    );
    expect(file.scenarios[0]!.labels).to.deep.equal({ env: 'dev', team: 'obs', host: 'a' });
  });

  it('replaces every other object whole', () => {
    const file = load(
      v2([metric({ sink: { type: 'tcp', address: 'h:1' } })], {
        defaults: { sink: { type: 'tcp', address: 'd:2', retry: { max_attempts: 3 } } },
      }),
    );
    expect(file.scenarios[0]!.sink).to.deep.equal({ type: 'tcp', address: 'h:1' });
  });

  it('may carry signal_type', () => {
    const file = load(
      v2([{ name: 'a', rate: 1, generator: { type: 'constant', value: 1 } }], { defaults: { signal_type: 'metrics' } }),
    );
    expect(file.scenarios[0]!.signal_type).to.equal('metrics');
  });

  it('gives signal-specific fields only to entries of that signal', () => {
    const file = load(
      v2(
        [
          { signal_type: 'metrics', name: 'm', rate: 1 },
          {
            signal_type: 'logs',
            name: 'l',
            rate: 1,
            log_generator: { type: 'template', templates: [{ message: 'x' }] },
          },
          { signal_type: 'histogram', name: 'h', rate: 1 },
        ],
        {
          defaults: {
            generator: { type: 'step', step_size: 1 },
            distribution: { type: 'exponential', rate: 1 },
            buckets: [1, 2],
          },
        },
      ),
    );
    expect(file.scenarios.map((e) => [e.generator?.type, e.distribution?.type, e.buckets])).to.deep.equal([
      ['step', undefined, undefined],
      [undefined, undefined, undefined],
      [undefined, 'exponential', [1, 2]],
    ]);
  });

  it('does not give a generator to a pack entry, nor phase_offset to an entry with after', () => {
    const file = load(
      v2(
        [metric({ id: 'a' }), { signal_type: 'metrics', pack: 'p', rate: 1, after: { ref: 'a', op: '>', value: 0 } }],
        {
          defaults: { generator: { type: 'constant', value: 2 }, phase_offset: '5s' },
        },
      ),
    );
    expect(file.scenarios[0]).to.include({ phase_offset: 5_000 });
    expect(file.scenarios[1]).not.to.have.property('generator');
    expect(file.scenarios[1]).not.to.have.property('phase_offset');
  });

  it('rejects id, name and pack', () => {
    expect(problems(v2([metric()], { defaults: { id: 'x', name: 'y', pack: 'z' } }))).to.deep.equal([
      'defaults: id: not allowed in defaults (it identifies one entry: set it on each entry)',
      'defaults: name: not allowed in defaults (it identifies one entry: set it on each entry)',
      'defaults: pack: not allowed in defaults (it identifies one entry: set it on each entry)',
    ]);
  });

  it('reports a bad default once, under defaults, not on every entry lacking it', () => {
    const { rate: _a, ...a } = metric({ name: 'a' });
    const { rate: _b, ...b } = metric({ name: 'b' });
    const dynamic_labels = [{ key: 'pod', values: [] }];
    expect(problems(v2([a, b], { defaults: { rate: '5', ratee: 1, dynamic_labels } }))).to.deep.equal([
      'defaults: rate: invalid type: expected a number, got string "5"',
      'defaults: ratee: unknown field (did you mean rate?)',
      'defaults: dynamic_labels[0].values: expected a non-empty list, got an empty list',
    ]);
  });

  it('rejects defaults that are not a mapping', () => {
    expect(problems(v2([metric()], { defaults: ['rate: 1'] }))).to.deep.equal([
      'defaults: invalid type: expected a mapping, got a list',
    ]);
  });

  it('says when a problem comes from a default value', () => {
    expect(problems(v2([logs()], { defaults: { encoder: { type: 'metrics_text' } } }))).to.deep.equal([
      'scenarios[0] (app): encoder.type: metrics_text cannot encode a logs entry (use json_lines or syslog) (value from defaults)',
    ]);
  });

  it('applies observations_per_tick defaults to histogram entries', () => {
    expect(
      load(v2([histogram()], { defaults: { observations_per_tick: 7 } })).scenarios[0]!.observations_per_tick,
    ).to.equal(7);
  });
});

/**
 * Counts the runs of the codec of entry field `field` while `body` runs (io-ts codecs hold validate as a field of
 * their own, typed read-only); `runs()` says how many so far, `reset()` starts again.
 */
function countingRuns(field: 'dynamic_labels' | 'labels', body: (count: { runs(): number; reset(): void }) => void) {
  const codec = entryFields[field] as { validate: t.Validate<unknown, unknown> };
  const validate = codec.validate;
  let calls = 0;
  codec.validate = (u, c) => {
    calls++;
    return validate.call(codec, u, c);
  };
  try {
    body({ runs: () => calls, reset: () => void (calls = 0) });
  } finally {
    codec.validate = validate;
  }
}

describe('defaults: decoded once', () => {
  // Decoded again for every entry, a list of 100,000 label values in defaults cost svc-server's loadScenario 3.9 s
  // of the 6.2 s its event loop took for one POST of 100 entries (docs/performance.md).
  it('an entry that gets a default unchanged takes its decoded value: the codec runs once, not once an entry', () => {
    countingRuns('dynamic_labels', (count) => {
      const values = ['a', 'b', 'c'];
      const file = load(
        v2(
          [
            metric({ name: 'x' }),
            metric({ name: 'y' }),
            metric({ name: 'z', dynamic_labels: [{ key: 'zone', values: ['eu'] }] }),
          ],
          { defaults: { dynamic_labels: [{ key: 'pod', values }] } },
        ),
      );
      // The defaults', and z's own.
      expect(count.runs()).to.equal(2);
      expect(file.scenarios.map((e) => e.dynamic_labels.map((label) => label.key))).to.deep.equal([
        ['pod'],
        ['pod'],
        ['zone'],
      ]);
      expect(file.scenarios[0]!.dynamic_labels[0]).to.include({ form: 'list' });
    });
  });

  it('an entry whose default value changed (its own labels merged in, a --label) decodes its value on its own', () => {
    countingRuns('labels', (count) => {
      const document = v2([metric({ name: 'x' }), metric({ name: 'y', labels: { zone: 'eu' } })], {
        defaults: { labels: { team: 'a' } },
      });
      const labelsOf = (file: ScenarioFile) => file.scenarios.map((e) => e.labels);
      // The defaults', and y's merged with them.
      expect(labelsOf(load(document))).to.deep.equal([{ team: 'a' }, { team: 'a', zone: 'eu' }]);
      expect(count.runs()).to.equal(2);
      count.reset();
      // The defaults', and each entry's with the flag's label.
      expect(labelsOf(load(document, { overrides: { labels: { env: 'prod' } } }))).to.deep.equal([
        { team: 'a', env: 'prod' },
        { team: 'a', zone: 'eu', env: 'prod' },
      ]);
      expect(count.runs()).to.equal(3);
    });
  });
});
