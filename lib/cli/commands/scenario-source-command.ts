import type { CliOverrides } from '../../config/overrides.js';
import type { ScenarioFile } from '../../config/types.js';
import type { Catalog } from '../../catalog/index.js';
import type { PlannedScenario } from '../../compile/plan.js';
import { valueFlag } from '../flags.js';
import { SvcCommand } from './svc-command.js';

/** A scenario to run, and where it came from (for messages). */
export interface LoadedScenario {
  readonly file: ScenarioFile;
  readonly origin: string;
  /**
   * The scenario file, where its relative csv_replay paths start; absent for standard input (they start at
   * the working directory).
   */
  readonly path?: string;
}

/**
 * What every command that reads a scenario shares: its argument (a file, `-` for standard input, or `@name` of a
 * `--catalog` scenario) loaded and compiled into the runnable plan as `svc run` does.
 */
export abstract class ScenarioSourceCommand extends SvcCommand {
  catalog = valueFlag(
    '--catalog',
    '<dir>',
    'Catalog directory: scenario files run as @name, pack files used as pack: <name>',
  );

  private opened: Promise<Catalog | undefined> | undefined;

  /**
   * A scenario file path, `-` for standard input, or `@name` of a catalog scenario (`--catalog`), loaded with
   * the overrides.
   */
  protected async loadScenarioArg(arg: string, overrides: CliOverrides): Promise<LoadedScenario> {
    const { catalogRef, noCatalogError } = await import('../../catalog/index.js');
    const name = catalogRef(arg);
    if (name === undefined) {
      const { loadScenarioFile } = await import('../../config/load.js');
      const origin = arg === '-' ? 'standard input' : arg;
      const file = await loadScenarioFile(arg === '-' ? { stream: this.context.stdin, origin } : arg, {
        overrides,
        variables: this.context.env,
      });
      return { file, origin, ...(arg !== '-' && { path: arg }) };
    }
    const catalog = await this.openCatalog();
    if (!catalog) throw noCatalogError(arg);
    const { file, path } = catalog.scenario(name, overrides);
    return { file, origin: path, path };
  }

  /** The `--catalog` directory, read once; undefined without the flag. */
  private openCatalog(): Promise<Catalog | undefined> {
    this.opened ??=
      this.catalog === undefined
        ? Promise.resolve(undefined)
        : import('../../catalog/index.js').then(({ Catalog }) => Catalog.open(this.catalog!, this.context.env));
    return this.opened;
  }

  /**
   * CSV files, packs, csv_replay columns, after triggers and clock groups: the runnable plan of a loaded scenario
   * and the files read for it, or every problem as a ConfigError.
   */
  protected async planOf(loaded: LoadedScenario): Promise<PlannedScenario> {
    const [{ planScenario }, { filesBeside }, { LOCAL_YAML_BUDGET }] = await Promise.all([
      import('../../compile/plan.js'),
      import('../../config/csv-replay.js'),
      import('../../language/limits.js'),
    ]);
    return planScenario(loaded.file, {
      origin: loaded.origin,
      ...(loaded.path !== undefined && { path: loaded.path }),
      catalog: await this.openCatalog(),
      locate: filesBeside(loaded.path),
      packOptions: { yamlBudget: LOCAL_YAML_BUDGET, variables: this.context.env },
    });
  }
}
