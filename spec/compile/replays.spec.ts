import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../lib/config/index.js';
import { filesIn, readReplays } from '../../lib/config/csv-replay.js';
import { compileScenario, type ScenarioPlan } from '../../lib/compile/index.js';
import { valueGenerator } from '../../lib/generators/value.js';
import { logGenerator } from '../../lib/generators/log.js';
import type { Entry } from '../../lib/config/types.js';
import type { CliOverrides } from '../../lib/config/overrides.js';
import { load, v2 } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

const dir = temporaryDirectory('svc-replay-');
writeFileSync(
  join(dir, 'series.csv'),
  [
    'Time,"{__name__=""rps"", pod=""a""}","{__name__=""rps"", pod=""b""}",errors',
    '0,10,20,1',
    '10,11,21,2',
    '20,12,22,3',
    '',
  ].join('\n'),
);
writeFileSync(
  join(dir, 'app.csv'),
  ['timestamp,severity,message,user', '100,info,login,ann', '102,error,denied,bob', '106,warn,retry,ann', ''].join(
    '\n',
  ),
);
writeFileSync(join(dir, 'unlevelled.csv'), ['timestamp,level,message', '100,,quiet', '102,error,loud', ''].join('\n'));
writeFileSync(join(dir, 'balances.csv'), ['Time,credit,debit', '0,1,5', '10,,-2', '20,3,-4', ''].join('\n'));
writeFileSync(join(dir, 'plain.csv'), ['timestamp,message', '100,hello', ''].join('\n'));
writeFileSync(join(dir, 'timed.csv'), ['Time,"load{time=""x""}"', '0,1', ''].join('\n'));

async function compile(scenarios: Record<string, unknown>[], overrides: CliOverrides = {}): Promise<ScenarioPlan> {
  const file = await readReplays(load(v2(scenarios), { format: 'json', overrides }), filesIn(dir));
  return compileScenario(file, { origin: 'test.yaml' });
}

async function compileProblems(scenarios: Record<string, unknown>[]): Promise<string[]> {
  const error = await compile(scenarios).catch((e: unknown) => e);
  expect(error).to.be.instanceOf(ConfigError);
  return (error as ConfigError).problems.map((p) => p.message);
}

const replay = (extra: Record<string, unknown> = {}, entry: Record<string, unknown> = {}) => ({
  signal_type: 'metrics',
  name: 'recorded',
  rate: 1,
  generator: { type: 'csv_replay', file: 'series.csv', ...extra },
  ...entry,
});

/** The values of an entry at its ticks 0..count-1 (rate 1: tick n at n seconds). */
function valuesAt(entry: Entry, count: number): number[] {
  const generate = valueGenerator(entry.generator!);
  return Array.from({ length: count }, (_, n) => generate(n, (n * 1000) / entry.rate));
}

