import { expect } from 'chai';
import { ConfigError, isPackDocument, loadPack } from '../../lib/config/index.js';
import { entryOf, entryProblems, load, metric, problems, v2 } from '../support/scenarios.js';

const pack = (extra: Record<string, unknown> = {}) => ({
  version: 2,
  kind: 'composable',
  name: 'node',
  description: 'node basics',
  metrics: [
    { name: 'node_load1', generator: { type: 'sine', amplitude: 1, period_secs: 60, offset: 2 } },
    { name: 'node_up' },
  ],
  ...extra,
});

/** The pack in the reference tool's shape: no version, no kind. */
function referencePack(): Record<string, unknown> {
  const { version: _, kind: __, ...rest } = pack();
  return rest;
}

function packProblems(document: unknown): string[] {
  try {
    loadPack(JSON.stringify(document), { origin: 'pack.json' });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => p.message);
  }
  return expect.fail('expected a ConfigError');
}

describe('pack files', () => {
  it('load into name, description, shared_labels and metrics; a metric without generator is constant 0', () => {
    const loaded = loadPack(
      `version: 2
kind: composable
name: node
description: node basics
shared_labels: { job: node }
metrics:
  - name: node_load1
    generator: { type: sine, amplitude: 1, period_secs: 60 }
    labels: { cpu: "0" }
    help: 1m load average.
  - name: node_boot_time_seconds
    metric_type: gauge
`,
      { origin: 'node.yaml' },
    );
    expect(loaded).to.deep.equal({
      version: 2,
      kind: 'composable',
      name: 'node',
      description: 'node basics',
      shared_labels: { job: 'node' },
      metrics: [
        {
          name: 'node_load1',
          generator: { type: 'sine', amplitude: 1, period_secs: 60, offset: 0 },
          labels: { cpu: '0' },
          help: '1m load average.',
        },
        { name: 'node_boot_time_seconds', generator: { type: 'constant', value: 0 }, labels: {}, metric_type: 'gauge' },
      ],
    });
  });

  it('require name, description and a non-empty metrics list; version 2 and kind composable when given', () => {
    expect(packProblems({ metrics: [{ name: 'a' }] })).to.deep.equal([
      'name: missing required field',
      'description: missing required field',
    ]);
    expect(packProblems(pack({ version: 1, kind: 'runnable', metrics: [] }))).to.deep.equal([
      'version: expected 2, got 1',
      'kind: expected composable (a pack file), got "runnable"',
      'metrics: expected at least one metric, got an empty list',
    ]);
  });

  it("take the reference tool's shape, without version and kind, as the same pack", () => {
    expect(loadPack(JSON.stringify(referencePack()), { origin: 'p.json' })).to.deep.equal(
      loadPack(JSON.stringify(pack()), { origin: 'p.json' }),
    );
  });

  it('check names, labels and unknown fields, naming each metric', () => {
    expect(
      packProblems(
        pack({
          name: 'bad name',
          shared_labels: { 'bad-key': 'x' },
          scenarios: [],
          metrics: [
            { name: '1up' },
            { name: 'ok', generator: { type: 'noise' }, labels: { a: null } },
            { name: 'ok' },
            'x',
            { name: 'up', rate: 1 },
          ],
        }),
      ),
    ).to.deep.equal([
      'name: expected a name matching [a-zA-Z0-9_][a-zA-Z0-9_.-]*, got "bad name"',
      'shared_labels["bad-key"]: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-key"',
      'scenarios: unknown field (a pack file lists metrics, not scenarios)',
      'metrics[0] (1up): name: expected a name matching [a-zA-Z_:][a-zA-Z0-9_:]*, got "1up"',
      'metrics[1] (ok): generator.type: expected one of constant, sine, step, sequence, uniform, sawtooth, spike, csv_replay, flap, saturation, leak, degradation, steady, spike_event, got "noise"',
      'metrics[1] (ok): labels.a: invalid type: expected a string, a number or a boolean, got null',
      'metrics[3]: invalid type: expected a mapping (a metric), got string "x"',
      'metrics[4] (up): rate: unknown field (allowed: name, id, generator, labels, metric_type, help)',
    ]);
  });

  it('take a metric_type a metric of single values has: gauge, counter or untyped', () => {
    expect(packProblems(pack({ metrics: [{ name: 'up', metric_type: 'histogram' }] }))).to.deep.equal([
      'metrics[0] (up): metric_type: expected one of gauge, counter, untyped, got "histogram"',
    ]);
  });

  it("take an id per metric, as the reference tool's packs do, unique among the metrics of one name", () => {
    const cpu = (ids: unknown[]) =>
      pack({ metrics: ids.map((id, i) => ({ name: 'node_cpu_seconds_total', id, labels: { mode: `m${i}` } })) });
    expect(
      loadPack(JSON.stringify(cpu(['user', 'idle'])), { origin: 'p.json' }).metrics.map((m) => m.id),
    ).to.deep.equal(['user', 'idle']);
    expect(packProblems(cpu(['user', 'user', 'a.b']))).to.deep.equal([
      'metrics[1] (node_cpu_seconds_total): id: metrics[0] of the same name has the id "user" too: give each its own',
      'metrics[2] (node_cpu_seconds_total): id: expected an id matching [a-zA-Z0-9_][a-zA-Z0-9_-]*, got "a.b"',
    ]);
  });

  it('are told apart from scenario files by metrics without scenarios', () => {
    expect(isPackDocument(pack())).to.equal(true);
    expect(isPackDocument({ version: 2, kind: 'composable', scenarios: [] })).to.equal(false);
    expect(isPackDocument([])).to.equal(false);
  });

  it("are not scenario files: loading one as a scenario says so, in the reference tool's shape too", () => {
    for (const document of [pack(), referencePack()])
      expect(problems(document, { format: 'json' })).to.deep.equal([
        'a pack file (metrics and no scenarios), not a scenario file: run it from an entry with pack: <its path or name> (docs/packs.md)',
      ]);
    const { metrics: _, ...rest } = pack();
    expect(problems({ ...rest, scenarios: [metric()], metrics: [] })).to.deep.equal([
      'metrics: unknown field (a pack file field: a pack has kind composable, name, description and metrics, and no scenarios; entries use it with pack: <name>)',
    ]);
  });
});

