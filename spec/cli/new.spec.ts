import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { svc, scenarioDir, lines } from '../support/cli.js';
import { SCHEMA_MODELINE } from '../../lib/new/modeline.js';
import { STARTER_SIGNALS } from '../../lib/new/starter.js';
import { SINK_ALIASES, SINK_KINDS, SINK_TYPES } from '../../lib/sinks/kinds/index.js';
import { ENCODER_ALIASES, ENCODER_TYPES } from '../../lib/encoders/kinds/index.js';
import { loadScenario } from '../../lib/config/load.js';
import { familyOf } from '../../lib/language/fields.js';

const { dir, scenario } = scenarioDir('svc-new-');

/** `svc new <argv>`, expected to succeed; its stdout. */
async function starter(argv: string[]): Promise<string> {
  const result = await svc(['new', ...argv]);
  expect(result.code, `svc new ${argv.join(' ')}\n${result.stderr}`).to.equal(0);
  return result.stdout;
}

/** `svc <argv>`, expected to be a usage error (exit 2, nothing on stdout); its first stderr line. */
async function usageError(argv: string[]): Promise<string> {
  const result = await svc(argv);
  expect(result.code, `${argv.join(' ')}\n${result.stderr}`).to.equal(2);
  expect(result.stdout).to.equal('');
  return result.stderr.split('\n')[0]!;
}

/** `svc run <file> --dry-run` of `text`, expected valid. */
async function expectValid(name: string, text: string): Promise<void> {
  const result = await svc(['run', scenario(name, text), '--dry-run']);
  expect(result.code, `${text}\n${result.stderr}`).to.equal(0);
  expect(result.stderr).to.include('Validation: OK (1 scenario)');
}

