import { expect } from 'chai';
import { svc, lines, scenarioDir } from '../support/cli.js';

const { scenario } = scenarioDir('svc-metrics-');
const gauge = scenario(
  'gauge.yaml',
  'version: 2\nkind: runnable\nscenarios:\n  - { signal_type: metrics, name: temp, rate: 20, duration: 300ms, generator: { type: constant, value: 21.5 } }\n',
);

/** The entry `svc metrics` builds from `flags`, as --dry-run --format json prints it. */
async function entryOf(flags: string[]): Promise<Record<string, unknown>> {
  const result = await svc(['metrics', '--name', 'cpu', '--rate', '2', ...flags, '--dry-run', '--format', 'json']);
  expect(result.code, result.stderr).to.equal(0);
  return JSON.parse(result.stdout).entries[0].config;
}

describe('svc metrics', () => {
  it('emits a constant gauge defined by flags', async () => {
    const result = await svc(['metrics', '--name', 'up', '--rate', '10', '--duration', '0.3s', '--label', 'job=demo']);
    expect(result.code).to.equal(0);
    const out = lines(result.stdout);
    expect(out).to.have.length(3);
    for (const line of out) expect(line).to.match(/^up\{job="demo"\} 1 \d{13}$/);
  });

  it('takes --value, and validates the name like a file entry', async () => {
    const ok = await svc(['metrics', '--name', 'temp', '--value=-3.25', '--rate', '10', '--duration', '100ms']);
    expect(lines(ok.stdout)[0]).to.match(/^temp -3\.25 \d{13}$/);
    const bad = await svc(['metrics', '--name', '1bad', '--rate', '10']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/name: .*\[a-zA-Z_:\]\[a-zA-Z0-9_:\]\*/);
  });

  it('runs a file with --scenario and overrides', async () => {
    const result = await svc(['metrics', '--scenario', gauge, '--rate', '10']);
    expect(result.code).to.equal(0);
    expect(lines(result.stdout)).to.have.length(3);
  });

  it('exits 2 when the metric is not defined', async () => {
    for (const argv of [
      ['metrics', '--rate', '1'],
      ['metrics', '--name', 'x'],
      ['metrics', '--name', 'x', '--rate', '1', '--value', 'abc'],
      ['metrics', '--scenario', gauge, '--name', 'x'],
    ]) {
      expect((await svc(argv)).code, argv.join(' ')).to.equal(2);
    }
  });

  it("takes the reference tool's --value-mode and the flags of each generator, with its defaults", async () => {
    expect((await entryOf([])).generator).to.deep.equal({ type: 'constant', value: 1 });
    expect((await entryOf(['--value-mode', 'sine', '--amplitude', '50', '--offset', '50'])).generator).to.deep.equal({
      type: 'sine',
      amplitude: 50,
      period_secs: 60,
      offset: 50,
    });
    expect((await entryOf(['--value-mode', 'sawtooth', '--max', '10', '--period-secs', '5'])).generator).to.deep.equal({
      type: 'sawtooth',
      min: 0,
      max: 10,
      period_secs: 5,
    });
    const uniform = await entryOf(['--value-mode', 'uniform', '--seed', '7', '--jitter', '0.5', '--jitter-seed', '3']);
    expect(uniform.generator).to.deep.equal({ type: 'uniform', min: 0, max: 1, seed: 7 });
    expect([uniform.jitter, uniform.jitter_seed]).to.deep.equal([0.5, 3]);
  });

  it('writes the wave the flags describe', async () => {
    const result = await svc([
      'metrics',
      '--name',
      'cpu',
      '--rate',
      '2',
      '--duration',
      '1600ms',
      '--value-mode',
      'sine',
      '--amplitude',
      '50',
      '--offset',
      '50',
      '--period-secs',
      '4',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    const values = lines(result.stdout).map((line) => Number(line.split(' ')[1]).toFixed(3));
    expect(values).to.deep.equal(['50.000', '85.355', '100.000', '85.355']);
  });

  it('refuses a generator flag the mode does not take, or beside --scenario, naming it', async () => {
    const sine = await svc(['metrics', '--name', 'cpu', '--rate', '1', '--value-mode', 'sine', '--value', '3']);
    expect(sine.code).to.equal(2);
    expect(sine.stderr).to.include(
      'Usage Error: --value does not apply to --value-mode sine, which takes --amplitude, --period-secs, --offset',
    );
    const mode = await svc(['metrics', '--name', 'cpu', '--rate', '1', '--value-mode', 'cosine']);
    expect(mode.stderr).to.include('--value-mode: expected one of constant, sine, sawtooth, uniform, got "cosine"');
    const file = await svc(['metrics', '--scenario', 'examples/quickstart.yaml', '--amplitude', '3']);
    expect(file.code).to.equal(2);
    expect(file.stderr).to.include('--amplitude: these flags define a metric, they cannot be combined with --scenario');
  });

  it('refuses --jitter-seed without --jitter, whose noise it seeds', async () => {
    const result = await svc(['metrics', '--name', 'cpu', '--rate', '1', '--duration', '100ms', '--jitter-seed', '3']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('Usage Error: --jitter-seed seeds the noise of --jitter: give --jitter <n> too');
  });

  it('help lists every --value-mode generator and, on each generator flag, the generators that take it', async () => {
    const { stdout } = await svc(['metrics', '--help']);
    expect(stdout).to.match(/--value-mode <mode> +Generator: constant, sine, sawtooth, uniform \(default: constant\)/);
    expect(stdout).to.match(/--period-secs <n> +sine, sawtooth: seconds a period \(default: 60\)/);
    expect(stdout).to.match(/--seed <n> +uniform: seed of the values \(default: 0\)/);
  });

  it('names the flag of a generator field out of range', async () => {
    const result = await svc(['metrics', '--name', 'cpu', '--rate', '1', '--value-mode', 'uniform', '--min', '5']);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('--max (default 1): expected a number greater than min (5), got 1');
    const given = await svc([
      'metrics',
      '--name',
      'cpu',
      '--rate',
      '1',
      '--value-mode',
      'uniform',
      '--min',
      '5',
      '--max',
      '2',
    ]);
    expect(given.stderr).to.include('--max: expected a number greater than min (5), got 2');
  });
});
