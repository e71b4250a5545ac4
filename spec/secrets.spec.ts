import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { scenarioDir, svc } from './support/cli.js';
import { testServer } from './support/server.js';

/** Every secret a sink configuration can carry, each a distinct word so a leak names itself. */
const SECRETS = ['hunter2', 'tok3n-value', 'k3y-value', 'pw-value'];
const sink = `sink:
      type: http_push
      url: http://admin:hunter2@127.0.0.1:1/api/v1/import
      headers: { Authorization: Bearer tok3n-value, X-Api-Key: k3y-value, X-Scope-OrgID: team-a }`;
const file = `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: up
    rate: 1
    duration: 1ms
    generator: { type: constant, value: 1 }
    ${sink}
`;

function expectMasked(text: string) {
  for (const secret of SECRETS) expect(text, `"${secret}" shown`).not.to.include(secret);
}

describe('secrets are never shown', () => {
  const { dir, scenario } = scenarioDir('svc-secrets-');

  it('by --dry-run and --verbose, which still show the rest of the sink', async () => {
    const path = scenario('secrets.yaml', file);
    for (const flag of ['--dry-run', '--verbose']) {
      const result = await svc(['run', path, flag]);
      expectMasked(result.stdout + result.stderr);
      expect(result.stderr, flag).to.include('http://admin:***@127.0.0.1:1/api/v1/import').and.include('team-a');
    }
  });

  it('by a validation message that quotes a URL', async () => {
    const path = scenario('bad-url.yaml', file.replace('http://admin', 'ftp://admin'));
    const result = await svc(['run', path, '--dry-run']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('sink.url');
    expectMasked(result.stderr);
  });

  it('by any error of the command line: a path or address it names, with or without a scheme', async () => {
    for (const argv of [
      ['new', '--from', 'ftp://admin:hunter2@x/metrics'],
      [
        'run',
        'examples/quickstart.yaml',
        '--sink',
        'remote_write',
        '--endpoint',
        'admin:hunter2@127.0.0.1:1',
        '--dry-run',
      ],
      ['run', 'examples/quickstart.yaml', '--sink', 'tcp', '--endpoint', 'admin:hunter2@127.0.0.1:1', '--dry-run'],
    ]) {
      const result = await svc(argv);
      expect(result.code, argv.join(' ')).to.not.equal(0);
      expect(result.stderr, argv.join(' ')).to.include('admin:***@');
      expectMasked(result.stdout + result.stderr);
    }
  });

  it('by a validation message about a secret of the wrong type (a YAML number or boolean)', async () => {
    const path = scenario(
      'number-secrets.yaml',
      file
        .replace('X-Api-Key: k3y-value', 'X-Api-Key: 8812733991')
        .replace('X-Scope-OrgID: team-a }', 'X-Scope-OrgID: team-a }\n      sasl_like: { password: 20240917 }'),
    );
    const result = await svc(['run', path, '--dry-run']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('sink.headers["X-Api-Key"]: invalid type: expected a string, got number ***');
    for (const secret of ['8812733991', '20240917']) expect(result.stderr).not.to.include(secret);
  });

  it('by svc catalog show, which keeps the file as written otherwise', async () => {
    const catalog = join(dir, 'catalog');
    mkdirSync(join(catalog, 'scenarios'), { recursive: true });
    writeFileSync(
      join(catalog, 'scenarios', 'pushed.yaml'),
      `# pushes to the shared VictoriaMetrics (was http://old:hunter2@vm:8428, Bearer tok3n-value)\n${file}    sasl: { mechanism: plain, username: svc, password: pw-value }\n`.replace(
        'kind: runnable',
        'kind: runnable\ndescription: "pushed to http://admin:hunter2@vm"',
      ),
    );
    const result = await svc(['catalog', 'show', '@pushed', '--catalog', catalog]);
    expectMasked(result.stdout + result.stderr);
    // The header's description, and the list of the catalog (text and JSON), too.
    expect(result.stdout.split('\n')[0]).to.include('pushed to http://admin:***@vm');
    for (const json of [[], ['--json']])
      expectMasked((await svc(['catalog', 'list', '--catalog', catalog, ...json])).stdout);
    expect(result.stdout)
      .to.include('# pushes to the shared VictoriaMetrics')
      .and.include('X-Scope-OrgID: team-a')
      .and.include('Authorization: "***"');
  });

  it('by the server: the answer and warnings of POST /scenarios, GET /scenarios/{id} and the log', async () => {
    const server = testServer();
    const posted = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: file.replace('duration: 1ms', 'duration: 1h'),
    });
    expect(posted.statusCode, posted.body).to.equal(201);
    expect(posted.json().warnings.join('\n')).to.include('http://admin:***@127.0.0.1:1');
    const shown = await server.request({ method: 'GET', url: `/scenarios/${posted.json().id}` });
    expect(shown.json().config.sink).to.deep.include({ url: 'http://admin:***@127.0.0.1:1/api/v1/import' });
    expect(shown.json().config.sink.headers).to.deep.equal({
      Authorization: '***',
      'X-Api-Key': '***',
      'X-Scope-OrgID': 'team-a',
    });
    expectMasked(posted.body + shown.body + JSON.stringify(server.logs));
  });
});
