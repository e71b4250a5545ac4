import { Command, Option, UsageError } from 'clipanion';
import { valueFlag } from '../flags.js';
import type { CliOverrides } from '../../config/overrides.js';
import { ScenarioCommand } from './scenario-command.js';
import type { LoadedScenario } from './scenario-source-command.js';

/** `svc run <scenario-file>` (also `svc run --scenario <file>`; `-` reads standard input). */
export class RunCommand extends ScenarioCommand {
  static override paths = [['run']];
  static override usage = Command.Usage({
    description: 'Run every entry of a scenario file',
    details:
      'Runs until every entry reached its duration, or until SIGINT/SIGTERM, then flushes and prints a STOPPED line per entry.',
    examples: [
      ['Run the quick-start scenario', '$0 run examples/quickstart.yaml'],
      ['Validate only', '$0 run --dry-run examples/quickstart.yaml'],
      ['A file from standard input', 'cat examples/quickstart.yaml | $0 run -'],
      ['Override rate and sink', '$0 run examples/quickstart.yaml --rate 100 --sink file --endpoint /tmp/out.prom'],
      ['A scenario of a catalog, by name', '$0 run @checkout-incident --catalog examples/catalog'],
      [
        'The last two hours of the scenario (its start_time: -2h) into a file in seconds (virtual time)',
        '$0 run --backfill examples/openmetrics.yaml --duration 2h -o /tmp/svc.om',
      ],
    ],
  });

  file = Option.String({ required: false, name: 'scenario-file' });
  scenario = valueFlag(
    '--scenario',
    '<file>',
    'Scenario file, - for standard input, or @name from --catalog (instead of the argument)',
  );
  protected override backfill = Option.Boolean('--backfill', false, {
    description:
      "Run on virtual time: each entry's whole duration (required) as fast as its sink takes it, with the timestamps of a real-time run",
  });

  protected async load(overrides: CliOverrides): Promise<LoadedScenario> {
    if (this.file && this.scenario)
      throw new UsageError('give the scenario file either as an argument or with --scenario, not both');
    const path = this.file ?? this.scenario;
    if (!path) throw new UsageError('missing scenario file: svc run <scenario-file>');
    return this.loadScenarioArg(path, overrides);
  }
}
