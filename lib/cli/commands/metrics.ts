import { Command, UsageError } from 'clipanion';
import { flagChoice, flagNumber, valueFlag } from '../flags.js';
import type { CliOverrides } from '../../config/overrides.js';
import { ScenarioCommand } from './scenario-command.js';
import type { LoadedScenario } from './scenario-source-command.js';

/**
 * The generators `--value-mode` picks (the reference tool's modes), each with the flags it takes, the
 * field each writes and its default when left out (the reference tool's, but `--value`, svc's 1).
 */
const VALUE_MODES = {
  constant: { '--value': ['value', 1] },
  sine: { '--amplitude': ['amplitude', 1], '--period-secs': ['period_secs', 60], '--offset': ['offset', 0] },
  sawtooth: { '--min': ['min', 0], '--max': ['max', 1], '--period-secs': ['period_secs', 60] },
  uniform: { '--min': ['min', 0], '--max': ['max', 1], '--seed': ['seed', 0] },
} as const satisfies Record<string, Record<string, readonly [string, number]>>;
type ValueMode = keyof typeof VALUE_MODES;
/** Every generator flag of every mode. */
const GENERATOR_FLAGS = [...new Set(Object.values(VALUE_MODES).flatMap((flags) => Object.keys(flags)))];

/** `svc metrics`: one metric from flags alone, or a scenario file's metric entries with flag overrides. */
export class MetricsCommand extends ScenarioCommand {
  static override paths = [['metrics']];
  static override usage = Command.Usage({
    description: 'Emit one metric defined by flags, or run a scenario file with overrides',
    examples: [
      ['A constant gauge at 5 events/s for 10 s', '$0 metrics --name up --rate 5 --duration 10s'],
      [
        'With labels, into a file',
        '$0 metrics --name temp --value 21.5 --rate 1 --label room=lab --sink file --endpoint /tmp/temp.prom',
      ],
      [
        'A sine wave around 50, a minute a period, with noise',
        '$0 metrics --name cpu --rate 1 --value-mode sine --amplitude 20 --offset 50 --period-secs 60 --jitter 2',
      ],
      ['A file, faster', '$0 metrics --scenario examples/quickstart.yaml --rate 50'],
    ],
  });

  name = valueFlag('--name', '<name>', 'Metric name');
  valueMode = valueFlag('--value-mode', '<mode>', 'Generator: constant (default), sine, sawtooth or uniform');
  value = valueFlag('--value', '<n>', 'constant: the value (default: 1); a negative one is written --value=-3');
  amplitude = valueFlag('--amplitude', '<n>', 'sine: half the swing (default: 1)');
  periodSecs = valueFlag('--period-secs', '<n>', 'sine, sawtooth: seconds a period (default: 60)');
  offset = valueFlag('--offset', '<n>', 'sine: the middle of the wave (default: 0)');
  min = valueFlag('--min', '<n>', 'sawtooth, uniform: the lowest value (default: 0)');
  max = valueFlag('--max', '<n>', 'sawtooth, uniform: the value approached, never written (default: 1)');
  seed = valueFlag('--seed', '<n>', 'uniform: seed of the values (default: 0)');
  jitter = valueFlag('--jitter', '<n>', 'Uniform noise in [-n, n] added to every value (default: none)');
  jitterSeed = valueFlag('--jitter-seed', '<n>', 'Seed of the noise (default: 0)');
  scenario = valueFlag(
    '--scenario',
    '<file>',
    'Scenario file (- for standard input) to run instead of a flag-defined metric',
  );

  protected async load(overrides: CliOverrides): Promise<LoadedScenario> {
    const { loadScenario } = await import('../../config/load.js');
    if (this.scenario) {
      const given = ['--name', '--value-mode', ...GENERATOR_FLAGS, '--jitter', '--jitter-seed'].filter(
        (flag) => this.flagText(flag) !== undefined,
      );
      if (given.length > 0)
        throw new UsageError(
          `${given.join(', ')}: these flags define a metric, they cannot be combined with --scenario (the file's generators are used)`,
        );
      return this.loadScenarioArg(this.scenario, overrides);
    }
    if (this.name === undefined) throw new UsageError('missing --name (or give --scenario <file>)');
    if (overrides.rate === undefined) throw new UsageError('missing --rate (events per second)');
    if (this.jitterSeed !== undefined && this.jitter === undefined)
      throw new UsageError('--jitter-seed seeds the noise of --jitter: give --jitter <n> too');
    const mode = flagChoice('--value-mode', this.valueMode ?? 'constant', Object.keys(VALUE_MODES) as ValueMode[]);
    const flags: Record<string, readonly [string, number]> = VALUE_MODES[mode];
    const stray = GENERATOR_FLAGS.find((flag) => !(flag in flags) && this.flagText(flag) !== undefined);
    if (stray !== undefined)
      throw new UsageError(
        `${stray} does not apply to --value-mode ${mode}, which takes ${Object.keys(flags).join(', ')}`,
      );
    const generator: Record<string, unknown> = { type: mode };
    for (const [flag, [field, fallback]] of Object.entries(flags)) {
      const text = this.flagText(flag);
      generator[field] = text === undefined ? fallback : flagNumber(flag, text);
    }
    const entry = {
      signal_type: 'metrics',
      name: this.name,
      rate: overrides.rate,
      generator,
      ...(this.jitter !== undefined && { jitter: flagNumber('--jitter', this.jitter) }),
      ...(this.jitterSeed !== undefined && { jitter_seed: flagNumber('--jitter-seed', this.jitterSeed) }),
    };
    const origin = 'svc metrics flags';
    const written = [
      { path: ['name'], flag: '--name' },
      ...Object.entries(flags).map(([flag, [field]]) => ({ path: ['generator', field], flag })),
      { path: ['jitter'], flag: '--jitter' },
      { path: ['jitter_seed'], flag: '--jitter-seed' },
    ];
    return {
      file: loadScenario(JSON.stringify(entry), { origin, format: 'json', overrides: { ...overrides, written } }),
      origin,
    };
  }

  /** The text given to a generator flag, by its name. */
  private flagText(flag: string): string | undefined {
    const byFlag: Record<string, string | undefined> = {
      '--name': this.name,
      '--value-mode': this.valueMode,
      '--value': this.value,
      '--amplitude': this.amplitude,
      '--period-secs': this.periodSecs,
      '--offset': this.offset,
      '--min': this.min,
      '--max': this.max,
      '--seed': this.seed,
      '--jitter': this.jitter,
      '--jitter-seed': this.jitterSeed,
    };
    return byFlag[flag];
  }
}
