/**
 * The one way from a loaded scenario file to the plan a runtime runs, taken by every front end
 * (`svc run` and its kin, `svc test`, POST /scenarios, `--autostart`): the CSV files of
 * `csv_replay` generators read (lib/config/csv-replay.ts: compiling does no file I/O), then the
 * file compiled (./index.ts). A front end differs only in where the CSV files may be read from.
 */
import { readReplays, type LocateFile } from '../config/csv-replay.js';
import type { ScenarioFile } from '../config/types.js';
import { compileScenario, type CompileOptions, type ScenarioPlan } from './index.js';

export interface PlanOptions extends CompileOptions {
  /** Where a `csv_replay` file named in the scenario is read from, or why it may not be. */
  readonly locate: LocateFile;
}

/**
 * `file`'s runnable plan; a ConfigError when it cannot run. A CSV's problems carry the CSV's path as
 * their origin, the plan's problems `options.origin`.
 */
export async function planScenario(file: ScenarioFile, options: PlanOptions): Promise<ScenarioPlan> {
  return compileScenario(await readReplays(file, options.locate), options);
}