describe('csv_replay: one entry per column', () => {
  it("without columns, every column is its own entry, named and labelled by its header, whose labels win over the entry's as the reference tool's do", async () => {
    const plan = await compile([replay({}, { id: 'rec', labels: { pod: 'entry', env: 'test' } })]);
    expect(plan.scenarios.map(({ id, name, labels }) => ({ id, name, labels }))).to.deep.equal([
      { id: 'rec.rps', name: 'rps', labels: { pod: 'a', env: 'test' } },
      { id: 'rec.rps#2', name: 'rps', labels: { pod: 'b', env: 'test' } },
      { id: 'rec.errors', name: 'errors', labels: { pod: 'entry', env: 'test' } },
    ]);
  });

  it('names the columns whose header has labels and no name by default_metric_name, as the reference tool does', async () => {
    writeFileSync(join(dir, 'nameless.csv'), ['Time,"{pod=""a""}","{pod=""b""}",errors', '0,1,2,3', ''].join('\n'));
    const namesOf = async (generator: Record<string, unknown>) =>
      (await compile([replay({ file: 'nameless.csv', ...generator })])).scenarios.map(({ name, labels }) => ({
        name,
        labels,
      }));
    // Several nameless columns: _<column index>; a named column keeps its own name.
    expect(await namesOf({ default_metric_name: 'cpu' })).to.deep.equal([
      { name: 'cpu_1', labels: { pod: 'a' } },
      { name: 'cpu_2', labels: { pod: 'b' } },
      { name: 'errors', labels: {} },
    ]);
    // One nameless column: the name as it is.
    expect(await namesOf({ default_metric_name: 'cpu', columns: ['{pod="b"}'] })).to.deep.equal([
      { name: 'cpu', labels: { pod: 'b' } },
    ]);
    // Without it, the entry's name.
    expect((await namesOf({})).map(({ name }) => name)).to.deep.equal(['recorded', 'recorded', 'errors']);
  });

  it("columns picks columns by metric name or header text; one column keeps the entry's id", async () => {
    const byName = await compile([replay({ columns: ['errors'] })]);
    expect(byName.scenarios.map(({ id, name }) => ({ id, name }))).to.deep.equal([{ id: 'recorded', name: 'errors' }]);
    const byHeader = await compile([replay({ columns: ['{__name__="rps", pod="b"}'] })]);
    expect(byHeader.scenarios.map((e) => e.labels)).to.deep.equal([{ pod: 'b' }]);
  });

  it('an after may wait for one column, as <entry id>.<metric name>', async () => {
    const page = {
      signal_type: 'metrics',
      name: 'page',
      rate: 1,
      generator: { type: 'constant', value: 1 },
      after: { ref: 'recorded.errors', op: '>', value: 1 },
    };
    const plan = await compile([replay(), page]);
    expect(plan.plans[3]!.predictedStart).to.deep.include({ kind: 'after', at: 10_000 });
  });

  it('columns as mappings pick columns by position (0 is the time), each with its own name and labels over the others', async () => {
    const columns = [{ index: 3, name: 'error_total', labels: { pod: 'c' } }, { index: 1 }];
    const plan = await compile([replay({ columns }, { id: 'rec', labels: { pod: 'entry', env: 'test' } })]);
    expect(plan.scenarios.map(({ id, name, labels }) => ({ id, name, labels }))).to.deep.equal([
      { id: 'rec.error_total', name: 'error_total', labels: { pod: 'c', env: 'test' } },
      { id: 'rec.rps', name: 'rps', labels: { pod: 'a', env: 'test' } },
    ]);
    expect(valuesAt(plan.scenarios[0]!, 3)).to.deep.equal([1, 1, 1]);
  });

  it("--label wins over the header labels and the columns mapping, as it wins over the file's labels", async () => {
    const columns = [{ index: 3, labels: { pod: 'c' } }, { index: 1 }];
    const entry = { id: 'rec', labels: { pod: 'entry', env: 'test' } };
    const plan = await compile([replay({ columns }, entry)], { labels: { pod: 'cli' } });
    expect(plan.scenarios.map(({ id, labels }) => ({ id, labels }))).to.deep.equal([
      { id: 'rec.errors', labels: { pod: 'cli', env: 'test' } },
      { id: 'rec.rps', labels: { pod: 'cli', env: 'test' } },
    ]);
    expect(plan.scenarios.some((e) => 'flag_labels' in e)).to.equal(false);
  });

  it("strings and mappings mix in one list; one chosen column keeps the entry's id", async () => {
    const plan = await compile([replay({ columns: [{ index: 2, name: 'rps_b' }] })]);
    expect(plan.scenarios.map(({ id, name, labels }) => ({ id, name, labels }))).to.deep.equal([
      { id: 'recorded', name: 'rps_b', labels: { pod: 'b' } },
    ]);
    const mixed = await compile([replay({ columns: ['errors', { index: 1 }] }, { id: 'rec' })]);
    expect(mixed.scenarios.map((e) => e.id)).to.deep.equal(['rec.errors', 'rec.rps']);
  });

  it('refuses a column position the CSV does not have, and the time column, naming the field', async () => {
    expect(await compileProblems([replay({ columns: [{ index: 4 }] })])).to.deep.equal([
      'scenarios[0] (recorded): generator.columns[0].index: series.csv has 3 series columns after its time column (1 to 3: {__name__="rps", pod="a"}, {__name__="rps", pod="b"}, errors), so no column 4',
    ]);
    expect(() => load(v2([replay({ columns: [{ index: 0 }] })]), { format: 'json' })).to.throw(
      ConfigError,
      'generator.columns[0].index: expected an integer greater than 0, got 0',
    );
    expect(() => load(v2([replay({ columns: [{ index: 1, nmae: 'x' }] })]), { format: 'json' })).to.throw(
      ConfigError,
      'generator.columns[0].nmae: unknown field (did you mean name?)',
    );
  });

  it("refuses a label a column brings that the entry's encoder cannot write (influx_lp: time), naming the column", async () => {
    const timed = (entry: Record<string, unknown> = {}) => replay({ file: 'timed.csv' }, entry);
    expect(await compileProblems([timed({ encoder: { type: 'influx_lp' } })])).to.deep.equal([
      'scenarios[0] (recorded): labels.time: a label of the column load{time="x"} of timed.csv: not allowed with the influx_lp encoder (InfluxDB refuses a point with a tag or field named time): give the label another name',
    ]);
    expect((await compile([timed()])).scenarios[0]!.labels).to.deep.equal({ time: 'x' });
  });

  it('refuses a column without labels into the logstore sink, whose store refuses such a stream', async () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    expect(await compileProblems([replay({}, { sink })])).to.deep.equal([
      'scenarios[0] (recorded.errors): labels: the column errors of series.csv: the logstore sink needs at least one label (the log store refuses a stream without labels): add one, e.g. labels: {job: <name>}',
    ]);
    expect((await compile([replay({}, { sink, labels: { job: 'r' } })])).scenarios).to.have.length(3);
  });

  it('refuses a column the CSV does not have', async () => {
    expect(await compileProblems([replay({ columns: ['errors', 'latency'] })])).to.deep.equal([
      'scenarios[0] (recorded): generator.columns[1]: series.csv has no column "latency" (its columns: {__name__="rps", pod="a"}, {__name__="rps", pod="b"}, errors)',
    ]);
  });

  it('refuses a negative value on a counter once the file is read, naming its line and column; only in the columns chosen', async () => {
    const counter = (extra: Record<string, unknown> = {}) =>
      replay({ file: 'balances.csv', ...extra }, { metric_type: 'counter' });
    expect(await compileProblems([counter()])).to.deep.equal([
      'scenarios[0] (recorded): generator.file: balances.csv line 3, column 3 (debit): -2 on a counter (metric_type: counter): OpenMetrics forbids negative counter values, and Prometheus reads every fall as a reset; give metric_type: gauge, or a file whose values stay at 0 or above',
    ]);
    expect((await compile([counter({ columns: ['credit'] })])).scenarios).to.have.length(1);
    expect((await compile([replay({ file: 'balances.csv' })])).scenarios).to.have.length(2);
  });

  it('refuses csv_replay in a pack override, whose file no one reads', () => {
    const override = {
      signal_type: 'metrics',
      rate: 1,
      pack: 'node_cpu',
      overrides: { node_load1: { generator: { type: 'csv_replay', file: 'series.csv' } } },
    };
    expect(() => load(v2([override]), { format: 'json' })).to.throw(
      ConfigError,
      'scenarios[0] (node_cpu): overrides.node_load1.generator.type: csv_replay is only allowed in the generator of an entry, not in a pack or its overrides',
    );
  });
});

