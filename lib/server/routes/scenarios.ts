import Router from '@koa/router';
import { dirname } from 'node:path';
import type { Context } from 'koa';
import { asyncScheduler } from 'rxjs';
import { ConfigError } from '../../language/problems.js';
import { loadScenario } from '../../config/load.js';
import { compileScenario } from '../../compile/index.js';
import type { ScenarioFile } from '../../config/types.js';
import type { ServerDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { redactConfig } from '../../redact.js';
import { DrainingError, statusOf, type StartedEntry } from '../registry.js';
import { aggregate, MAX_SCRAPE_EVENTS } from '../scrape.js';
import { launchScenario, prepareScenario } from '../launch.js';
import { catalogRef, noCatalogError, type Catalog } from '../../catalog/index.js';
import type { Variables } from '../../config/interpolate.js';
import { bodyText, JSON_TYPES, YAML_TYPES } from '../body.js';
import { filesIn, readReplays, type LocateFile } from '../../config/csv-replay.js';
import { confineReadFile } from '../file-root.js';
import { inHead, inTail } from '../../../operators/model/window.js';

const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The scenarios resource: start (`POST`), list, inspect, live stats, scrape (drain one, or the
 * latest of all), stop and forget (`DELETE`).
 */
export function scenarioRoutes(deps: ServerDeps): Router {
  const { registry, logger } = deps;
  const now = () => (deps.scheduler ?? asyncScheduler).now();
  const find = (ctx: Context): StartedEntry => registry.get(ctx.params.id!) ?? notFoundScenario(ctx.params.id!);

  return (
    new Router({ prefix: '/scenarios' })
      .post('/', async (ctx) => {
        const prepared = await prepareScenario(await parseScenario(ctx, deps), deps.fileRoot);
        let started: StartedEntry[];
        try {
          started = launchScenario(deps, prepared);
        } catch (error) {
          if (error instanceof DrainingError) throw error;
          logger.error({ err: error }, 'could not start scenario');
          throw new HttpError(500, 'worker_failed', `could not start the scenario: ${(error as Error).message}`);
        }
        const summaries = started.map(identityOf);
        const { warnings } = prepared;
        ctx.status = 201;
        ctx.body = { ...(summaries.length === 1 ? summaries[0] : { scenarios: summaries }), ...(warnings.length && { warnings }) };
      })
      .get('/', (ctx) => {
        ctx.body = {
          scenarios: registry.list().map((started) => ({
            ...identityOf(started),
            degraded: started.run.stats.degraded(now()),
            last_sink_error: started.run.stats.lastSinkError ?? null,
            signal_type: started.run.entry.signal_type,
            total_events: started.run.stats.totalEvents,
          })),
        };
      })
      // Before /:id, which would take "metrics" for an id.
      .get('/metrics', (ctx) => {
        const text = aggregate(
          registry.list().map((started) => started.scrape),
          (name, types) => logger.warn({ metric: name, types }, `scenarios share the metric name ${name} with different types (${types.join(', ')}): exposed as untyped`),
        );
        if (!text) return void (ctx.status = 204);
        ctx.type = EXPOSITION;
        ctx.body = text;
      })
      .get('/:id', (ctx) => {
        const started = find(ctx);
        ctx.body = {
          ...identityOf(started),
          config: redactConfig(started.run.entry),
          stats: statsOf(started, now()),
          elapsed_ms: now() - started.startedAt,
        };
      })
      .get('/:id/stats', (ctx) => {
        ctx.body = statsOf(find(ctx), now());
      })
      .get('/:id/metrics', (ctx) => {
        const started = find(ctx);
        const text = started.scrape.drain(limitOf(ctx.query.limit));
        if (text === undefined) return void (ctx.status = 204);
        ctx.type = EXPOSITION;
        ctx.body = text;
      })
      .delete('/:id', async (ctx) => {
        const started = (await registry.remove(ctx.params.id!)) ?? notFoundScenario(ctx.params.id!);
        logger.info({ id: started.id, name: started.name }, 'scenario stopped');
        ctx.body = { id: started.id, status: 'stopped', total_events: started.run.stats.totalEvents };
      })
  );
}

/**
 * A v2 file or a flat entry, as YAML or JSON by Content-Type, or `@name` of a scenario of the
 * server's catalog; packs resolve in the catalog too. The CSV files of csv_replay generators are
 * read below the file root for a body, beside the file for a catalog scenario. 400 when
 * unparseable, 422 when invalid.
 */
async function parseScenario(ctx: Context, { catalog, variables, fileRoot }: ServerDeps): Promise<ScenarioFile> {
  if (ctx.request.length && !ctx.is([...JSON_TYPES, ...YAML_TYPES])) {
    throw new HttpError(415, 'unsupported_media_type', `Content-Type ${ctx.get('Content-Type') || '(none)'}: send text/yaml or application/json`);
  }
  const text = bodyText(ctx);
  if (!text) throw new HttpError(400, 'empty_body', 'the request has no body: send a scenario file or a flat entry as YAML or JSON');
  const format = ctx.is(JSON_TYPES) ? 'json' : 'yaml';
  const { file, origin, locate } = refusingInvalid(() => loadBody(text, format, catalog, variables ?? {}, fileRoot));
  const read = await readReplays(file, locate).catch((error: unknown) => {
    // A CSV's problems name its line and column; its path is the error's origin, kept in the detail.
    throw error instanceof ConfigError ? new HttpError(422, 'validation_failed', error.message) : error;
  });
  return refusingInvalid(() => compileScenario(read, { origin, catalog }));
}

/** `run()`, with a ConfigError answered as 400 (unparseable) or 422 (invalid). */
function refusingInvalid<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const detail = error.problems.map((p) => p.message).join('; ') || error.message;
    if (error.kind === 'syntax') throw new HttpError(400, 'malformed_body', detail);
    // Validation refuses the transports this build lacks (lib/config/entry.ts), with the same message as the CLI.
    const unbuilt = error.problems.every((p) => p.code === 'feature_not_built');
    throw new HttpError(422, unbuilt ? 'feature_not_built' : 'validation_failed', detail);
  }
}

