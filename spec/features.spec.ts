import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServerProcess } from './support/server-process.js';
import { waitFor } from './support/backends/ports.js';
import { runSvc, upScenario } from './support/cli.js';
import { temporaryDirectory } from './support/directories.js';

const run = promisify(execFile);

/**
 * Build features (design §4): the protocol packages are optionalDependencies. An install with
 * `--omit=optional` lacks them, and a scenario that needs one is refused before it runs, naming
 * the feature and what to install. Checked on a real such install of the built tree.
 */
describe('an install without the optional packages (npm ci --omit=optional)', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = temporaryDirectory('svc-omit-optional-');
    // What the image holds (Dockerfile): the server reads its OpenAPI document.
    for (const item of ['package.json', 'package-lock.json', 'dist', 'bin', 'docs/openapi.json'])
      await cp(item, join(dir, item), { recursive: true });
    await run(
      'npm',
      ['ci', '--omit=optional', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
      { cwd: dir },
    );
    await writeFile(
      join(dir, 'rw.yaml'),
      upScenario('{ type: remote_write, url: "http://127.0.0.1:9/api/v1/write" }', ['rate: 1', 'duration: 1s']),
    );
    await writeFile(
      join(dir, 'kafka.yaml'),
      `version: 2
kind: runnable
scenarios:
  - signal_type: logs
    name: app
    rate: 1
    duration: 1s
    log_generator: { type: template, templates: [{ message: hello }] }
    sink: { type: broker, brokers: "127.0.0.1:9", topic: logs }
`,
    );
  });

  it('refuses a remote_write sink with exit 1, naming the feature and the packages to install', async () => {
    const failure = await runSvc(['run', 'rw.yaml', '--dry-run'], { cwd: dir });
    expect(failure.code).to.equal(1);
    expect(failure.stderr.split('\n')[0]).to.equal(
      'error: rw.yaml: scenarios[0] (up): sink.type: remote_write needs the build feature "remote-write", whose packages this installation lacks ' +
        '(protobufjs, snappy; an install with --omit=optional leaves them out): run npm install protobufjs snappy',
    );
  });

  it('refuses the OTLP sinks the same way, naming their packages', async () => {
    await writeFile(
      join(dir, 'otlp.yaml'),
      (await readFile(join(dir, 'rw.yaml'), 'utf8')).replace(
        '{ type: remote_write, url: "http://127.0.0.1:9/api/v1/write" }',
        '{ type: otlp_http, url: "http://127.0.0.1:9" }',
      ),
    );
    const failure = await runSvc(['run', 'otlp.yaml'], { cwd: dir });
    expect(failure.code).to.equal(1);
    expect(failure.stderr).to.include(
      'sink.type: otlp_http needs the build feature "otlp", whose packages this installation lacks (protobufjs, @grpc/grpc-js;',
    );
  });

  it('refuses a broker sink with exit 1, naming the feature and the package to install', async () => {
    const failure = await runSvc(['run', 'kafka.yaml'], { cwd: dir });
    expect(failure.code).to.equal(1);
    expect(failure.stderr.split('\n')[0]).to.equal(
      'error: kafka.yaml: scenarios[0] (app): sink.type: broker needs the build feature "kafka", whose packages this installation lacks ' +
        '(kafkajs; an install with --omit=optional leaves them out): run npm install kafkajs',
    );
  });

  it('svc-server answers 422 feature_not_built for such a scenario, naming the feature and the packages', async () => {
    const server = await startServerProcess({ cwd: dir });
    try {
      const body = await readFile(join(dir, 'rw.yaml'), 'utf8');
      const res = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body,
      });
      expect(res.status).to.equal(422);
      const answer = (await res.json()) as { error: string; detail: string };
      expect(answer.error).to.equal('feature_not_built');
      expect(answer.detail).to.include(
        'remote_write needs the build feature "remote-write", whose packages this installation lacks (protobufjs, snappy;',
      );
    } finally {
      server.kill();
    }
  });

  it('svc-server answers a scrape that prefers the protobuf exposition (protobufjs) in text', async () => {
    const server = await startServerProcess({ cwd: dir, quiet: true });
    try {
      const res = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body: 'signal_type: metrics\nname: up\nrate: 10\ngenerator: { type: constant, value: 1 }\nsink: { type: stdout }\n',
      });
      expect(res.status, await res.text()).to.equal(201);
      const accept = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';
      const scrape = await waitFor('a sample', async () => {
        const answer = await fetch(`${server.base}/scenarios/metrics`, { headers: { accept } });
        return answer.status === 200 ? answer : undefined;
      });
      expect(scrape.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
      expect(await scrape.text()).to.equal('# TYPE up gauge\nup 1\n');
    } finally {
      server.kill();
    }
  });

  it('still runs what needs no feature', async () => {
    const { code, stdout, stderr } = await runSvc(['metrics', '--name', 'up', '--rate', '10', '--duration', '200ms'], {
      cwd: dir,
    });
    expect(code, stderr).to.equal(0);
    expect(stdout).to.match(/^up 1 \d{13}\n/);
  });
});
