import { catalogRef, type Catalog } from '../catalog/index.js';
import { planScenario, type PlannedScenario } from '../compile/plan.js';
import { LOCAL_YAML_BUDGET } from '../language/limits.js';
import { ConfigError } from '../config/index.js';
import type { ServerDeps } from './deps.js';
import { catalogFiles, serverDirectories } from './file-root.js';
import { HttpError } from './http-error.js';
import { fileSinkWriters, mixedFileRefusal, prepareScenario, type PreparedScenario } from './launch.js';
import type { SeriesWriter } from '../compile/duplicate-series.js';

/** A catalog scenario's file, and where it is. */
type CatalogScenario = ReturnType<Catalog['scenario']>;

/**
 * The catalog scenarios `--autostart @a,@b` (`SVC_AUTOSTART`) names, each once; an Error naming
 * the mistake otherwise. Each must be in the catalog, so the list is as bounded as the catalog.
 */
export function autostartNames(list: string, catalog: Catalog | undefined): string[] {
  const refs = list.split(',').map((ref) => ref.trim());
  const names = refs.map(catalogRef);
  const wrong = refs.find((_, i) => names[i] === undefined);
  if (wrong !== undefined)
    throw new Error(`--autostart: expected catalog references @name separated by commas, got "${wrong}"`);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new Error(`--autostart: @${twice} is named twice: name each scenario once`);
  if (!catalog)
    throw new Error(
      `--autostart: @${names[0]} needs a catalog: give --catalog <dir> (or SVC_CATALOG) with the scenario files`,
    );
  return names as string[];
}

/**
 * Each named catalog scenario compiled and prepared as a posted one would be (packs resolved in
 * the catalog, `file` sinks confined below the file root), its series compared with those of the
 * files named before it (`cpu (@web)`), as they will be running, and its `file` sinks refused onto a file
 * another of them reads, as onto one a running scenario reads, or onto one another of them writes with an encoding
 * that cannot share it; an Error naming the scenario (the scenarios, for a shared file) and its problem when one
 * cannot run.
 */
export async function prepareAutostart(
  names: readonly string[],
  catalog: Catalog,
  fileRoot: string | undefined,
  state?: ServerDeps['state'],
): Promise<PreparedScenario[]> {
  const planned: PlannedScenario[] = [];
  for (const name of names) planned.push(await named(name, catalog, (scenario) => planOne(scenario, catalog)));
  // They run together: whichever starts first, a sink writing over another's file leaves it without the file.
  const reads = planned.flatMap((plan, i) =>
    plan.inputs.map(({ path, file }) => ({ path, what: `${file} that --autostart @${names[i]} reads` })),
  );
  const prepared: PreparedScenario[] = [];
  const before: SeriesWriter[] = [];
  const now = Date.now();
  const own = await serverDirectories({ catalog, state });
  for (const [i, name] of names.entries()) {
    const file = await named(name, catalog, () =>
      prepareScenario(
        planned[i]!,
        fileRoot,
        { before: [...before], are: 'the --autostart scenarios named before this one', reads, now },
        own,
      ),
    );
    prepared.push(file);
    before.push(...file.writers.map((writer) => ({ ...writer, name: `${writer.name} (@${name})` })));
  }
  // As the entries of one file: whichever opened its file first, the other's sink would fail as it opened.
  const mixed = mixedFileRefusal(
    prepared.flatMap(({ file }, i) =>
      fileSinkWriters(planned[i]!.scenarios, file.scenarios, (id) => `${id} (@${names[i]})`),
    ),
  );
  if (mixed) throw new Error(`--autostart: ${mixed}`);
  return prepared;
}

function planOne({ file, path }: CatalogScenario, catalog: Catalog): Promise<PlannedScenario> {
  return planScenario(file, {
    origin: path,
    path,
    catalog,
    locate: catalogFiles(catalog, path),
    packOptions: { yamlBudget: LOCAL_YAML_BUDGET },
  });
}

/** `step` of the catalog scenario `name`, its error an Error naming `--autostart @name` and the problem. */
async function named<T>(name: string, catalog: Catalog, step: (scenario: CatalogScenario) => Promise<T>): Promise<T> {
  let path: string | undefined;
  try {
    const scenario = catalog.scenario(name);
    path = scenario.path;
    return await step(scenario);
  } catch (error) {
    // A CSV's problems need its path, the error's origin; the file's own, or the catalog's about @name, do not.
    const detail =
      error instanceof ConfigError
        ? error.origin === path || error.origin === `@${name}`
          ? error.problems.map((p) => p.message).join('; ') || error.message
          : error.message
        : error instanceof HttpError
          ? error.detail
          : undefined;
    if (detail === undefined) throw error;
    throw new Error(`--autostart @${name}: ${detail}`);
  }
}