/** The scenario a body holds, or the catalog's that a body of `@name` names, and where its csv_replay files are. */
function loadBody(
  text: string,
  format: 'json' | 'yaml',
  catalog: Catalog | undefined,
  variables: Variables,
  fileRoot: string | undefined,
): { file: ScenarioFile; origin: string; locate: LocateFile } {
  const reference = text.trim();
  const name = catalogRef(reference);
  if (name === undefined) {
    return { file: loadScenario(text, { origin: 'request body', format, variables }), origin: 'request body', locate: (file) => confineReadFile(file, fileRoot) };
  }
  if (!catalog) throw noCatalogError(reference);
  const { file, path } = catalog.scenario(name);
  return { file, origin: path, locate: filesIn(dirname(path)) };
}

/**
 * How every answer names a started entry (a scenario, to the API): its UUID, its `id` in the
 * posted file (entries of one metric differ by it), the metric name and its status.
 */
function identityOf(started: StartedEntry) {
  return { id: started.id, entry: started.run.entry.id, name: started.name, status: statusOf(started) };
}

/** The statistics record, with gap and burst state at this moment of the entry's clock. */
function statsOf(started: StartedEntry, now: number) {
  const { entry, stats } = started.run;
  const since = started.tickingSince();
  // Windows count from the entry's own start: before it, neither applies.
  const elapsed = since === undefined ? undefined : now - since;
  const inGap = elapsed !== undefined && entry.gaps !== undefined && inTail(entry.gaps, elapsed);
  return {
    ...stats.snapshot(now),
    in_gap: inGap,
    in_burst: elapsed !== undefined && entry.bursts !== undefined && inHead(entry.bursts, elapsed) && !inGap,
  };
}

function limitOf(raw: unknown): number {
  if (raw === undefined) return 100;
  const limit = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SCRAPE_EVENTS) {
    throw new HttpError(400, 'invalid_query', `limit: expected an integer from 1 to ${MAX_SCRAPE_EVENTS}, got ${JSON.stringify(raw)}`);
  }
  return limit;
}

function notFoundScenario(id: string): never {
  throw notFound(`scenario ${id}`);
}
