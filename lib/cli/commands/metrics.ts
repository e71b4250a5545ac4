import { Command, UsageError } from 'clipanion';
import { flagChoice, flagNumber, valueFlag } from '../flags.js';
import type { CliOverrides, FlagField } from '../../config/overrides.js';
import { ScenarioCommand } from './scenario-command.js';
import type { LoadedScenario } from './scenario-source-command.js';

/**
 * The generator flags, the one record of them: the generator field each writes, the `--value-mode` generators
 * that take it, its help, and for a field the generator requires, the value written when the flag is left out
 * (the reference tool's, but `--value`, svc's 1). A field the generator does not require is written only when
 * given, so that the generator's own default is the only one. Each is declared as an option of its own name.
 */
const GENERATOR_FLAGS = {
  '--value': {
    field: 'value',
    modes: ['constant'],
    required: 1,
    help: 'the value',
  },
  '--amplitude': { field: 'amplitude', modes: ['sine'], required: 1, help: 'half the swing' },
  '--period-secs': { field: 'period_secs', modes: ['sine', 'sawtooth'], required: 60, help: 'seconds a period' },
  '--offset': { field: 'offset', modes: ['sine'], help: 'the middle of the wave (default: 0)' },
  '--min': { field: 'min', modes: ['sawtooth', 'uniform'], required: 0, help: 'the lowest value' },
  '--max': { field: 'max', modes: ['sawtooth', 'uniform'], required: 1, help: 'the value approached, never written' },
  '--seed': { field: 'seed', modes: ['uniform'], help: 'seed of the values (default: 0)' },
} as const satisfies Record<string, { field: string; modes: readonly string[]; required?: number; help: string }>;
type GeneratorFlag = keyof typeof GENERATOR_FLAGS;
type GeneratorFlagSpec = (typeof GENERATOR_FLAGS)[GeneratorFlag];
const GENERATOR_FLAG_NAMES = Object.keys(GENERATOR_FLAGS) as GeneratorFlag[];
/** The generators `--value-mode` picks (the reference tool's modes), the first the default. */
const VALUE_MODES = [...new Set(Object.values(GENERATOR_FLAGS).flatMap((spec) => spec.modes))];

/** A generator flag's help, with the default a required field gets. */
function helpOf(spec: GeneratorFlagSpec): string {
  return 'required' in spec ? `${spec.help} (default: ${spec.required})` : spec.help;
}

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
  valueMode = valueFlag('--value-mode', '<mode>', `Generator: ${VALUE_MODES.join(', ')} (default: ${VALUE_MODES[0]})`);
  jitter = valueFlag('--jitter', '<n>', 'Uniform noise in [-n, n] added to every value (default: none)');
  jitterSeed = valueFlag('--jitter-seed', '<n>', 'Seed of the noise (default: 0)');
  scenario = valueFlag(
    '--scenario',
    '<file>',
    'Scenario file (- for standard input) to run instead of a flag-defined metric',
  );

  constructor() {
    super();
    // One option per generator flag, under the flag's own name: clipanion finds options among the properties.
    for (const [flag, spec] of Object.entries(GENERATOR_FLAGS) as [GeneratorFlag, GeneratorFlagSpec][])
      Object.assign(this, { [flag]: valueFlag(flag, '<n>', `${spec.modes.join(', ')}: ${helpOf(spec)}`) });
  }

  protected async load(overrides: CliOverrides): Promise<LoadedScenario> {
    const { loadScenario } = await import('../../config/load.js');
    if (this.scenario) {
      const given = [
        ['--name', this.name],
        ['--value-mode', this.valueMode],
        ...GENERATOR_FLAG_NAMES.map((flag) => [flag, this.generatorFlag(flag)]),
        ['--jitter', this.jitter],
        ['--jitter-seed', this.jitterSeed],
      ].flatMap(([flag, text]) => (text === undefined ? [] : [flag]));
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
    const mode = flagChoice('--value-mode', this.valueMode ?? VALUE_MODES[0]!, VALUE_MODES);
    const takes = (flag: GeneratorFlag) => (GENERATOR_FLAGS[flag].modes as readonly string[]).includes(mode);
    const stray = GENERATOR_FLAG_NAMES.find((flag) => !takes(flag) && this.generatorFlag(flag) !== undefined);
    if (stray !== undefined)
      throw new UsageError(
        `${stray} does not apply to --value-mode ${mode}, which takes ${GENERATOR_FLAG_NAMES.filter(takes).join(', ')}`,
      );
    const generator: Record<string, unknown> = { type: mode };
    const written: FlagField[] = [{ path: ['name'], flag: '--name' }];
    for (const flag of GENERATOR_FLAG_NAMES.filter(takes)) {
      const spec: GeneratorFlagSpec = GENERATOR_FLAGS[flag];
      const text = this.generatorFlag(flag);
      const required = 'required' in spec ? spec.required : undefined;
      if (text === undefined && required === undefined) continue;
      generator[spec.field] = text === undefined ? required : flagNumber(flag, text);
      // A problem of a value nobody gave names the flag and says it is its default.
      written.push({
        path: ['generator', spec.field],
        flag: text === undefined ? `${flag} (default ${required})` : flag,
      });
    }
    written.push({ path: ['jitter'], flag: '--jitter' }, { path: ['jitter_seed'], flag: '--jitter-seed' });
    const entry = {
      signal_type: 'metrics',
      name: this.name,
      rate: overrides.rate,
      generator,
      ...(this.jitter !== undefined && { jitter: flagNumber('--jitter', this.jitter) }),
      ...(this.jitterSeed !== undefined && { jitter_seed: flagNumber('--jitter-seed', this.jitterSeed) }),
    };
    const origin = 'svc metrics flags';
    return {
      file: loadScenario(JSON.stringify(entry), { origin, format: 'json', overrides: { ...overrides, written } }),
      origin,
    };
  }

  /** The text given to a generator flag: its option is the property of its name (see the constructor). */
  private generatorFlag(flag: GeneratorFlag): string | undefined {
    return (this as unknown as Record<GeneratorFlag, string | undefined>)[flag];
  }
}
