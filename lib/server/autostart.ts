import { catalogRef, type Catalog } from '../catalog/index.js';
import { planScenario } from '../compile/plan.js';
import { LOCAL_YAML_BUDGET } from '../language/limits.js';
import { ConfigError } from '../config/index.js';
import type { ServerDeps } from './deps.js';
import { catalogFiles, serverDirectories, type OwnDirectory } from './file-root.js';
import { HttpError } from './http-error.js';
import { prepareScenario, type Neighbours, type PreparedScenario } from './launch.js';
import type { SeriesWriter } from '../compile/duplicate-series.js';

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
 * files named before it (`cpu (@web)`), as they will be running; an Error naming the scenario and
 * its problem when one cannot run.
 */
export async function prepareAutostart(
  names: readonly string[],
  catalog: Catalog,
  fileRoot: string | undefined,
  state?: ServerDeps['state'],
): Promise<PreparedScenario[]> {
  const prepared: PreparedScenario[] = [];
  const before: SeriesWriter[] = [];
  const now = Date.now();
  const own = await serverDirectories({ catalog, state });
  for (const name of names) {
    const file = await prepareOne(name, catalog, fileRoot, own, {
      before: [...before],
      are: 'the --autostart scenarios named before this one',
      now,
    });
    prepared.push(file);
    before.push(...file.writers.map((writer) => ({ ...writer, name: `${writer.name} (@${name})` })));
  }
  return prepared;
}

async function prepareOne(
  name: string,
  catalog: Catalog,
  fileRoot: string | undefined,
  own: readonly OwnDirectory[],
  neighbours: Neighbours,
): Promise<PreparedScenario> {
  let path: string | undefined;
  try {
    const scenario = catalog.scenario(name);
    path = scenario.path;
    return await prepareScenario(
      await planScenario(scenario.file, {
        origin: path,
        path,
        catalog,
        locate: catalogFiles(catalog, path),
        packOptions: { yamlBudget: LOCAL_YAML_BUDGET },
      }),
      fileRoot,
      neighbours,
      own,
    );
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
