import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadScenario, loadScenarioFile } from '../../lib/config/index.js';
import { configError, load, metric, problems, v2 } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

describe('loadScenario: the file', () => {
  it('loads a v2 YAML file into normalised entries', () => {
    const file = load(`
version: 2
kind: runnable
scenarios:
  - name: cpu_usage
    signal_type: metrics
    rate: 2.5
    duration: 1.5m
    generator: {type: sine, amplitude: 10, period_secs: 60}
`);
    expect(file).to.deep.equal({
      version: 2,
      kind: 'runnable',
      scenarios: [
        {
          id: 'cpu_usage',
          signal_type: 'metrics',
          name: 'cpu_usage',
          rate: 2.5,
          duration: 90_000,
          start_time: { kind: 'now' },
          generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 0 },
          encoder: { type: 'metrics_text' },
          sink: { type: 'stdout' },
          labels: {},
          dynamic_labels: [],
          jitter_seed: 0,
          on_sink_error: 'warn',
          metric_type: 'gauge',
          cardinality_spikes: [],
        },
      ],
    });
  });

  it('loads a composable file with the same entry shape and keeps its kind', () => {
    expect(load(v2([metric()], { kind: 'composable' })).kind).to.equal('composable');
  });

  it('rejects a file without kind, naming the allowed values', () => {
    expect(problems({ version: 2, scenarios: [metric()] })).to.deep.equal([
      'kind: missing required field (allowed: runnable, composable)',
    ]);
  });

  it('rejects an unknown kind, naming the allowed values', () => {
    expect(problems(v2([metric()], { kind: 'run' }))).to.deep.equal([
      'kind: expected one of runnable, composable, got "run"',
    ]);
  });

  it('requires version 2', () => {
    expect(problems({ kind: 'runnable', scenarios: [metric()] })).to.deep.equal([
      'version: missing required field (expected 2)',
    ]);
    expect(problems(v2([metric()], { version: 1 }))).to.deep.equal(['version: expected 2, got 1']);
    expect(problems(v2([metric()], { version: '2' }))).to.deep.equal([
      'version: invalid type: expected the number 2, got string "2"',
    ]);
  });

  it('requires a non-empty scenarios list of mappings', () => {
    expect(problems({ version: 2, kind: 'runnable' })).to.deep.equal(['scenarios: missing required field']);
    expect(problems(v2([]))).to.deep.equal(['scenarios: expected at least one entry, got an empty list']);
    expect(problems({ version: 2, kind: 'runnable', scenarios: { a: 1 } })).to.deep.equal([
      'scenarios: invalid type: expected a list of entries, got a mapping',
    ]);
    expect(problems(v2([metric(), 'cpu']))).to.deep.equal([
      'scenarios[1]: invalid type: expected a mapping (an entry), got string "cpu"',
    ]);
  });

  it('rejects unknown top-level fields, and says where a misplaced entry field belongs', () => {
    expect(problems(v2([metric()], { metadata: {} }))).to.deep.equal(['metadata: unknown field']);
    expect(problems(v2([metric()], { rate: 5 }))).to.deep.equal([
      'rate: unknown field (an entry field: set it in a scenarios entry or in defaults)',
    ]);
  });

  it('rejects a document that is not a mapping', () => {
    expect(problems('- a\n- b\n')).to.deep.equal([
      'invalid type: expected a mapping (a v2 scenario file or a single entry), got a list',
    ]);
    expect(problems('42\n')).to.deep.equal([
      'invalid type: expected a mapping (a v2 scenario file or a single entry), got number 42',
    ]);
  });

  it('reports every problem of every entry, not only the first', () => {
    const found = problems(
      v2([
        metric({ name: 'cpu_usage', rate: 0 }),
        metric({ name: 'mem', ratee: 5 }),
        { signal_type: 'metrics', rate: 1, generator: { type: 'constant', value: 1 } },
      ]),
    );
    expect(found).to.deep.equal([
      'scenarios[0] (cpu_usage): rate: expected a number greater than 0, got 0',
      'scenarios[1] (mem): ratee: unknown field (did you mean rate?)',
      'scenarios[2]: name: missing required field',
    ]);
  });

  it('gives each problem its path from the document root', () => {
    const error = configError(v2([metric(), metric({ id: 'b', gaps: { every: '1m', for: '2m' } })]));
    expect(error.problems).to.deep.equal([
      {
        path: 'scenarios[1].gaps.for',
        message: 'scenarios[1] (b): gaps.for: expected a duration shorter than every ("1m"), got "2m"',
      },
    ]);
  });
});

