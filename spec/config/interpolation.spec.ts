import { expect } from 'chai';
import { Readable } from 'node:stream';
import { ConfigError, loadScenario, loadScenarioFile } from '../../lib/config/index.js';
import { MAX_TEXT_BYTES } from '../../lib/language/limits.js';
import { scenarioDir, svc } from '../support/cli.js';
import { testServer } from '../support/server.js';
import { bodyVariables } from '../../lib/server/body.js';

const entry = (name: string, extra = '') => `signal_type: metrics
name: ${name}
rate: 1
generator: { type: constant, value: 1 }
${extra}`;

const load = (text: string, variables: Record<string, string | undefined>) =>
  loadScenario(text, { origin: 'test.yaml', variables });

function failure(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('environment interpolation in scenario text', () => {
  it('replaces ${VAR} by its value, before parsing', () => {
    const file = load(entry('${METRIC}', 'labels: { region: "${REGION}" }'), {
      METRIC: 'cpu_usage',
      REGION: 'eu-west',
    });
    expect(file.scenarios[0]!.name).to.equal('cpu_usage');
    expect(file.scenarios[0]!.labels).to.deep.equal({ region: 'eu-west' });
  });

  it('uses the default of ${VAR:-default} when the variable is unset or empty', () => {
    const file = load(entry('m', 'labels: { a: "${A:-one}", b: "${B:-two}", c: "${C:-}" }'), { B: '', C: undefined });
    expect(file.scenarios[0]!.labels).to.deep.equal({ a: 'one', b: 'two', c: '' });
  });

  it('writes $$ as a literal $, and leaves a lone $ alone', () => {
    const file = load(entry('m', 'labels: { price: "$$5", note: "a $ b", ref: "$${X}" }'), {});
    expect(file.scenarios[0]!.labels).to.deep.equal({ price: '$5', note: 'a $ b', ref: '${X}' });
  });

  it('refuses an unset variable, naming it and its line', () => {
    const error = failure(() => load(entry('m', 'labels:\n  region: "${REGION}"'), {}));
    expect(error.kind).to.equal('syntax');
    expect(error.message).to.equal(
      'test.yaml: line 6: environment variable REGION is not set (give it a value, or a default: ${REGION:-value})',
    );
  });

  it('refuses an unclosed ${ and a bad variable name, with their lines', () => {
    expect(failure(() => load(entry('m', 'help: "${OOPS"'), {})).message).to.match(
      /^test\.yaml: line 5: unclosed \$\{: write \$\{NAME\}, or \$\$ for a literal \$/,
    );
    expect(failure(() => load(entry('${1X}'), {})).message).to.match(/^test\.yaml: line 2: invalid variable name "1X"/);
  });

  it('bounds the expanded text by the size limit of a text', () => {
    const big = 'x'.repeat(64 * 1024);
    const text = entry('m', `help: "${'${BIG}'.repeat(20)}"`);
    const error = failure(() => load(text, { BIG: big }));
    expect(error.message).to.include(`larger than ${MAX_TEXT_BYTES} bytes once its variables are expanded`);
  });

  it('leaves text alone when no variables are given (texts svc writes itself)', () => {
    const file = loadScenario(entry('m', 'help: "${NOT_EXPANDED}"'), { origin: 'flags' });
    expect(file.scenarios[0]!.help).to.equal('${NOT_EXPANDED}');
  });

  it('expands files and standard input from the environment of svc', async () => {
    const { scenario } = scenarioDir('svc-interp-');
    const path = scenario('env.yaml', entry('${METRIC}'));
    const env = { ...process.env, METRIC: 'from_env' };
    const fromFile = await svc(['run', '--dry-run', path], { env });
    expect(fromFile.code, fromFile.stderr).to.equal(0);
    expect(fromFile.stderr).to.include('from_env');
    const fromStdin = await svc(['run', '--dry-run', '-'], { env, stdin: Readable.from([entry('${METRIC}')]) });
    expect(fromStdin.code, fromStdin.stderr).to.equal(0);
    expect(fromStdin.stderr).to.include('from_env');
    const unset = await svc(['run', '--dry-run', path], { env: { PATH: process.env.PATH } });
    expect(unset.code).to.equal(1);
    expect(unset.stderr).to.include('line 2: environment variable METRIC is not set');
    expect(unset.stderr).not.to.match(/\n\s+at /);
  });

  it('expands loadScenarioFile from the variables given', async () => {
    const { scenario } = scenarioDir('svc-interp-');
    const path = scenario('given.yaml', entry('${M}'));
    expect((await loadScenarioFile(path, { variables: { M: 'given' } })).scenarios[0]!.name).to.equal('given');
  });

  it('masks a secret from the environment in dry-run output as any secret', async () => {
    const { scenario } = scenarioDir('svc-interp-');
    const path = scenario(
      'secret.yaml',
      entry(
        'm',
        'sink:\n  type: http_push\n  url: "http://user:${PASS}@127.0.0.1:9/push"\n  headers: { Authorization: "Bearer ${TOKEN}" }',
      ),
    );
    const res = await svc(['run', '--dry-run', path], {
      env: { ...process.env, PASS: 's3cr3t-pass', TOKEN: 's3cr3t-token' },
    });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr + res.stdout).not.to.include('s3cr3t');
  });

  it('expands a request body from the SVC_ENV_ variables of svc-server only, without the prefix', async () => {
    expect(bodyVariables({ SVC_ENV_REGION: 'eu-west', SVC_API_KEY: 'key', HOME: '/root' })).to.deep.equal({
      REGION: 'eu-west',
    });
    const server = testServer({ deps: { variables: { REGION: 'eu-west' } } });
    const res = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: entry('m', 'labels: { region: "${REGION}" }'),
    });
    expect(res.statusCode, res.body).to.equal(201);
    const unset = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: entry('m', 'labels: { region: "${HOME}" }'),
    });
    expect(unset.statusCode).to.equal(400);
    expect(unset.json().detail).to.equal(
      'line 5: environment variable HOME is not set (give it a value, or a default: ${HOME:-value})',
    );
  });
});
