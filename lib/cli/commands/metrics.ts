import { Command, UsageError } from 'clipanion';
import { flagNumber, valueFlag } from '../flags.js';
import type { CliOverrides } from '../../config/overrides.js';
import { ScenarioCommand } from './scenario-command.js';
import type { LoadedScenario } from './scenario-source-command.js';

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
      ['A file, faster', '$0 metrics --scenario examples/quickstart.yaml --rate 50'],
    ],
  });

  name = valueFlag('--name', '<name>', 'Metric name');
  value = valueFlag('--value', '<n>', 'Constant value (default: 1); a negative one is written --value=-3');
  scenario = valueFlag(
    '--scenario',
    '<file>',
    'Scenario file (- for standard input) to run instead of a flag-defined metric',
  );

  protected async load(overrides: CliOverrides): Promise<LoadedScenario> {
    const { loadScenario } = await import('../../config/load.js');
    if (this.scenario) {
      if (this.name !== undefined || this.value !== undefined)
        throw new UsageError('--name and --value define a metric from flags; they cannot be combined with --scenario');
      return this.loadScenarioArg(this.scenario, overrides);
    }
    if (this.name === undefined) throw new UsageError('missing --name (or give --scenario <file>)');
    if (overrides.rate === undefined) throw new UsageError('missing --rate (events per second)');
    const value = this.value === undefined ? 1 : flagNumber('--value', this.value);
    const entry = {
      signal_type: 'metrics',
      name: this.name,
      rate: overrides.rate,
      generator: { type: 'constant', value },
    };
    const origin = 'svc metrics flags';
    const written = [
      { path: ['name'], flag: '--name' },
      { path: ['generator', 'value'], flag: '--value' },
    ];
    return {
      file: loadScenario(JSON.stringify(entry), { origin, format: 'json', overrides: { ...overrides, written } }),
      origin,
    };
  }
}
