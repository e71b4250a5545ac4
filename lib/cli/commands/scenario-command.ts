import { Option, UsageError } from 'clipanion';
import { availableParallelism } from 'node:os';
import { asyncScheduler } from 'rxjs';
import { statIfAny } from '../../real-file.js';
import type { PlannedScenario } from '../../compile/plan.js';
import type { CliOverrides } from '../../config/overrides.js';
import { flagChoice, flagNumber, flagPairs, listFlag, outputFileOf, valueFlag } from '../flags.js';
import { ScenarioSourceCommand, type LoadedScenario } from './scenario-source-command.js';

// Commands load the scenario language and the runtime lazily: `svc --help` must start fast.

/**
 * What every scenario-running command shares: the global `--dry-run`, `--verbose` and `--quiet`
 * flags, the flags that override file values, and the mapping of failures to exit codes
 * (2 for a usage mistake, 1 for invalid configuration or a runtime error).
 */
export abstract class ScenarioCommand extends ScenarioSourceCommand {
  dryRun = Option.Boolean('--dry-run', false, {
    description: 'Parse and validate, print the resolved settings, emit nothing',
  });
  format = valueFlag(
    '--format',
    '<text|json>',
    'How --dry-run prints the resolved settings: text on stderr (default), or JSON on stdout',
  );
  output = valueFlag(
    '-o,--output',
    '<file>',
    'Write every entry to this file: short for --sink file --endpoint <file>',
  );
  verbose = Option.Boolean('-v,--verbose', false, { description: 'Print the resolved settings, then run' });
  quiet = Option.Boolean('-q,--quiet', false, {
    description: 'Print no progress, settings or STOPPED lines: events, warnings and errors only',
  });
  rate = valueFlag('--rate', '<n>', "Events per second, fractions allowed (default: the file's)");
  duration = valueFlag(
    '--duration',
    '<time>',
    "Run time: 500ms, 30s, 1m30s, 2h (default: the file's, else until stopped)",
  );
  sink = valueFlag(
    '--sink',
    '<type>',
    "Sink type: stdout, file, tcp, … (docs/sinks.md; default: the file's, else stdout)",
  );
  endpoint = valueFlag('--endpoint', '<address>', 'Sink address: the file path, host:port or URL');
  encoder = valueFlag('--encoder', '<type>', "Encoder type: metrics_text, json_lines, … (default: the file's)");
  label = listFlag(
    '--label',
    '<key=value>',
    "Static label, repeatable; merged over the file's labels, the flag wins (traces entries take none)",
  );
  onSinkError = valueFlag('--on-sink-error', '<warn|fail>', "Sink error policy (default: the file's, else warn)");
  workers = valueFlag(
    '--workers',
    '<n>',
    'Worker threads, each running the file as one shard of its series, at most 64 (default: one per core when the file plans 1,000,000 events/s or more, else 1)',
  );
  /** Runs on virtual time (`svc run --backfill`, the flag of RunCommand). */
  protected backfill = false;

  /** The scenario the command runs, with the CLI overrides applied before validation. */
  protected abstract load(overrides: CliOverrides): Promise<LoadedScenario>;

  async execute(): Promise<number> {
    if (this.quiet && this.verbose)
      throw new UsageError('--quiet and --verbose ask for opposite things: give one of them');
    const json = this.format !== undefined && flagChoice('--format', this.format, ['text', 'json']) === 'json';
    if (json && !this.dryRun) throw new UsageError('--format json prints the plan of --dry-run: give --dry-run too');
    const { MAX_WORKERS, defaultWorkers, fileSeries, workersRefusal } = await import('../../runtime/workers.js');
    const asked =
      this.workers === undefined
        ? undefined
        : flagNumber('--workers', this.workers, {
            integer: true,
            min: 1,
            max: MAX_WORKERS,
            expected: `a whole number from 1 to ${MAX_WORKERS}`,
          });
    if (asked !== undefined && asked > 1 && this.backfill)
      throw new UsageError('--workers runs in real time: it cannot be combined with --backfill');
    const loaded = await this.load(this.overrides());
    const { origin } = loaded;
    const plan = await this.planOf(loaded);
    // A scenario on standard input may be a file redirected there (`svc run - -o s.yaml < s.yaml`).
    const stdinFile = loaded.path === undefined && this.context.stdin === process.stdin;
    await refuseUnopenableFiles(
      stdinFile ? { ...plan, inputs: [...plan.inputs, STANDARD_INPUT] } : plan,
      loaded,
      this.output,
    );
    const backfill = this.backfill ? await import('../../runtime/backfill.js') : undefined;
    if (backfill) {
      const refusal = backfill.backfillRefusal(plan.scenarios);
      if (refusal) throw new UsageError(`--backfill: ${refusal} (give each a duration, or --duration)`);
    }
    if (asked !== undefined && asked > 1) {
      const refusal = workersRefusal(plan.scenarios);
      if (refusal) throw new UsageError(`--workers: ${refusal} (use --workers 1, or another encoder or sink)`);
    }
    const series = fileSeries(plan.scenarios);
    const workers =
      asked === undefined
        ? defaultWorkers(plan.scenarios, { cores: availableParallelism(), backfill: this.backfill })
        : Math.min(asked, Math.max(1, series));
    if (workers < (asked ?? 1) && !this.quiet)
      this.context.stderr.write(
        `[info] --workers ${asked}: the file has ${series} series, each written by one worker: running ${workers}\n`,
      );
    const [{ sinkKindOf }, { redactText }, { entryWarnings }, { duplicateSeriesWarnings, fileWriters }] =
      await Promise.all([
        import('../../sinks/kinds/index.js'),
        import('../../redact.js'),
        import('../../compile/warnings.js'),
        import('../../compile/duplicate-series.js'),
      ]);
    const now = (this.context.scheduler ?? asyncScheduler).now();
    const duplicates = duplicateSeriesWarnings(fileWriters(plan, now));
    for (const entry of plan.scenarios) {
      for (const warning of [
        ...(sinkKindOf(entry.sink.type)!.warnings?.(entry.sink) ?? []),
        ...entryWarnings(entry, { now, backfill: backfill !== undefined }, plan.scenarios),
        ...duplicates.filter(({ name }) => name === entry.id).map(({ warning }) => warning),
        ...(backfill?.futureWarnings(entry, now, plan.scenarios) ?? []),
      ])
        this.context.stderr.write(`[warn] ${entry.id}: ${redactText(warning)}\n`);
    }
    if (json) {
      const { planJson } = await import('../describe.js');
      this.context.stdout.write(planJson(plan, origin));
    } else if ((this.dryRun && !this.quiet) || this.verbose) {
      const { describeScenario } = await import('../describe.js');
      this.context.stderr.write(describeScenario(plan, origin));
      if (!this.dryRun) this.context.stderr.write(`workers: ${workers}\n`);
    }
    if (this.dryRun) {
      const n = plan.scenarios.length;
      if (!this.quiet) this.context.stderr.write(`Validation: OK (${n} scenario${n === 1 ? '' : 's'})\n`);
      return 0;
    }
    const { runScenario } = await import('../run-scenario.js');
    return runScenario(plan, this.context, { quiet: this.quiet, backfill: this.backfill, workers });
  }

