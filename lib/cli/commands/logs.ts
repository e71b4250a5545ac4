import { Command, UsageError } from 'clipanion';
import { type GivenFlag, flagChoice, flagNumber, flagPairs, givenSpelling, listFlag, valueFlag } from '../flags.js';
import type { CliOverrides } from '../../config/overrides.js';
import { ScenarioCommand } from './scenario-command.js';
import type { LoadedScenario } from './scenario-source-command.js';

/** `svc logs`: log records from message templates given as flags, or a scenario file's entries with overrides. */
export class LogsCommand extends ScenarioCommand {
  static override paths = [['logs']];
  static override usage = Command.Usage({
    description: 'Emit log records from message templates given as flags, or run a scenario file with overrides',
    details:
      'Each --message is a template; `{placeholder}` names take values from the matching --field pool (and are also written as fields). Records are seeded: the same flags give the same records.',
    examples: [
      [
        'Login records at 5/s for 10 s',
        '$0 logs --message "user {user} logged in" --field user=ann,bob --rate 5 --duration 10s',
      ],
      [
        'Two templates, weighted severities, as syslog',
        '$0 logs --message "disk {disk} full" --message "backup done" --field disk=sda,sdb --severity info=8,error=2 --rate 1 --encoder syslog',
      ],
    ],
  });

  name = valueFlag('--name', '<name>', 'Entry name (default: logs)');
  mode = valueFlag('--mode', '<template|replay>', 'Log generator: template (default) or replay');
  message = listFlag('--message', '<template>', 'template: message template, repeatable');
  field = listFlag('--field', '<name=v1,v2,…>', 'template: placeholder pool, repeatable');
  severity = listFlag(
    '--severity',
    '<level=weight,…>',
    'template: severity weights, info=7,warn=2,error=1, repeatable (default: all info)',
  );
  severityWeights = listFlag('--severity-weights', '<level=weight,…>', '--severity as the reference tool writes it');
  seed = valueFlag('--seed', '<n>', 'template: seed of the record choice (default: 0)');
  file = valueFlag('--file', '<file>', 'replay: the file whose lines are the messages, one a record');
  replayFile = valueFlag('--replay-file', '<file>', '--file as the reference tool writes it');
  scenario = valueFlag(
    '--scenario',
    '<file>',
    'Scenario file (- for standard input) to run instead of flag-defined records',
  );

  protected async load(overrides: CliOverrides): Promise<LoadedScenario> {
    const { loadScenario } = await import('../../config/load.js');
    // Each alias is its own option, so that errors name the spelling given and both given is refused.
    const severity = givenSpelling({ '--severity': this.severity, '--severity-weights': this.severityWeights });
    const file = givenSpelling({ '--file': this.file, '--replay-file': this.replayFile });
    const flagDefined = [this.name, this.mode, this.message, this.field, severity, this.seed, file].some(
      (v) => v !== undefined,
    );
    if (this.scenario) {
      if (flagDefined)
        throw new UsageError(
          '--name, --mode, --message, --field, --severity, --seed and --file define records from flags; they cannot be combined with --scenario',
        );
      return this.loadScenarioArg(this.scenario, overrides);
    }
    const mode = flagChoice('--mode', this.mode ?? 'template', ['template', 'replay'] as const);
    const log_generator = mode === 'replay' ? this.replay(severity, file) : this.template(severity, file);
    if (overrides.rate === undefined) throw new UsageError('missing --rate (events per second)');
    const entry = { signal_type: 'logs', name: this.name ?? 'logs', rate: overrides.rate, log_generator };
    const origin = 'svc logs flags';
    const written = [
      { path: ['name'], flag: '--name' },
      { path: ['log_generator', 'templates'], flag: '--message' },
      { path: ['log_generator', 'field_pools'], flag: '--field' },
      { path: ['log_generator', 'severity_weights'], flag: severity?.flag ?? '--severity' },
      { path: ['log_generator', 'seed'], flag: '--seed' },
      { path: ['log_generator', 'file'], flag: file?.flag ?? '--file' },
    ];
    return {
      file: loadScenario(JSON.stringify(entry), { origin, format: 'json', overrides: { ...overrides, written } }),
      origin,
    };
  }

  /** `--mode replay`: the lines of --file, which the template flags do not shape. */
  private replay(severity?: GivenFlag<string[]>, file?: GivenFlag<string>): Record<string, unknown> {
    const stray = (
      [
        ['--message', this.message],
        ['--field', this.field],
        [severity?.flag, severity],
        ['--seed', this.seed],
      ] as const
    ).find(([, value]) => value !== undefined)?.[0];
    if (stray !== undefined)
      throw new UsageError(`${stray} shapes templates: --mode replay writes the lines of --file as they are`);
    if (file === undefined) throw new UsageError('--mode replay needs --file <file>: the lines to replay');
    return { type: 'replay', file: file.value };
  }

  /** `--mode template` (the default): records from the --message templates. */
  private template(severity?: GivenFlag<string[]>, file?: GivenFlag<string>): Record<string, unknown> {
    if (file !== undefined) throw new UsageError(`${file.flag} is the file of --mode replay: give --mode replay too`);
    if (!this.message?.length) throw new UsageError('missing --message (or give --scenario <file>)');
    return {
      type: 'template',
      templates: this.message.map((message) => ({ message })),
      field_pools: flagPairs(
        '--field',
        'name=value',
        this.field ?? [],
        (values) => values.split(','),
        (name) => `give all its values in one --field ${name}=a,b`,
      ),
      ...(severity && {
        severity_weights: flagPairs(
          severity.flag,
          'name=value',
          severity.value.flatMap((weights) => weights.split(',')),
          (w) => flagNumber(severity.flag, w),
          () => 'give each severity one weight',
        ),
      }),
      seed: this.seed === undefined ? 0 : flagNumber('--seed', this.seed),
    };
  }
}
