/**
 * The one way from a loaded scenario file to the plan a runtime runs, taken by every front end
 * (`svc run` and its kin, `svc test`, POST /scenarios, `--autostart`): the CSV files of
 * `csv_replay` generators and the pack files named by path read (lib/config/csv-replay.ts,
 * lib/config/pack.ts: compiling does no file I/O), then the file compiled (./index.ts). A front end
 * differs only in where those files may be read from, and how a pack file is parsed.
 */
import { NAMED_FILES, readReplays, type LocateFile } from '../config/csv-replay.js';
import { readPackFiles, type PackReadOptions } from '../config/pack.js';
import { originOf } from '../config/read.js';
import type { ScenarioFile } from '../config/types.js';
import type { ReadFile } from '../sinks/core/open-check.js';
import { compileScenario, type CompileOptions, type ScenarioPlan } from './index.js';
import { BUILT_IN } from './packs.js';

export interface PlanOptions extends CompileOptions {
  /** Where a `csv_replay` file or pack file named in the scenario is read from, or why it may not be. */
  readonly locate: LocateFile;
  /** How a pack file named by path is parsed: its variables, its YAML budget (default: svc-server's). */
  readonly packOptions?: PackReadOptions;
  /** The scenario file's path, when it was read from one (not standard input, not a request body). */
  readonly path?: string;
}

/**
 * A file read to make a plan: `file` names it (`the csv_replay file /srv/load.csv`), `what` says so as the run's own,
 * and svc-server names the scenarios running from it when a later one would write over it (lib/server/registry.ts).
 */
export interface Input extends ReadFile {
  readonly file: string;
}

/** A runnable plan, and every file read to make it: a file sink must not write over one (lib/sinks/file.ts). */
export interface PlannedScenario extends ScenarioPlan {
  readonly inputs: readonly Input[];
}

/** The input `path`, named `file`, of the run being planned. */
function inputOf(path: string, file: string): Input {
  return { path, file, what: `${file} the scenario reads` };
}

/**
 * `file`'s runnable plan; a ConfigError when it cannot run. A CSV's or pack file's problems carry its path as
 * their origin, the plan's problems `options.origin`.
 */
export async function planScenario(file: ScenarioFile, options: PlanOptions): Promise<PlannedScenario> {
  const inputs: Input[] =
    options.path === undefined
      ? []
      : [{ path: options.path, file: `the scenario file ${options.path}`, what: 'the scenario file being run' }];
  // Every file the scenario names is found by `locate`: kept here, where it is read from, as it is read.
  const locate: LocateFile = async (name, kind) => {
    const source = await options.locate(name, kind);
    const path = originOf(source);
    // A file several entries read is one input.
    if (!inputs.some((input) => input.path === path)) inputs.push(inputOf(path, `the ${NAMED_FILES[kind]} ${path}`));
    return source;
  };
  const [replayed, packFiles] = await Promise.all([
    readReplays(file, locate),
    readPackFiles(file, locate, options.packOptions),
  ]);
  const plan = compileScenario(replayed, { ...options, packFiles });
  // A catalog's pack, read with the catalog, is found by compiling: its file is one the scenario reads too.
  for (const { pack } of plan.plans)
    if (pack && pack.source !== BUILT_IN && !inputs.some(({ path }) => path === pack.source))
      inputs.push(inputOf(pack.source, `the pack file ${pack.source}`));
  return { ...plan, inputs };
}