describe('csv_replay: values at known ticks', () => {
  it("equal the CSV rows on the CSV's own time (10 s rows at rate 1: each row for 10 ticks), then start over", async () => {
    const [a] = (await compile([replay()])).scenarios;
    const expected = [10, 11, 12].flatMap((v) => Array<number>(10).fill(v));
    expect(valuesAt(a!, 60)).to.deep.equal([...expected, ...expected]);
  });

  it("timescale speeds the CSV's time up: 10 → one row a second", async () => {
    const [, b] = (await compile([replay({ timescale: 10 })])).scenarios;
    expect(valuesAt(b!, 7)).to.deep.equal([20, 21, 22, 20, 21, 22, 20]);
  });

  it('repeat: false holds the last row after the end', async () => {
    const [, , errors] = (await compile([replay({ timescale: 10, repeat: false })])).scenarios;
    expect(valuesAt(errors!, 6)).to.deep.equal([1, 2, 3, 3, 3, 3]);
  });

  it('a log replay gives each tick the row in force: severity, message, the other columns as fields', async () => {
    const [entry] = (
      await compile([
        { signal_type: 'logs', name: 'app', rate: 1, log_generator: { type: 'csv_replay', file: 'app.csv' } },
      ])
    ).scenarios;
    const generate = logGenerator(entry!.log_generator!);
    // Rows at 0 s, 2 s, 6 s; the last holds for 4 s, so the CSV starts over at 10 s.
    expect(Array.from({ length: 11 }, (_, n) => generate(n, n * 1000).message)).to.deep.equal([
      'login',
      'login',
      'denied',
      'denied',
      'denied',
      'denied',
      'retry',
      'retry',
      'retry',
      'retry',
      'login',
    ]);
    expect(generate(2, 2000)).to.deep.equal({ severity: 'error', message: 'denied', fields: { user: 'bob' } });
  });

  it('default_severity is the severity of rows without one: an empty cell, or no severity column', async () => {
    const severities = async (file: string, extra: Record<string, unknown>) => {
      const [entry] = (
        await compile([
          { signal_type: 'logs', name: 'app', rate: 1, log_generator: { type: 'csv_replay', file, ...extra } },
        ])
      ).scenarios;
      const generate = logGenerator(entry!.log_generator!);
      return [0, 2].map((n) => generate(n, n * 1000).severity);
    };
    expect(await severities('unlevelled.csv', { default_severity: 'warn' })).to.deep.equal(['warn', 'error']);
    expect(await severities('unlevelled.csv', {})).to.deep.equal(['info', 'error']);
    expect(await severities('plain.csv', { default_severity: 'debug' })).to.deep.equal(['debug', 'debug']);
    expect(() =>
      load(
        v2([
          {
            signal_type: 'logs',
            name: 'app',
            rate: 1,
            log_generator: { type: 'csv_replay', file: 'plain.csv', default_severity: 'loud' },
          },
        ]),
        { format: 'json' },
      ),
    ).to.throw(
      ConfigError,
      'log_generator.default_severity: expected one of trace, debug, info, warn, error, fatal, got "loud"',
    );
  });
});

