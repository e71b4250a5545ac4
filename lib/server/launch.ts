import type { ScenarioFile } from '../config/types.js';
import type { ServerDeps } from './deps.js';
import { confineSink } from './file-root.js';
import type { StartedEntry } from './registry.js';
import { sinkWarnings } from './warnings.js';
import { entryWarnings } from '../compile/warnings.js';

/**
 * A compiled file as this server runs it: the files its sinks name confined below the file root, with the advisory
 * warnings about its sinks and entries.
 */
export interface PreparedScenario {
  readonly file: ScenarioFile;
  readonly warnings: readonly string[];
}

/**
 * Readies a compiled file, posted or autostarted, for this server: the files its sinks name (a `file` sink's
 * path, a `broker` sink's `tls.ca_cert`) confined below the file root (422 otherwise), every sink and entry
 * checked for advisory warnings.
 */
export async function prepareScenario(file: ScenarioFile, fileRoot: string | undefined): Promise<PreparedScenario> {
  const scenarios = await Promise.all(
    file.scenarios.map(async (entry) => ({
      ...entry,
      sink: await confineSink(entry.sink, fileRoot, `${entry.id}: `),
    })),
  );
  const warnings = scenarios.flatMap((entry) => [
    ...sinkWarnings(entry.id, entry.sink),
    ...entryWarnings(entry).map((warning) => `${entry.id}: ${warning}`),
  ]);
  return { file: { ...file, scenarios }, warnings };
}

/**
 * Starts a prepared file, logging its warnings and its start; throws as {@link EntryRegistry.start} does.
 * `ids` and `gone`: the scenario ids its entries had before a restart (`--state`), and its entries deleted since.
 */
export function launchScenario(
  { registry, logger }: Pick<ServerDeps, 'registry' | 'logger'>,
  { file, warnings }: PreparedScenario,
  ids?: ReadonlyMap<string, string>,
  gone?: ReadonlySet<string>,
): StartedEntry[] {
  for (const warning of warnings) logger.warn(warning);
  const started = registry.start(file, ids, gone);
  logger.info({ scenarios: started.map(({ id, name }) => ({ id, name })) }, 'scenario started');
  return started;
}