describe('svc new: starter scenarios', () => {
  for (const signal of STARTER_SIGNALS) {
    it(`writes a ${signal} starter that begins with the schema modeline and validates`, async () => {
      const text = await starter(['--signal', signal]);
      expect(text.split('\n')[0]).to.equal(SCHEMA_MODELINE);
      expect(text).to.match(new RegExp(`^  - signal_type: ${signal} # `, 'm'));
      await expectValid(`${signal}.yaml`, text);
    });
  }

  it('says what rate counts: events, or traces for a traces starter (its events are spans)', async () => {
    expect(await starter(['--signal', 'logs'])).to.match(/^ {4}rate: 2 # events per second, /m);
    expect(await starter(['--signal', 'traces'])).to.match(
      /^ {4}rate: 2 # traces \(each a tree of spans\) per second, /m,
    );
  });

  it("takes the reference tool's --template: the starter, as without it; not with --from", async () => {
    expect(await starter(['--template'])).to.equal(await starter([]));
    expect(await usageError(['new', '--template', '--from', 'x.csv'])).to.equal(
      'Usage Error: --template writes the starter scenario, --from one read from a source: give one of them',
    );
  });

  it('writes metrics by default, and the metrics starter runs: its samples on stdout', async () => {
    const file = scenario('run.yaml', await starter([]));
    const result = await svc(['run', file, '--duration', '1s', '--quiet']);
    expect(result.code, result.stderr).to.equal(0);
    const samples = lines(result.stdout);
    expect(samples).to.have.length(2);
    for (const sample of samples)
      expect(sample).to.match(/^app_cpu_usage_percent\{env="dev",service="checkout"\} [\d.]+ \d+$/);
  });

  it('comments every field it writes, and the optional fields it leaves out are real: each one, uncommented, validates', async () => {
    const text = await starter(['--signal', 'histogram']);
    const entry = text.slice(text.indexOf('  - signal_type'));
    for (const line of entry.split('\n').filter((l) => /^\s+(- )?\w+:/.test(l)))
      expect(line, 'a field without its comment').to.include(' # ');
    const optional = entry
      .split('\n')
      .filter((line) =>
        /^ {4}# (dynamic_labels|gaps|bursts|cardinality_spikes|phase_offset|start_time|on_sink_error|distribution):/.test(
          line,
        ),
      );
    expect(optional.length).to.be.at.least(7);
    for (const [i, line] of optional.entries()) {
      const field = line.slice(6).split(':')[0]!;
      // The field replaces one of the same name, and says so (uncommented beside it, the key would be a duplicate),
      // else it is added.
      if (new RegExp(`^    ${field}:`, 'm').test(text))
        expect(line, 'an alternative to a field written above').to.include(`instead of the ${field} above`);
      const edited = text.replace(new RegExp(`^    ${field}:.*\\n`, 'm'), '').replace(line, `    ${line.slice(6)}`);
      await expectValid(`optional-${i}.yaml`, edited);
    }
  });

  it('fills the required fields of every sink kind with placeholders that validate, with the encoder the sink takes', async () => {
    for (const kind of SINK_KINDS) {
      const signal = kind.carries.includes('metrics') ? 'metrics' : 'logs';
      const text = await starter(['--signal', signal, '--sink', kind.type]);
      const [entry] = loadScenario(text, { origin: kind.type }).scenarios;
      expect(entry!.sink.type).to.equal(kind.type);
      expect(entry!.encoder.type, kind.type).to.equal(kind.encoders?.[0] ?? 'metrics_text');
      if (kind.address) expect(text, kind.type).to.match(/placeholders? to replace/);
    }
  });

  it('writes a logs starter for the logstore sink that validates: its labels make the streams', async () => {
    const text = await starter(['--signal', 'logs', '--sink', 'logstore']);
    expect(loadScenario(text, { origin: 'logs' }).scenarios[0]!.labels).to.deep.equal({
      service: 'checkout',
      env: 'dev',
    });
  });

  it('takes --encoder, and the sink and encoder together for logs', async () => {
    const text = await starter(['--signal', 'logs', '--sink', 'udp', '--encoder', 'syslog']);
    expect(text).to.include('encoder: { type: syslog }').and.include('sink: { type: udp, address: 127.0.0.1:9000 }');
    expect(familyOf(loadScenario(text, { origin: 'logs' }).scenarios[0]!.signal_type)).to.equal('logs');
  });

  it('writes -o into a file, refuses an existing one without --force, replaces it with --force', async () => {
    const file = join(dir, 'out.yaml');
    const first = await svc(['new', '--signal', 'summary', '-o', file]);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.equal('');
    expect(first.stderr).to.include(`wrote ${file}`);
    expect(readFileSync(file, 'utf8')).to.include('signal_type: summary');
    expect(await usageError(['new', '-o', file])).to.equal(
      `Usage Error: -o: ${file} exists: give --force to replace it`,
    );
    expect(readFileSync(file, 'utf8')).to.include('signal_type: summary');
    expect((await svc(['new', '--signal', 'logs', '-o', file, '--force'])).code).to.equal(0);
    expect(readFileSync(file, 'utf8')).to.include('signal_type: logs');
  });

  it('takes -o - as standard output (svc new, schema and run alike), not as a file named -', async () => {
    const dash = join(process.cwd(), '-');
    try {
      const gauge = scenario(
        'dash.yaml',
        'version: 2\nkind: runnable\nscenarios:\n  - { signal_type: metrics, name: up, rate: 10, duration: 300ms, generator: { type: constant, value: 1 } }\n',
      );
      const cases: [string[], (stdout: string) => void][] = [
        [['new', '-o', '-'], (stdout: string) => expect(stdout).to.match(/^# yaml-language-server/)],
        [['schema', '-o', '-'], (stdout: string) => expect(JSON.parse(stdout)).to.have.property('$schema')],
        [['run', gauge, '-o', '-'], (stdout: string) => expect(lines(stdout)).to.have.length(3)],
      ];
      for (const [argv, wrote] of cases) {
        const result = await svc(argv);
        expect(result.code, result.stderr).to.equal(0);
        // Before: a file named - in the working directory, and 'wrote - (check it: svc run - --dry-run)', which
        // would read standard input.
        expect(existsSync(dash), argv.join(' ')).to.equal(false);
        expect(result.stderr).to.not.include('wrote -');
        wrote(result.stdout);
      }
    } finally {
      rmSync(dash, { force: true });
    }
  });

  it('exits 1 when the file of -o cannot be written', async () => {
    const blocked = join(scenario('blocker', ''), 'out.yaml');
    const result = await svc(['new', '-o', blocked]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(
      /^error: -o: cannot write .*blocker\/out\.yaml: a part of .*blocker is a file, not a directory$/m,
    );
  });

  it('says why a file of -o, --svg or --png cannot be written, naming the option (svc new, schema and plot alike)', async () => {
    const dir = join(scenario('target', ''), '..');
    const isDirectory = 'it is a directory; path must name a file';
    for (const [argv, option, path, why] of [
      [['new', '-o', dir, '--force'], '-o', dir, isDirectory],
      [['new', '-o', dir], '-o', dir, isDirectory],
      [['schema', '-o', dir], '-o', dir, isDirectory],
      [['plot', 'examples/quickstart.yaml', '--svg', dir], '--svg', dir, isDirectory],
      [
        ['schema', '-o', 'new-dir/'],
        '-o',
        'new-dir/',
        'it ends with /, which names a directory; path must name a file',
      ],
      [
        ['schema', '-o', '/nonexistent/x.json'],
        '-o',
        '/nonexistent/x.json',
        'the directory /nonexistent does not exist',
      ],
    ] as const) {
      const result = await svc([...argv]);
      expect(result.code, argv.join(' ')).to.equal(1);
      expect(result.stderr, argv.join(' ')).to.equal(`error: ${option}: cannot write ${path}: ${why}\n`);
    }
  });
});

describe('svc new --from FILE.csv', () => {
  const csv = (name: string, rows: string[]) => scenario(name, `${rows.join('\n')}\n`);

  it('writes a scenario whose generators reproduce the columns: it validates and runs', async () => {
    const rows = [
      'time,"{__name__=""load"", host=""a""}"',
      ...Array.from(
        { length: 240 },
        (_, i) => `${1714557600 + i * 15},${(50 + 20 * Math.sin((2 * Math.PI * i * 15) / 900)).toFixed(4)}`,
      ),
    ];
    const file = csv('load.csv', rows);
    const text = await starter(['--from', file]);
    expect(text.split('\n')[0]).to.equal(SCHEMA_MODELINE);
    const [entry] = loadScenario(text, { origin: 'fitted.yaml' }).scenarios;
    expect(entry).to.deep.include({ name: 'load', labels: { host: 'a' } });
    const generator = entry!.generator as { type: string; period_secs: number; amplitude: number };
    expect(generator.type).to.equal('sine');
    expect(generator.period_secs).to.be.closeTo(900, 900 * 0.02);
    expect(generator.amplitude).to.be.closeTo(20, 1);
    const out = join(dir, 'fitted.yaml');
    expect((await svc(['new', '--from', file, '-o', out])).code).to.equal(0);
    const run = await svc(['run', out, '--duration', '100ms', '--rate', '50']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)[0]).to.match(/^load\{host="a"\} [\d.]+ \d{13}$/);
  });

  it('names a column whose header another shares by its position: each column one entry, one series', async () => {
    const file = csv('twice.csv', ['Time,a,a', '1,1,2', '2,3,4', '3,8,1']);
    const out = join(dir, 'twice.yaml');
    expect((await svc(['new', '--from', file, '-o', out])).code).to.equal(0);
    const entries = loadScenario(readFileSync(out, 'utf8'), { origin: out }).scenarios;
    expect(entries.map((entry) => (entry.generator as { columns?: unknown }).columns)).to.deep.equal([
      [{ index: 1 }],
      [{ index: 2 }],
    ]);
    const plan = await svc(['run', out, '--dry-run']);
    expect(plan.stderr).to.include('Validation: OK (2 scenarios)');
  });

  it('exits 1 naming a CSV it cannot read or parse', async () => {
    const missing = await svc(['new', '--from', join(dir, 'nope.csv')]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/nope\.csv: cannot read the --from file \(no such file\)/);
    const broken = await svc(['new', '--from', csv('broken.csv', ['time,load', '0,high'])]);
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.match(
      /broken\.csv: line 2, column 2 \(load\): expected a finite decimal number \(NaN, infinities and values beyond ±1\.8e308 are not replayed\), got "high"/,
    );
  });
});

describe('svc new --from a saved exposition', () => {
  it('profiles a scrape saved in a file as the URL would be, with the sink asked for; a target without http:// is named as such', async () => {
    const saved = scenario(
      'scrape.txt',
      '# HELP up Whether the target is up.\n# TYPE up gauge\nup{job="node",instance="a:9100"} 1\nload1{cpu="0"} 0.5\n',
    );
    const text = await starter(['--from', saved, '--sink', 'remote_write']);
    expect(text).to.include(`read from ${saved}`);
    const { scenarios } = loadScenario(text, { origin: 'profiled.yaml' });
    expect(scenarios.map((e) => [e.name, e.metric_type, e.labels, e.sink.type])).to.deep.equal([
      ['up', 'gauge', { instance: 'a:9100', job: 'node' }, 'remote_write'],
      ['load1', 'untyped', { cpu: '0' }, 'remote_write'],
    ]);
    expect(await usageError(['new', '--from', 'admin:secret@127.0.0.1:9100/metrics'])).to.equal(
      'Usage Error: --from admin:***@127.0.0.1:9100/metrics: no such file; a URL starts with http:// or https://',
    );
  });

  it('says the real read error of a path shaped like a target that is there (a directory), not "no such file"', async () => {
    const cwd = process.cwd();
    mkdirSync(join(dir, 'node:9100', 'metrics'), { recursive: true });
    process.chdir(dir);
    try {
      const result = await svc(['new', '--from', 'node:9100/metrics']);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal('error: node:9100/metrics: cannot read the --from file (it is a directory)\n');
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('svc new: usage errors (exit 2)', () => {
  it('name the flag and the values it takes, from the registries', async () => {
    expect(await usageError(['new', '--signal', 'spans'])).to.equal(
      'Usage Error: --signal: expected one of metrics, logs, histogram, summary, traces, got "spans"',
    );
    const sinks = [...SINK_TYPES, ...Object.keys(SINK_ALIASES)];
    expect(await usageError(['new', '--sink', 'kafak'])).to.equal(
      `Usage Error: --sink: expected one of ${sinks.join(', ')}, got "kafak"`,
    );
    const encoders = [...ENCODER_TYPES, ...Object.keys(ENCODER_ALIASES)];
    expect(await usageError(['new', '--encoder', 'xml'])).to.equal(
      `Usage Error: --encoder: expected one of ${encoders.join(', ')}, got "xml"`,
    );
  });

  it('take the aliases of kinds, and write the kind they name', async () => {
    const text = await starter(['--sink', 'kafka', '--encoder', 'prometheus_text']);
    expect(text).to.match(/^ {4}sink: \{ type: broker, /m);
    expect(text).to.match(/^ {4}encoder: \{ type: metrics_text/m);
  });

  it('refuse an encoder and a sink the validator refuses together, with its message naming the field', async () => {
    expect(await usageError(['new', '--signal', 'logs', '--encoder', 'metrics_text'])).to.match(
      /^Usage Error: --encoder metrics_text: scenarios\[0\] \(app_logs\): encoder\.type: metrics_text cannot encode a logs entry/,
    );
    expect(await usageError(['new', '--sink', 'remote_write', '--encoder', 'json_lines'])).to.match(
      /sink\.type: the remote_write sink needs the remote_write encoder, got encoder json_lines/,
    );
    expect(await usageError(['new', '--signal', 'logs', '--sink', 'remote_write'])).to.match(
      /sink\.type: remote_write carries metrics only/,
    );
  });

  it('refuse --sink with --from FILE.csv, --signal with --from, and --force without -o', async () => {
    const csv = scenario('sink.csv', 'time,load\n0,1\n');
    expect(await usageError(['new', '--from', csv, '--sink', 'file'])).to.match(
      /^Usage Error: --sink and --encoder go with starters, --from URL and a saved exposition/,
    );
    expect(await usageError(['new', '--from', 'http://127.0.0.1:9/metrics', '--signal', 'logs'])).to.match(
      /^Usage Error: --signal picks the signal of a starter/,
    );
    expect(await usageError(['new', '--force'])).to.equal(
      'Usage Error: --force replaces the file of -o: give -o <file> too',
    );
  });
});
