import { setImmediate } from 'node:timers/promises';
import type { Entry } from '../config/types.js';
import { nowOf } from './clock.js';
import type { ServerDeps } from './deps.js';
import { serverDirectories } from './file-root.js';
import { launchScenario, prepareScenario } from './launch.js';
import { HttpError } from './http-error.js';
import { compileBody } from './posted.js';
import { DrainingError, TooManyEntriesError } from './registry.js';
import type { ScenarioStore } from './state.js';
import { countOf } from '../format.js';

/**
 * Starts again, with the ids they had, the scenarios `--state` kept: each record's body compiled as a POST
 * would be (packs and `@name` resolved in today's catalog, `${NAME}` in today's environment), less the
 * entries stopped or deleted since; an entry whose `while` or `from` names one of those hears nothing
 * from it (logged, see {@link detached}). A record that cannot be read or started is logged with its file and
 * skipped, and left on disk for the operator; the others start. A record whose entries would take the server
 * past `--max-entries` is left on disk with a warning, to start at a restart with room for it. Once the registry
 * drains (a stop signal during the restore) no more record starts: what is left stays on disk for the next
 * start. It yields to the event loop between records, so that requests and signals are served while ten thousand
 * start. Returns how many scenarios started.
 *
 * It imports the parser: svc-server loads this module before it listens, as the routes `require` the same
 * modules and node 20 cannot `require` a module that an `import` is still loading.
 */
export async function restoreScenarios(store: ScenarioStore, deps: ServerDeps): Promise<number> {
  const { logger } = deps;
  const { scenarios, unreadable } = await store.load();
  for (const { file, problem } of unreadable)
    logger.error(
      { file },
      `${store.setting}: skipped ${file}: ${problem}; remove it, or move it out of the state directory`,
    );
  let count = 0;
  let left = 0;
  /** Records refused by `--max-entries`. */
  let full = 0;
  for (const [index, stored] of scenarios.entries()) {
    await setImmediate();
    const where = `${store.dir}/${stored.key}.json`;
    try {
      // As a POST's: the writers of the files it reads, as it reads them, refuse it at its turn.
      const { compiled: file, wrote } = await deps.registry.reading(() =>
        compileBody(stored.body, stored.format, deps),
      );
      const missing = [...stored.ids.keys()].filter((id) => !file.scenarios.some((entry) => entry.id === id));
      if (missing.length)
        throw new Error(`its body no longer has the entries ${missing.join(', ')} (has its catalog changed?)`);
      const kept = {
        ...file,
        scenarios: file.scenarios.filter((entry) => stored.ids.has(entry.id)).map(triggeredIn(stored.ids)),
      };
      const gone = new Set(file.scenarios.filter((entry) => !stored.ids.has(entry.id)).map((entry) => entry.id));
      for (const entry of kept.scenarios)
        for (const loss of detached(entry, gone))
          logger.warn(
            { file: where, scenario: stored.ids.get(entry.id), entry: entry.id },
            `${store.setting}: ${where}: ${entry.id}: ${loss}`,
          );
      // Its start and warnings name the record, which the operator removes to keep a scenario from coming back.
      const launched = { ...deps, logger: logger.child({ file: where }) };
      // Compared with those started before it, the --autostart ones included, as a POST is with the running ones.
      const own = await serverDirectories(deps);
      // In turn with the POSTs served meanwhile, as they are with each other.
      count += await deps.registry.inTurn(async () => {
        const neighbours = { registry: deps.registry, wrote, now: nowOf(deps)() };
        const prepared = await prepareScenario(kept, deps.fileRoot, neighbours, own);
        return launchScenario(launched, prepared, stored.ids, gone).length;
      });
    } catch (error) {
      if (error instanceof DrainingError) {
        left = scenarios.length - index;
        break;
      }
      if (error instanceof TooManyEntriesError) {
        full++;
        logger.warn({ file: where }, `${store.setting}: ${where} left on disk, not started again: ${error.message}`);
        continue;
      }
      const detail = (error as { detail?: string }).detail ?? (error as Error).message;
      // A body stored by an earlier version may fail checks added since: say so, as the detail names only the field.
      const refused =
        error instanceof HttpError && error.code === 'validation_failed'
          ? "this version's checks refuse it (accepted when it was stored: by an earlier version, or before its catalog changed): "
          : '';
      logger.error({ file: where }, `${store.setting}: could not start ${where} again: ${refused}${detail}`);
    }
  }
  logger.info(
    {
      scenarios: count,
      records: scenarios.length,
      ...(left && { records_left: left }),
      ...(full && { records_over_max: full }),
    },
    `${store.setting}: started ${countOf(count, 'scenario')} again${full ? ` (${countOf(full, 'record')} left on disk: over --max-entries)` : ''}${left ? `, then stopped: shutting down (${countOf(left, 'record')} left on disk)` : ''}`,
  );
  return count;
}

/**
 * An entry whose `after` watched an entry that left the record (deleted, or ended) as it was kept: it had
 * triggered, since one still waiting ends with the entry it watches and leaves the record then. It starts
 * again at once, without its trigger, as it was running; waiting on an entry that no longer runs would keep
 * it from starting ever.
 */
function triggeredIn(ids: ReadonlyMap<string, string>): (entry: Entry) => Entry {
  return (entry) => {
    if (!entry.after || ids.has(entry.after.ref)) return entry;
    const { after: _, ...started } = entry;
    return started;
  };
}

/**
 * What an entry no longer gets from the entries of its record deleted before the restart: they start
 * again as beside entries that produce nothing (the gate's state and the spans were not kept).
 */
function detached(entry: Entry, gone: ReadonlySet<string>): string[] {
  const losses: string[] = [];
  if (entry.while && gone.has(entry.while.ref))
    losses.push(`its while gate stays closed: "${entry.while.ref}", the entry it watches, was deleted`);
  for (const [field, what] of [
    ['exemplars', 'exemplars'],
    ['trace_context', 'log records'],
  ] as const) {
    const from = entry[field]?.from;
    if (from !== undefined && gone.has(from))
      losses.push(`its ${what} name no span: "${from}", the traces entry they named, was deleted`);
  }
  return losses;
}
