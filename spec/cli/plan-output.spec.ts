import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lines, scenarioDir, svc } from '../support/cli.js';

const twoOfOneName = `
version: 2
kind: runnable
scenarios:
  - {signal_type: metrics, name: up, rate: 10, duration: 300ms, generator: {type: constant, value: 1}, labels: {zone: a}}
  - signal_type: metrics
    name: up
    rate: 10
    duration: 300ms
    phase_offset: 100ms
    generator: {type: constant, value: 2}
    labels: {zone: b}
    sink: {type: http_push, url: "http://127.0.0.1:9/push", headers: {Authorization: Bearer s3cret-token}}
`;

describe('svc run --dry-run of files written for other tools', () => {
  const { scenario } = scenarioDir('svc-plan-compat-');

  it('shows a single entry beside version: 2 as the one entry it is, with the canonical kind names', async () => {
    const file = scenario(
      'single.yaml',
      'version: 2\nkind: runnable\nsignal_type: logs\nname: app\nrate: 1\nlog_generator: {type: template, templates: [{message: hi}]}\nlabels: {job: app}\nsink: {type: loki, url: "http://127.0.0.1:3100"}\n',
    );
    const result = await svc(['run', '--dry-run', file]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include('entry 1: app\n');
    expect(result.stderr).to.match(/^ {2}sink: +logstore url=http:\/\/127\.0\.0\.1:3100/m);
    expect(result.stderr).to.include('Validation: OK (1 scenario)');
    const json = JSON.parse((await svc(['run', '--dry-run', '--format', 'json', file])).stdout);
    expect(
      json.entries.map((e: { id: string; config: { sink: { type: string } } }) => [e.id, e.config.sink.type]),
    ).to.deep.equal([['app', 'logstore']]);
  });
});

describe('svc run --dry-run of span metrics', () => {
  it('shows their rate as the interval they are written at, not as a fraction of an event a second', async () => {
    const result = await svc(['run', '--dry-run', join(import.meta.dirname, '../../examples/incident.yaml')]);
    expect(result.code, result.stderr).to.equal(0);
    const rates = result.stderr.split('\n').filter((line) => line.startsWith('  rate:'));
    expect(rates.map((line) => line.replace(/ +/g, ' '))).to.deep.equal([
      ' rate: 10/s',
      ' rate: every 15s (span_metrics.interval)',
      ' rate: every 15s (span_metrics.interval)',
      ' rate: 2/s',
    ]);
    // Their exemplars are on the duration buckets: the calls carry none.
    expect(result.stderr.split('\n').filter((line) => line.startsWith('  generator:    span metrics'))).to.deep.equal([
      '  generator:    span metrics (calls) of checkout',
      '  generator:    span metrics (duration) of checkout, with exemplars',
    ]);
  });
});

describe('svc run --dry-run of clock groups linked by the spans entries name', () => {
  const { scenario } = scenarioDir('svc-plan-spans-');
  const traces = `
  - {id: checkout, name: checkout, signal_type: traces, rate: 1, duration: 1s, trace_generator: {root: {service: shop, operation: GET /, kind: server}}}`;
  const logs = (extra: string) => `
  - {id: errs, name: errs, signal_type: logs, rate: 1, duration: 1s, log_generator: {type: template, templates: [{message: hi}]},
     trace_context: {from: checkout}${extra}}`;
  const cpu = `
  - {id: cpu, signal_type: metrics, name: cpu, rate: 10, duration: 1s, generator: {type: step, start: 0, step_size: 1}}`;

  for (const [what, entries, linkedBy, text] of [
    ['spans', traces + logs(''), ['spans'], 'the spans they name'],
    [
      'after and spans',
      traces + cpu + logs(", after: {ref: cpu, op: '>', value: 2}"),
      ['after', 'spans'],
      'after and the spans they name',
    ],
  ] as const) {
    it(`says the group is linked by ${what}, in text and as linked_by in JSON`, async () => {
      const file = scenario(`${what.replace(/ /g, '-')}.yaml`, `version: 2\nkind: runnable\nscenarios:${entries}\n`);
      const result = await svc(['run', '--dry-run', file]);
      expect(result.code, result.stderr).to.equal(0);
      const members = linkedBy.length === 1 ? 'checkout, errs' : 'checkout, cpu, errs';
      expect(result.stderr).to.include(`  chain_checkout (automatic: linked by ${text}): ${members}; start_time now\n`);
      const plan = JSON.parse((await svc(['run', '--dry-run', '--format', 'json', file])).stdout);
      expect(plan.clock_groups).to.deep.equal([
        {
          name: 'chain_checkout',
          automatic: true,
          linked_by: linkedBy,
          members: members.split(', '),
          start_time: 'now',
        },
      ]);
    });
  }
});

describe('svc run --format json and -o', () => {
  const { dir, scenario } = scenarioDir('svc-plan-output-');

  it('--dry-run --format json prints the resolved plan as JSON on stdout: ids, starts, configuration, secrets redacted', async () => {
    const result = await svc(['run', '--dry-run', '--format', 'json', scenario('two.yaml', twoOfOneName)]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.not.include('s3cret-token');
    const plan = JSON.parse(result.stdout);
    expect(plan).to.include({ version: 2, kind: 'runnable' });
    expect(plan.entries.map((e: { id: string }) => e.id)).to.deep.equal(['up', 'up#2']);
    expect(plan.entries[1].starts).to.deep.equal({
      kind: 'offset',
      at: 100,
      description: '100ms after the file start (phase offset)',
    });
    expect(plan.entries[0].config).to.deep.include({
      name: 'up',
      rate: 10,
      duration: 300,
      labels: { zone: 'a' },
      sink: { type: 'stdout' },
    });
    expect(plan.entries[1].config.sink.url).to.equal('http://127.0.0.1:9/push');
    expect(plan.clock_groups).to.deep.equal([]);
    expect(lines(result.stderr)).to.deep.equal(['Validation: OK (2 scenarios)']);
  });

  it('--dry-run shows the series each entry may write, as many as a run writes once every label set came', async () => {
    const out = join(dir, 'series.txt');
    const file = scenario(
      'series.yaml',
      `version: 2
kind: runnable
scenarios:
  - {id: g, signal_type: metrics, name: g, rate: 100, duration: 300ms, generator: {type: constant, value: 1},
     dynamic_labels: [{key: pod, cardinality: 3}, {key: zone, cardinality: 2}], sink: {type: file, path: ${out}}}
  - {id: h, signal_type: histogram, name: h, rate: 100, duration: 300ms, distribution: {type: normal, mean: 1, stddev: 0.1},
     dynamic_labels: [{key: pod, cardinality: 2}], sink: {type: file, path: ${out}}}
  - {id: one, signal_type: histogram, name: one, rate: 100, duration: 300ms, distribution: {type: normal, mean: 1, stddev: 0.1},
     buckets: [1], sink: {type: file, path: ${out}}}
`,
    );
    const text = await svc(['run', '--dry-run', file]);
    expect(text.stderr).to.match(/^ {2}series: +up to 6$/m);
    expect(text.stderr).to.match(/^ {2}series: +up to 28 \(2 label sets × 14 samples per event\)$/m);
    expect(text.stderr).to.match(/^ {2}series: +up to 4 \(1 label set × 4 samples per event\)$/m);
    const plan = JSON.parse((await svc(['run', '--dry-run', '--format', 'json', file])).stdout);
    expect(plan.entries.map((e: { series: number }) => e.series)).to.deep.equal([6, 28, 4]);
    const run = await svc(['run', '--workers', '1', file]);
    expect(run.code, run.stderr).to.equal(0);
    const written = new Set(lines(readFileSync(out, 'utf8')).map((line) => line.split(' ')[0]));
    expect(written.size).to.equal(6 + 28 + 4);
  });

  it('refuses --format json without --dry-run, and an unknown format, with exit code 2', async () => {
    const file = scenario('plain.yaml', twoOfOneName);
    const withoutDryRun = await svc(['run', '--format', 'json', file]);
    expect(withoutDryRun.code).to.equal(2);
    expect(withoutDryRun.stderr).to.include('--format json prints the plan of --dry-run: give --dry-run too');
    const unknown = await svc(['run', '--dry-run', '--format', 'yaml', file]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include('--format: expected one of text, json, got "yaml"');
  });

  it('-o PATH writes every entry to that file, as --sink file --endpoint PATH does', async () => {
    const out = join(dir, 'out.prom');
    const file = scenario('stdout.yaml', twoOfOneName.replace(/ {4}sink: .*\n/, ''));
    const result = await svc(['run', '-q', file, '-o', out]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal('');
    expect(
      lines(readFileSync(out, 'utf8'))
        .map((line) => line.split(' ').slice(0, 2).join(' '))
        .sort(),
    ).to.deep.equal([
      'up{zone="a"} 1',
      'up{zone="a"} 1',
      'up{zone="a"} 1',
      'up{zone="b"} 2',
      'up{zone="b"} 2',
      'up{zone="b"} 2',
    ]);
    const both = await svc(['run', file, '--output', out, '--sink', 'stdout']);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include('-o/--output is short for --sink file --endpoint <file>: give either, not both');
  });

  it('names -o/--output, the flag given, in the problem of its path (not --endpoint, which it stands for)', async () => {
    const file = scenario('named.yaml', twoOfOneName);
    for (const [flag, named] of [
      ['-o', '-o/--output'],
      ['--output', '-o/--output'],
      ['--endpoint', '--endpoint'],
    ]) {
      const argv = ['run', file, flag, '', ...(flag === '--endpoint' ? ['--sink', 'file'] : [])];
      const result = await svc(argv);
      expect(result, argv.join(' ')).to.include({
        code: 1,
        stdout: '',
        stderr: `error: ${file}: ${named}: expected a path of 1 to 4096 characters, got ""\n`,
      });
    }
  });
});

describe('svc run --dry-run of a traces entry', () => {
  const { scenario } = scenarioDir('svc-plan-traces-');

  it('lists every service a span runs in, those only its calls name too', async () => {
    const file = scenario(
      'traces.yaml',
      `version: 2
kind: runnable
scenarios:
  - signal_type: traces
    name: checkout
    rate: 1
    trace_generator:
      services: {frontend: {version: 1.0.0}}
      root:
        service: frontend
        operation: GET /checkout
        kind: server
        calls:
          - service: payment
            operation: POST /pay
            kind: client
            duration: 0.01
            calls: [{service: ledger, operation: write, kind: producer, duration: 0.001}]
`,
    );
    const result = await svc(['run', '--dry-run', file]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(
      /^ {2}generator: +trace from frontend GET \/checkout \(server\), services frontend, payment, ledger;/m,
    );
  });
});