describe('loadScenario: single flat entry', () => {
  it('turns a flat YAML entry into a one-entry runnable file', () => {
    const file = load('signal_type: metrics\nname: up\nrate: 1\ngenerator: {type: constant, value: 1}\n');
    expect(file.version).to.equal(2);
    expect(file.kind).to.equal('runnable');
    expect(file.scenarios.map((e) => e.id)).to.deep.equal(['up']);
  });

  it('turns a flat JSON entry into a one-entry runnable file', () => {
    const text = JSON.stringify(metric({ name: 'up' }));
    expect(loadScenario(text, { origin: 'request body', format: 'json' }).scenarios[0]!.name).to.equal('up');
  });

  it('requires signal_type in a flat JSON entry', () => {
    const { signal_type: _, ...entry } = metric();
    expect(problems(entry)).to.deep.equal([
      'entry (cpu): signal_type: missing required field (allowed: metrics, logs, histogram, summary, traces)',
    ]);
  });

  it("takes the signal type of a flat YAML entry without one from its fields, as the reference tool's files are written", () => {
    const signalOf = (fields: string) => load(`name: x\nrate: 1\n${fields}`).scenarios[0]!.signal_type;
    expect(signalOf('generator: {type: constant, value: 1}\n')).to.equal('metrics');
    expect(signalOf('log_generator: {type: template, templates: [{message: hi}]}\n')).to.equal('logs');
    expect(signalOf('distribution: {type: exponential, rate: 5}\n')).to.equal('histogram');
    expect(signalOf('distribution: {type: exponential, rate: 5}\nquantiles: [0.5]\n')).to.equal('summary');
    expect(load('pack: node_cpu\nrate: 1\n').scenarios[0]!.signal_type).to.equal('metrics');
    // Fields no one signal type takes together: the type must be given.
    expect(problems('name: x\nrate: 1\ngenerator: {type: constant, value: 1}\nquantiles: [0.5]\n')).to.deep.equal([
      'entry (x): signal_type: missing required field (allowed: metrics, logs, histogram, summary, traces)',
    ]);
  });

  it("reads a flat logs entry's generator as its log_generator, as the reference tool's first files wrote it", () => {
    const entryOf = (text: string) => load(text).scenarios[0]!;
    const template = 'generator: {type: template, templates: [{message: hi}]}\n';
    for (const signal of ['', 'signal_type: logs\n']) {
      const entry = entryOf(`name: x\nrate: 1\n${signal}${template}`);
      expect(entry.signal_type, signal).to.equal('logs');
      expect(entry.log_generator?.type, signal).to.equal('template');
      expect(entry).not.to.have.property('generator');
    }
    expect(entryOf('name: x\nrate: 1\ngenerator: {type: replay, file: a.log}\n').log_generator).to.deep.equal({
      type: 'replay',
      file: 'a.log',
    });
    // Messages name the field as written.
    expect(
      problems('name: x\nrate: 1\nsignal_type: logs\ngenerator: {type: template, templates: [{mesage: hi}]}\n'),
    ).to.deep.equal([
      'entry (x): generator.templates[0].mesage: unknown field (did you mean message?)',
      'entry (x): generator.templates[0].message: missing required field',
    ]);
    // A v2 entry keeps the two apart.
    expect(
      problems({
        version: 2,
        kind: 'runnable',
        scenarios: [
          { signal_type: 'logs', name: 'x', rate: 1, generator: { type: 'template', templates: [{ message: 'hi' }] } },
        ],
      }),
    ).to.include('scenarios[0] (x): generator: not allowed on a logs entry (only on metrics entries)');
  });

  it('says what makes a flat csv_replay with default_severity a logs one: it reads as metrics without signal_type', () => {
    const replay = 'name: x\nrate: 1\ngenerator: {type: csv_replay, file: a.csv, default_severity: warn}\n';
    expect(problems(replay)).to.deep.equal([
      "entry (x): generator.default_severity: unknown field (allowed: type, file, repeat, timescale, columns, default_metric_name); default_severity is a logs replay's: add signal_type: logs",
    ]);
    expect(load(`signal_type: logs\n${replay}`).scenarios[0]!.log_generator?.type).to.equal('csv_replay');
    // Given as metrics, the field is simply not one of its.
    expect(problems(`signal_type: metrics\n${replay}`)[0]).to.match(/unknown field \(allowed: [^)]*\)$/);
  });

  it('names an entry by its id, name or pack cut short, as values are quoted', () => {
    const long = 'a'.repeat(1024);
    expect(
      problems(
        v2([
          metric({ id: long, rate: 0 }),
          metric({ name: long, rate: 0 }),
          { signal_type: 'metrics', pack: `./${long}`, rate: 0 },
        ]),
        { format: 'json' },
      ),
    ).to.deep.equal([
      `scenarios[0] (${'a'.repeat(57)}...): rate: expected a number greater than 0, got 0`,
      `scenarios[1] (${'a'.repeat(57)}...): rate: expected a number greater than 0, got 0`,
      `scenarios[2] (./${'a'.repeat(55)}...): rate: expected a number greater than 0, got 0`,
    ]);
  });

  it('names the flat entry in messages without a list index', () => {
    const error = configError(metric({ rate: '5' }));
    expect(error.problems).to.deep.equal([
      { path: 'rate', message: 'entry (cpu): rate: invalid type: expected a number, got string "5"' },
    ]);
  });

  it('treats a document with any v2 key as a v2 file', () => {
    expect(problems({ version: 2, defaults: { rate: 1 } })).to.deep.equal([
      'kind: missing required field (allowed: runnable, composable)',
      'scenarios: missing required field',
    ]);
  });

  it("tells what to write instead of the reference tool's first multi-scenario file (signal_type: multi, no version or kind)", () => {
    expect(problems({ signal_type: 'multi', scenarios: [metric()] })).to.deep.equal([
      "signal_type: unknown field (the reference tool's mark of a multi-scenario file: leave it out, each entry gives its own signal_type)",
      'version: missing required field (expected 2)',
      'kind: missing required field (allowed: runnable, composable)',
    ]);
  });

  it('takes a single entry beside version: 2 (and kind: runnable) as that one entry', () => {
    for (const top of [{ version: 2 }, { version: 2, kind: 'runnable' }]) {
      const file = load({ ...top, ...metric() });
      expect(file.flat).to.equal(true);
      expect(file.scenarios.map((e) => e.id)).to.deep.equal(['cpu']);
    }
    expect(problems({ version: 3, kind: 'composable', ...metric({ rat: 1 }) })).to.deep.equal([
      'version: expected 2, got 3',
      'kind: expected runnable (a single entry runs by itself), got "composable"',
      'entry (cpu): rat: unknown field (did you mean rate?)',
    ]);
  });
});