describe('scenario files: catalog metadata', () => {
  it('keep a top-level name and description', () => {
    const file = load(v2([metric()], { name: 'cpu-spike', description: 'a spike' }));
    expect(file).to.include({ name: 'cpu-spike', description: 'a spike' });
    expect(load(v2([metric()]))).not.to.have.property('name');
  });

  it('check the name as a catalog name', () => {
    expect(problems(v2([metric()], { name: 'a b' }))).to.deep.equal([
      'name: expected a name matching [a-zA-Z0-9_][a-zA-Z0-9_.-]*, got "a b"',
    ]);
  });

  it('mark a single flat entry as such; a name there is the entry name', () => {
    const file = load(metric({ name: 'up' }));
    expect(file).to.include({ flat: true });
    expect(file.scenarios[0]!.name).to.equal('up');
  });
});

describe('pack entries: overrides', () => {
  const packed = { signal_type: 'metrics', pack: 'node', rate: 1 };

  it('keeps overrides by metric name: generator and labels', () => {
    const overrides = {
      node_load1: { generator: { type: 'constant', value: 9 }, labels: { slo: 'breached' } },
      node_up: {},
    };
    expect(entryOf({ ...packed, overrides }).overrides).to.deep.equal(overrides);
  });

  it('checks the override shape and the metric names', () => {
    expect(
      entryProblems({ ...packed, overrides: { 'bad-name': {}, up: { generator: { type: 'constant' }, rate: 2 } } }),
    ).to.deep.equal([
      'scenarios[0] (node): overrides["bad-name"]: expected a metric name, or <metric name>.<metric id> matching [a-zA-Z_:][a-zA-Z0-9_:]*(?:\\.[a-zA-Z0-9_][a-zA-Z0-9_-]*)?, got "bad-name"',
      'scenarios[0] (node): overrides.up.generator.value: missing required field',
      'scenarios[0] (node): overrides.up.rate: unknown field (allowed: generator, labels)',
    ]);
  });

  it('allows overrides only with pack, pack only on metrics entries, and leaves type and help to the pack', () => {
    expect(entryProblems(metric({ overrides: {} }))).to.deep.equal([
      'scenarios[0] (cpu): overrides: only allowed with pack (it changes metrics of the pack)',
    ]);
    expect(
      entryProblems({
        ...packed,
        signal_type: 'logs',
        log_generator: { type: 'template', templates: [{ message: 'm' }] },
      }),
    ).to.deep.equal(['scenarios[0] (node): pack: not allowed on a logs entry (only on metrics entries)']);
    expect(entryProblems({ ...packed, metric_type: 'counter', help: 'h' })).to.deep.equal([
      'scenarios[0] (node): metric_type: not allowed with pack (the pack sets the type of each metric)',
      'scenarios[0] (node): help: not allowed with pack (the pack sets the help of each metric)',
    ]);
  });

  it('takes overrides from defaults on pack entries only; metric_type and help defaults skip them', () => {
    const file = load(
      v2([metric(), { ...packed }], {
        defaults: { overrides: { node_up: { labels: { a: 'b' } } }, metric_type: 'untyped', help: 'h' },
      }),
    );
    expect(file.scenarios[0]).not.to.have.property('overrides');
    expect(file.scenarios[0]).to.include({ metric_type: 'untyped', help: 'h' });
    expect(file.scenarios[1]!.overrides).to.deep.equal({ node_up: { labels: { a: 'b' } } });
    expect(file.scenarios[1]).not.to.have.property('help');
  });

  it('leaves refs into a pack entry to lib/compile, and says how to name a pack metric', () => {
    expect(
      load(v2([{ ...packed, id: 'n' }, metric({ after: { ref: 'n.node_up', op: '>', value: 0 } })])).scenarios,
    ).to.have.length(2);
    expect(problems(v2([{ ...packed, id: 'n' }, metric({ after: { ref: 'n', op: '>', value: 0 } })]))).to.deep.equal([
      'scenarios[1] (cpu): after.ref: "n" is a pack entry: name one of its metrics, as "n.<metric name>"',
    ]);
  });
});

describe('pack labels as YAML numbers and booleans', () => {
  it('takes them as their text, in shared_labels and metric labels', () => {
    const pack = loadPack(
      `version: 2
kind: composable
name: http
description: HTTP
shared_labels: { tls: true }
metrics:
  - { name: http_requests_total, labels: { status: 200 } }
`,
      { origin: 'http.yaml' },
    );
    expect(pack.shared_labels).to.deep.equal({ tls: 'true' });
    expect(pack.metrics[0]!.labels).to.deep.equal({ status: '200' });
  });
});
