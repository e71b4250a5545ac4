import { createRequire } from 'node:module';
import { Router } from '../packages.js';
import type { Context } from 'koa';
import type { ServerDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { redactConfig } from '../../redact.js';
import { DrainingError, statusOf, type StartedEntry } from '../registry.js';
import { aggregate, MAX_SCRAPE_EVENTS } from '../scrape.js';
import { aggregateProtobuf } from '../scrape-protobuf.js';
import { PROTOBUF_EXPOSITION } from '../../protocols/metric-family.js';
import { featureRefusal } from '../../features.js';
import { inHead, inTail } from '../../../operators/model/window.js';
import { nowOf } from '../clock.js';
import { sampleName } from '../../encoders/metrics-text.js';

// The parser, the validator and the pipeline are loaded by the first POST (docs/performance.md).
const require = createRequire(import.meta.url);

/** Most series `GET /scenarios/{id}/series` lists: the first ones the entry emitted. */
const MAX_SERIES_LISTED = 1000;
const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';
/** The formats of `GET /scenarios/metrics`, text first: what an Accept header of any type, or none, gets. */
const SCRAPE_FORMATS = featureRefusal('protobuf-exposition') ? [EXPOSITION] : [EXPOSITION, PROTOBUF_EXPOSITION];

/**
 * The scenarios resource: start (`POST`), list, inspect, live stats, the latest value of each series
 * (JSON, for the console), scrape (drain one, or the latest of all), stop and forget (`DELETE`).
 */
export function scenarioRoutes(deps: ServerDeps): Router {
  const { registry, logger } = deps;
  const now = nowOf(deps);
  const find = (ctx: Context): StartedEntry => registry.get(ctx.params.id!) ?? notFoundScenario(ctx.params.id!);

  return (
    new Router({ prefix: '/scenarios' })
      .post('/', async (ctx) => {
        const { parseScenario } = require('../posted.js') as typeof import('../posted.js');
        const { launchScenario, prepareScenario } = require('../launch.js') as typeof import('../launch.js');
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
        ctx.body = {
          ...(summaries.length === 1 ? summaries[0] : { scenarios: summaries }),
          ...(warnings.length && { warnings }),
        };
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
        const buffers = registry.list().map((started) => started.scrape);
        const onConflict = (name: string, types: readonly string[]) =>
          logger.warn(
            { metric: name, types },
            `scenarios share the metric name ${name} with different types (${types.join(', ')}): exposed as untyped`,
          );
        ctx.vary('Accept');
        // As Prometheus negotiates: the protobuf exposition when the Accept header prefers it (its q-values), else text.
        const protobuf = ctx.accepts(SCRAPE_FORMATS) === PROTOBUF_EXPOSITION;
        const body = protobuf ? Buffer.from(aggregateProtobuf(buffers, onConflict)) : aggregate(buffers, onConflict);
        if (body.length === 0) return void (ctx.status = 204);
        ctx.type = protobuf ? PROTOBUF_EXPOSITION : EXPOSITION;
        ctx.body = body;
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
      .get('/:id/series', (ctx) => {
        const { scrape } = find(ctx);
        const rows = scrape.latestRows();
        ctx.body = {
          series: rows
            .slice(0, limitOf(ctx.query.limit, MAX_SERIES_LISTED))
            .map(({ series, value }) => ({ name: sampleName(scrape.family.name, series), value })),
          total: rows.length,
        };
      })
      .get('/:id/metrics', (ctx) => {
        const started = find(ctx);
        const text = started.scrape.drain(limitOf(ctx.query.limit, MAX_SCRAPE_EVENTS));
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

/** The `limit` query of a listing: 100 by default, an integer from 1 to `max`. */
function limitOf(raw: unknown, max: number): number {
  if (raw === undefined) return 100;
  const limit = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new HttpError(
      400,
      'invalid_query',
      `limit: expected an integer from 1 to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return limit;
}

function notFoundScenario(id: string): never {
  throw notFound(`scenario ${id}`);
}