describe('loadScenario: text', () => {
  it('reports malformed YAML as a syntax error with its position', () => {
    const error = configError('scenarios: [1, 2\nversion: 2\n');
    expect(error.kind).to.equal('syntax');
    expect(error.problems[0]!.message).to.match(/^invalid YAML: .*at line 2, column 1$/);
  });

  it('shows the first three YAML syntax errors and counts the rest, which follow from the first', () => {
    // An indented first line that opens with a backtick (text pasted from a template literal): the parser
    // reports an error for nearly every token after it.
    const error = configError('      `version: 2\nkind: runnable\nscenarios:\n  - id: a\n    name: b\n    rate: 1\n');
    expect(error.problems).to.have.length(4);
    expect(error.problems[0]!.message).to.match(/^invalid YAML: .* at line 1, column 7$/);
    expect(error.problems[3]!.message).to.match(
      /^invalid YAML: \d+ more errors after these, most of them following from the first$/,
    );
  });

  it('reports malformed JSON as a syntax error', () => {
    const error = configError('{"version": 2,', { format: 'json' });
    expect(error.kind).to.equal('syntax');
    expect(error.problems[0]!.message).to.match(/^invalid JSON: /);
  });

  it('names the line and column of a JSON syntax error, as of a YAML one', () => {
    const error = configError('{\n  "version": 2,\n  "scenarios": [\n    {"name": "x",}\n  ]\n}\n', { format: 'json' });
    expect(error.problems[0]!.message).to.match(/^invalid JSON: .* at line 4, column 18$/);
  });

  it('names where an unexpected JSON token is, not the text around it, which may hold a secret', () => {
    // V8 would say: Unexpected token ']', "{"version": 2,\n "sasl": {"password": ["s3cr3t",]}}" is not valid JSON.
    const error = configError('{"version": 2,\n "sasl": {"password": ["s3cr3t",]}}', { format: 'json' });
    expect(error.problems.map((problem) => problem.message)).to.deep.equal([
      "invalid JSON: Unexpected token ']' at line 2, column 33",
    ]);
  });

  it('reads JSON text through the YAML parser when no format is given', () => {
    expect(loadScenario(JSON.stringify(metric()), { origin: 'body' }).scenarios).to.have.length(1);
  });

  it('chooses JSON from a .json origin', () => {
    expect(() => loadScenario("{'a': 1}", { origin: 'x.json' })).to.throw(ConfigError, 'x.json: invalid JSON');
  });

  it('rejects duplicate keys', () => {
    const error = configError('signal_type: metrics\nname: a\nname: b\n');
    expect(error.kind).to.equal('syntax');
    expect(error.problems[0]!.message).to.equal('invalid YAML: duplicate key "name" at line 3, column 1');
  });

  it('rejects duplicate keys in JSON too, which JSON.parse would keep the last of, naming the line and column', () => {
    const text =
      '{"version": 2, "kind": "runnable",\n "scenarios": [{"signal_type": "metrics", "name": "a",\n  "rate": 1, "rate": 2}]}';
    const error = configError(text, { format: 'json' });
    expect(error.kind).to.equal('syntax');
    expect(error.problems[0]!.message).to.equal('invalid JSON: duplicate key "rate" at line 3, column 14');
    // The same name in two objects, or a key that is a value elsewhere, is no duplicate.
    expect(configError('{"a": {"k": 1}, "b": {"k": 2}, "k": "k"}', { format: 'json' }).kind).to.not.equal('syntax');
  });

  it('rejects several documents in one text', () => {
    expect(configError('signal_type: metrics\n---\nname: a\n').kind).to.equal('syntax');
  });

  it('ignores a leading byte-order mark', () => {
    expect(loadScenario(`\uFEFF${JSON.stringify(metric())}`, { origin: 'x.json' }).scenarios).to.have.length(1);
  });

  it('treats an explicit null as a value of the wrong type, not as absent', () => {
    expect(
      problems('signal_type: metrics\nname: a\nrate: 1\ngenerator: {type: constant, value: 1}\nduration:\n'),
    ).to.deep.equal(['entry (a): duration: invalid type: expected a duration string such as "30s", got null']);
  });

  it('rejects an empty document as a syntax error', () => {
    expect(configError('  \n').problems[0]!.message).to.equal('the document is empty');
  });

  it('bounds alias expansion (a billion-laughs document is a syntax error)', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    const error = configError(bomb);
    expect(error.kind).to.equal('syntax');
    expect(error.problems[0]!.message).to.equal('invalid YAML: aliases expand too much (more than 100 expansions)');
  });

  it('accepts anchors, aliases and merge keys within the bound', () => {
    const file = load(`
version: 2
kind: runnable
scenarios:
  - &base
    name: a
    signal_type: metrics
    rate: 1
    generator: {type: constant, value: 1}
  - <<: *base
    name: b
`);
    expect(file.scenarios.map((e) => e.id)).to.deep.equal(['a', 'b']);
  });

  it('keeps YAML 1.2 scalars: yes is a string, a timestamp stays text', () => {
    expect(problems(metric({ generator: { type: 'sequence', values: [1], repeat: 'yes' } }))).to.deep.equal([
      'entry (cpu): generator.repeat: invalid type: expected a boolean, got string "yes"',
    ]);
    expect(
      load(
        'signal_type: metrics\nname: a\nrate: 1\ngenerator: {type: constant, value: 1}\nstart_time: 2024-05-01T12:00:00Z\n',
      ).scenarios[0]!.start_time,
    ).to.deep.equal({
      kind: 'absolute',
      epochMs: Date.parse('2024-05-01T12:00:00Z'),
    });
  });

  it('rejects non-finite YAML numbers', () => {
    expect(
      problems('signal_type: metrics\nname: a\nrate: .inf\ngenerator: {type: constant, value: 1}\n'),
    ).to.deep.equal(['entry (a): rate: expected a finite number, got Infinity']);
  });

  it('keeps a __proto__ key as a plain (unknown) field', () => {
    expect(
      problems('signal_type: metrics\nname: a\nrate: 1\ngenerator: {type: constant, value: 1}\n__proto__: {x: 1}\n'),
    ).to.deep.equal(['entry (a): __proto__: unknown field']);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
  });

  it('prefixes every line of the error message with the origin', () => {
    expect(() => loadScenario(v2([metric({ rate: 0, help: 1 })]), { origin: 'cpu.yaml' })).to.throw(
      ConfigError,
      'cpu.yaml: scenarios[0] (cpu): rate: expected a number greater than 0, got 0\ncpu.yaml: scenarios[0] (cpu): help: invalid type: expected a string, got number 1',
    );
  });

  it('keeps every problem but lists at most 100 in the message', () => {
    const error = configError(v2(Array.from({ length: 150 }, (_, i) => metric({ id: `e${i}`, rate: 0 }))));
    expect(error.problems).to.have.length(150);
    const lines = error.message.split('\n');
    expect(lines).to.have.length(101);
    expect(lines[100]).to.equal('test.yaml: ... and 50 more problems');
  });

  it('marks validation failures with kind invalid', () => {
    expect(configError(v2([metric({ rate: 0 })])).kind).to.equal('invalid');
  });
});