describe('csv_replay: where a relative file is found', () => {
  const cwd = process.cwd();
  const workDir = temporaryDirectory('svc-replay-cwd-');
  const scenarioDir = temporaryDirectory('svc-replay-scenario-');
  mkdirSync(join(workDir, 'data'));
  writeFileSync(join(workDir, 'data', 'load.csv'), 'Time,load\n0,7\n10,8\n');
  mkdirSync(join(scenarioDir, 'data'));
  writeFileSync(join(scenarioDir, 'data', 'beside.csv'), 'Time,load\n0,1\n');
  writeFileSync(join(workDir, 'data', 'beside.csv'), 'Time,load\n0,2\n');
  const scenario = (file: string) =>
    load(v2([{ signal_type: 'metrics', name: 'load', rate: 1, generator: { type: 'csv_replay', file } }]), {
      format: 'json',
    });
  afterEach(() => process.chdir(cwd));

  it('first beside the scenario file, then from the working directory', async () => {
    process.chdir(workDir);
    const valuesRead = async (file: string) => {
      const generator = (await readReplays(scenario(file), filesIn(scenarioDir))).scenarios[0]!.generator!;
      return generator.type === 'csv_replay' ? generator.table?.columns[0]?.values : undefined;
    };
    expect(await valuesRead('data/load.csv')).to.deep.equal([7, 8]);
    expect(await valuesRead('data/beside.csv')).to.deep.equal([1]);
  });

  it('names both places it looked in when neither holds the file', async () => {
    process.chdir(workDir);
    const error = await readReplays(scenario('data/missing.csv'), filesIn(scenarioDir)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).message).to.equal(
      `data/missing.csv: cannot read the csv_replay file (no such file): looked for ${join(scenarioDir, 'data/missing.csv')} (from the scenario file's directory) and ${join(workDir, 'data/missing.csv')} (from the working directory)`,
    );
  });
});
