import { expect } from 'chai';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { foreverScenario, lines, runUntilTerm, scenarioDir, stoppedEvents, svc } from '../support/cli.js';

const { dir, scenario } = scenarioDir('svc-workers-');

/** A 10-pod gauge and a histogram over 4 pods, deterministic (absolute start_time, fixed seed), into `sink`. */
const mixed = (name: string, sink: string, encoder = 'metrics_text') =>
  scenario(
    name,
    `version: 2
kind: runnable
defaults:
  duration: 1s
  start_time: "2026-01-01T00:00:00Z"
  encoder: { type: ${encoder} }
  sink: ${sink}
scenarios:
  - signal_type: metrics
    name: pods_up
    rate: 2000
    dynamic_labels: [{ key: pod, cardinality: 10 }]
    generator: { type: sine, amplitude: 5, period_secs: 1, offset: 10 }
  - signal_type: histogram
    name: latency
    rate: 400
    seed: 7
    dynamic_labels: [{ key: pod, cardinality: 4 }]
    distribution: { type: exponential, rate: 10 }
    buckets: [0.05, 0.1, 0.5]
`,
  );

const sorted = (text: string) => lines(text).sort();

describe('svc run --workers', () => {
  it('--workers 2 writes the same lines into the file as --workers 1, and the same STOPPED counts', async () => {
    const out = join(dir, 'mixed.prom');
    const file = mixed('mixed.yaml', `{ type: file, path: ${out} }`);
    const one = await svc(['run', file, '--workers', '1']);
    expect(one.code, one.stderr).to.equal(0);
    const single = sorted(readFileSync(out, 'utf8'));
    const two = await svc(['run', file, '--workers', '2']);
    expect(two.code, two.stderr).to.equal(0);
    const sharded = sorted(readFileSync(out, 'utf8'));
    expect(single.length).to.be.greaterThan(1000);
    expect(sharded).to.deep.equal(single);
    for (const entry of ['pods_up', 'latency'])
      expect(stoppedEvents(two.stderr, entry), entry).to.equal(stoppedEvents(one.stderr, entry));
  });

  it("sends every worker's whole lines to stdout", async () => {
    const file = mixed('stdout.yaml', '{ type: stdout }');
    const one = await svc(['run', file]);
    const two = await svc(['run', file, '--workers', '2']);
    expect(two.code, two.stderr).to.equal(0);
    expect(sorted(two.stdout)).to.deep.equal(sorted(one.stdout));
  });

  it('runs no more workers than the file has series, and says so', async () => {
    const file = scenario(
      'two-series.yaml',
      `version: 2
kind: runnable
defaults: { duration: 300ms, sink: { type: stdout } }
scenarios:
  - { signal_type: metrics, name: up, rate: 20, dynamic_labels: [{ key: pod, cardinality: 2 }], generator: { type: constant, value: 1 } }
`,
    );
    const run = await svc(['run', file, '--workers', '8', '--verbose']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.include('[info] --workers 8: the file has 2 series, each written by one worker: running 2\n');
    expect(run.stderr).to.include('workers: 2\n');
    expect(stoppedEvents(run.stderr, 'up')).to.equal(6);
  });

  it("exits 1 when one worker's sink delivered nothing, though another's delivered", async () => {
    // A receiver that takes one connection and then listens no more: the other worker's connections are refused.
    const received: Buffer[] = [];
    const receiver = createServer((socket) => {
      receiver.close();
      socket.on('data', (data: Buffer) => received.push(data));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const file = scenario(
      'one-refused.yaml',
      `version: 2
kind: runnable
defaults: { duration: 500ms }
scenarios:
  - signal_type: metrics
    name: up
    rate: 20
    dynamic_labels: [{ key: pod, cardinality: 2 }]
    generator: { type: constant, value: 1 }
    sink: { type: tcp, address: "127.0.0.1:${port}", retry: { max_attempts: 2, initial_backoff: 10ms, max_backoff: 10ms } }
`,
    );
    const run = await svc(['run', file, '--workers', '2', '-q']);
    expect(received.length, 'what the first worker delivered').to.be.above(0);
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr).to.match(/^error: up: worker [12] of 2 delivered nothing of its series \(.*connection refused/m);
  });

  it('ends at its duration with fewer series than workers (a worker has none), traces too', async () => {
    const file = scenario(
      'lone.yaml',
      `version: 2
kind: runnable
defaults: { duration: 500ms, start_time: "2026-01-01T00:00:00Z", sink: { type: stdout } }
scenarios:
  - { signal_type: metrics, name: up, rate: 20, generator: { type: constant, value: 1 } }
  - signal_type: traces
    name: checkout
    rate: 20
    trace_generator: { root: { service: web, operation: GET /, kind: server } }
`,
    );
    const two = await svc(['run', file, '--workers', '2']);
    expect(two.code, two.stderr).to.equal(0);
    expect(stoppedEvents(two.stderr, 'up')).to.equal(10);
    expect(stoppedEvents(two.stderr, 'checkout')).to.equal(10);
  });

  it('refuses openmetrics into a file or stdout (one exposition) with exit 2, naming the entry', async () => {
    const result = await svc(['run', mixed('om.yaml', '{ type: stdout }', 'openmetrics'), '--workers', '2']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('--workers: pods_up writes openmetrics to stdout');
    expect(result.stdout).to.equal('');
  });

  for (const bad of ['0', '65', 'x']) {
    it(`refuses --workers ${bad} with exit 2, naming the flag and its range`, async () => {
      const result = await svc(['run', mixed('bad.yaml', '{ type: stdout }'), '--workers', bad]);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.contain(`--workers: expected a whole number from 1 to 64, got "${bad}"`);
      expect(result.stdout).to.equal('');
    });
  }

  it('without --workers runs a file planning 1,000,000 events/s or more on one worker per core, as --verbose says', async () => {
    const out = join(dir, 'default.prom');
    const file = foreverScenario(scenario, `{ type: file, path: ${out} }`, {
      rate: 1_000_000,
      pods: 10,
      extra: ['duration: 300ms'],
    });
    const result = await svc(['run', file, '--verbose']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.contain(`\nworkers: ${Math.min(availableParallelism(), 10)}\n`);
    expect(lines(readFileSync(out, 'utf8'))).to.have.length(stoppedEvents(result.stderr));
  });

  it('without --workers runs a file planning less on the main thread, and --workers 1 always', async () => {
    const slow = foreverScenario(scenario, '{ type: file, path: /dev/null }', {
      rate: 999_999,
      pods: 10,
      extra: ['duration: 100ms'],
    });
    const fast = foreverScenario(scenario, '{ type: file, path: /dev/null }', {
      rate: 1_000_000,
      pods: 10,
      extra: ['duration: 100ms'],
    });
    for (const args of [[slow], [fast, '--workers', '1']]) {
      const result = await svc(['run', ...args, '--verbose']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr, args.join(' ')).to.contain('\nworkers: 1\n');
    }
  });

  it('on SIGTERM stops every worker, exits 0 and leaves only whole lines in the file', async () => {
    const out = join(dir, 'forever.prom');
    const file = foreverScenario(scenario, `{ type: file, path: ${out} }`, { rate: 200_000, pods: 10 });
    const { code, stderr } = await runUntilTerm(
      file,
      () => (statSync(out, { throwIfNoEntry: false })?.size ?? 0) > 1_000_000,
      ['--workers', '2'],
    );
    expect(code, stderr).to.equal(0);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).to.equal(true);
    const written = lines(text);
    written.forEach((line) => expect(line).to.match(/^beat\{pod="pod_\d"\} \d+ \d+$/));
    expect(written).to.have.length(stoppedEvents(stderr));
  });
});