  override async catch(error: unknown): Promise<void> {
    await super.catch(error);
    if (this.dryRun && (error as { name?: string }).name === 'ConfigError')
      this.context.stderr.write('Validation: FAILED\n');
  }

  private overrides(): CliOverrides {
    const overrides: { -readonly [K in keyof CliOverrides]: CliOverrides[K] } = {};
    if (this.rate !== undefined) overrides.rate = flagNumber('--rate', this.rate);
    if (this.duration !== undefined) overrides.duration = this.duration;
    if (this.output !== undefined) {
      if (this.sink !== undefined || this.endpoint !== undefined)
        throw new UsageError('-o/--output is short for --sink file --endpoint <file>: give either, not both');
      const file = outputFileOf(this.output);
      overrides.sink = file === undefined ? 'stdout' : 'file';
      overrides.sinkFlag = '-o/--output';
      if (file !== undefined) overrides.endpoint = file;
    }
    if (this.sink !== undefined) overrides.sink = this.sink;
    if (this.endpoint !== undefined) overrides.endpoint = this.endpoint;
    if (this.encoder !== undefined) overrides.encoder = this.encoder;
    if (this.onSinkError !== undefined) overrides.on_sink_error = this.onSinkError;
    if (this.label)
      overrides.labels = flagPairs(
        '--label',
        'key=value',
        this.label,
        (value) => value,
        (key) => `give one --label ${key}=<value>`,
      );
    return overrides;
  }
}

/** The file standard input reads, when it is one: found by device and inode, as the files a scenario names. */
const STANDARD_INPUT = {
  path: '/dev/stdin',
  file: 'standard input',
  what: 'the scenario file given on standard input',
};

/**
 * Refuses, as invalid configuration, a file whose `file` sinks cannot open their path (a missing directory, a
 * directory, no permission), by the check svc-server makes at the POST, or would write over a file the run reads:
 * the scenario file itself (`svc run f.yaml -o f.yaml`, a slip of completion), a csv_replay or replay file, a pack
 * file, which the user would be left without. Before any entry starts, rather than as a sink failing (or a file
 * lost) once the run is under way: once a path, naming `-o/--output` when it is `output`'s, else the entries and
 * `sink.path`.
 */
async function refuseUnopenableFiles(
  { scenarios, inputs }: PlannedScenario,
  { origin }: LoadedScenario,
  output: string | undefined,
): Promise<void> {
  const [{ cannotOpenFile }, { mixedEncodingRefusal, writtenFiles }, { encoderSinkDeps }, { ConfigError }] =
    await Promise.all([
      import('../../sinks/core/open-check.js'),
      import('../../sinks/core/shared-files.js'),
      import('../../encoders/kinds/index.js'),
      import('../../language/problems.js'),
    ]);
  const files = writtenFiles(
    scenarios.flatMap(({ id, sink, encoder }) =>
      sink.type === 'file' ? [{ id, path: sink.path, encoding: encoderSinkDeps(encoder.type) }] : [],
    ),
  );
  const problems = [];
  for (const { path, writers } of files) {
    const ids = [...writers.keys()];
    const flag = path === output ? '-o/--output' : undefined;
    // Under -o every entry writes the one file: only without it can they have paths of their own.
    const advice = flag ? 'Run them without -o, each to its own sink.path, or with one encoder' : undefined;
    const why = (await cannotOpenFile(path, await statIfAny(path), inputs)) ?? mixedEncodingRefusal(writers, advice);
    if (why)
      problems.push({
        path: flag ?? 'sink.path',
        message: `${flag ?? `${ids.join(', ')}: sink.path`}: cannot open ${path}: ${why}`,
      });
  }
  if (problems.length > 0) throw new ConfigError('invalid', origin, problems);
}
