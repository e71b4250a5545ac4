import { Command, Option, UsageError } from 'clipanion';
import type { CliOverrides } from '../../config/overrides.js';
import type { ScenarioFile } from '../../config/types.js';
import type { Catalog } from '../../compile/catalog.js';
import type { SvcContext } from '../context.js';

/** A scenario to run, and where it came from (for messages). */
export interface LoadedScenario {
  readonly file: ScenarioFile;
  readonly origin: string;
}

// Commands load the scenario language and the runtime lazily: `svc --help` must start fast.

/**
 * What every scenario-running command shares: the global `--dry-run` and `--verbose` flags,
 * the flags that override file values, and the mapping of failures to exit codes
 * (2 for a usage mistake, 1 for invalid configuration or a runtime error).
 */
export abstract class ScenarioCommand extends Command<SvcContext> {
  dryRun = Option.Boolean('--dry-run', false, { description: 'Parse and validate, print the resolved settings, emit nothing' });
  verbose = Option.Boolean('--verbose', false, { description: 'Print the resolved settings, then run' });
  rate = Option.String('--rate', { description: 'Events per second (overrides every entry)' });
  duration = Option.String('--duration', { description: 'Run time, e.g. 30s, 1.5m (overrides every entry)' });
  sink = Option.String('--sink', { description: 'Sink type: stdout, file, … (overrides every entry)' });
  endpoint = Option.String('--endpoint', { description: "Sink address: the file path, host:port or URL" });
  encoder = Option.String('--encoder', { description: 'Encoder type: metrics_text, json_lines, …' });
  label = Option.Array('--label', { description: 'Static label key=value, repeatable (merged over file labels)' });
  onSinkError = Option.String('--on-sink-error', { description: 'warn (default) or fail' });
  catalog = Option.String('--catalog', { description: 'Catalog directory: scenario files run as @name, pack files used as pack: <name>' });

  /** Exit code decided by {@link catch}; clipanion itself would answer 0 after a caught error. */
  failure: number | undefined;

  private opened: Promise<Catalog | undefined> | undefined;

  /** The scenario the command runs, with the CLI overrides applied before validation. */
  protected abstract load(overrides: CliOverrides): Promise<LoadedScenario>;

  async execute(): Promise<number> {
    const { file, origin } = await this.load(this.overrides());
    // Packs, after triggers and clock groups: the runnable plan, or every problem as a ConfigError.
    const { compileScenario } = await import('../../compile/index.js');
    const plan = compileScenario(file, { origin, catalog: await this.openCatalog() });
    if (this.dryRun || this.verbose) {
      const { describeScenario } = await import('../describe.js');
      this.context.stderr.write(describeScenario(plan, origin));
    }
    if (this.dryRun) {
      const n = plan.scenarios.length;
      this.context.stderr.write(`Validation: OK (${n} scenario${n === 1 ? '' : 's'})\n`);
      return 0;
    }
    const { runScenario } = await import('../run-scenario.js');
    return runScenario(plan, this.context);
  }

  /** A scenario file path, or `@name` of a catalog scenario (`--catalog`), loaded with the overrides. */
  protected async loadScenarioArg(arg: string, overrides: CliOverrides): Promise<LoadedScenario> {
    const { catalogRef, noCatalogError } = await import('../../compile/catalog.js');
    const name = catalogRef(arg);
    if (name === undefined) {
      const { loadScenarioFile } = await import('../../config/load.js');
      return { file: await loadScenarioFile(arg, { overrides }), origin: arg };
    }
    const catalog = await this.openCatalog();
    if (!catalog) throw noCatalogError(arg);
    const { file, path } = catalog.scenario(name, overrides);
    return { file, origin: path };
  }

  /** The `--catalog` directory, read once; undefined without the flag. */
  private openCatalog(): Promise<Catalog | undefined> {
    this.opened ??= this.catalog === undefined ? Promise.resolve(undefined) : import('../../compile/catalog.js').then(({ Catalog }) => Catalog.open(this.catalog!));
    return this.opened;
  }

  override async catch(error: unknown): Promise<void> {
    if (error instanceof UsageError) {
      this.failure = 2;
      this.context.stderr.write(this.cli.error(error, { command: this }));
      return;
    }
    this.failure = 1;
    const message = error instanceof Error ? error.message : String(error);
    this.context.stderr.write(`error: ${message}\n`);
    if (this.dryRun && (error as { name?: string }).name === 'ConfigError') this.context.stderr.write('Validation: FAILED\n');
  }

  private overrides(): CliOverrides {
    const overrides: { -readonly [K in keyof CliOverrides]: CliOverrides[K] } = {};
    if (this.rate !== undefined) {
      const rate = Number(this.rate);
      if (this.rate.trim() === '' || Number.isNaN(rate)) throw new UsageError(`--rate: expected a number, got "${this.rate}"`);
      overrides.rate = rate;
    }
    if (this.duration !== undefined) overrides.duration = this.duration;
    if (this.sink !== undefined) overrides.sink = this.sink;
    if (this.endpoint !== undefined) overrides.endpoint = this.endpoint;
    if (this.encoder !== undefined) overrides.encoder = this.encoder;
    if (this.onSinkError !== undefined) overrides.on_sink_error = this.onSinkError;
    if (this.label) overrides.labels = Object.fromEntries(this.label.map(parseLabel));
    return overrides;
  }
}

function parseLabel(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError(`--label: expected key=value, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}