describe('loadScenarioFile', () => {
  const dir = temporaryDirectory('svc-config-');

  it('reads and loads a file, naming it in messages', async () => {
    const path = join(dir, 'ok.yaml');
    writeFileSync(path, 'signal_type: metrics\nname: up\nrate: 1\ngenerator: {type: constant, value: 1}\n');
    expect((await loadScenarioFile(path)).scenarios[0]!.id).to.equal('up');
    writeFileSync(path, 'signal_type: metrics\nname: up\nrate: 0\ngenerator: {type: constant, value: 1}\n');
    const error = await loadScenarioFile(path).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.equal(`${path}: entry (up): rate: expected a number greater than 0, got 0`);
  });

  it('reads .json files as JSON', async () => {
    const path = join(dir, 'entry.json');
    writeFileSync(path, "{signal_type: 'metrics'}");
    const error = (await loadScenarioFile(path).catch((e: unknown) => e)) as ConfigError;
    expect(error.kind).to.equal('syntax');
  });

  it('names the path of a missing file', async () => {
    const path = join(dir, 'missing.yaml');
    const error = (await loadScenarioFile(path).catch((e: unknown) => e)) as ConfigError;
    expect(error).to.be.instanceOf(ConfigError);
    expect(error.kind).to.equal('unreadable');
    expect(error.message).to.equal(`${path}: cannot read the scenario file (no such file)`);
  });

  it('applies overrides', async () => {
    const path = join(dir, 'over.yaml');
    writeFileSync(path, 'signal_type: metrics\nname: up\nrate: 1\ngenerator: {type: constant, value: 1}\n');
    expect((await loadScenarioFile(path, { overrides: { rate: 7 } })).scenarios[0]!.rate).to.equal(7);
  });
});
