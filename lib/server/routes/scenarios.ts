import { perObject } from '../../per-object.js';
import { createRequire } from 'node:module';
import { Router } from '../packages.js';
import type { Context } from 'koa';
import type { ServerDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { redactConfig } from '../../redact.js';
import { statusOf, type StartedEntry } from '../registry.js';
import { asHttpError } from '../middleware/errors.js';
import { aggregateSteps, MAX_SCRAPE_EVENTS, sliced, type Steps } from '../scrape.js';
import { protobufSteps } from '../scrape-protobuf.js';
import { acceptsProtobufExposition, PROTOBUF_EXPOSITION } from '../../protocols/metric-family.js';
import { featureRefusal } from '../../features.js';
import { inHead } from '../../../operators/model/window.js';
import { silenceTest } from '../../../operators/gaps.js';
import type { Entry } from '../../config/types.js';
import { nowOf } from '../clock.js';
import { sampleName } from '../../encoders/metrics-text.js';
import { type ScenarioStore, StateDirectoryGone } from '../state.js';
import type { PostedScenario } from '../posted.js';

// The parser, the validator and the pipeline are loaded by the first POST (docs/performance.md).
const require = createRequire(import.meta.url);

/** Most series `GET /scenarios/{id}/series` lists: the first ones the entry emitted. */
const MAX_SERIES_LISTED = 1000;
/** Most scenarios a page of `GET /scenarios` holds (a page stays well under 1 MiB); without `limit`, the whole list. */
const MAX_PAGE = 1_000;
const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';
/** Whether `GET /scenarios/metrics` answers the protobuf exposition to a scraper that asks for it (its build feature is installed); else text, whatever the Accept header. */
const PROTOBUF_SERVED = !featureRefusal('protobuf-exposition');
/**
 * An exposition of `GET /scenarios/metrics` whose build took at least this long (ms) answers the
 * scrapes of its format for as long again: 170,000 series of two scenarios take seconds, and a scraper asking
 * more often than that (Prometheus at 1 s) would keep the server building for good, its sinks given only what is
 * left. Scrapes then take at most about half of it; a smaller exposition is built for each.
 */
const MIN_REUSED_BUILD_MS = 100;

/**
 * An answer of `GET /scenarios/metrics` in one format, built by `at` in `took` ms (the server's clock) from the
 * entries there after `removals` were taken out (EntryRegistry.removals).
 */
interface Exposition {
  readonly body: Buffer;
  readonly at: number;
  readonly took: number;
  readonly removals: number;
}

/**
 * The scenarios resource: start (`POST`), list, inspect, live stats, the latest value of each series
 * (JSON, for the console), scrape (drain one, or the latest of all), stop and forget (`DELETE`).
 */
export function scenarioRoutes(deps: ServerDeps): Router {
  const { registry, logger } = deps;
  const now = nowOf(deps);
  const find = (ctx: Context): StartedEntry => registry.get(ctx.params.id!) ?? notFoundScenario(ctx.params.id!);
  /**
   * Per format: the exposition that answers scrapes until it is `took` ms old or an entry is taken out (it would
   * show the entry's series), and the build in flight, which a scrape joins while no entry was taken out since it
   * began. A build that saw an entry taken out answers the scrapes waiting for it, and is not kept.
   */
  const expositions = new Map<string, Exposition>();
  const builds = new Map<string, { readonly removals: number; readonly answer: Promise<Exposition> }>();
  const build = async (type: string, steps: Steps<Buffer>, start: number, removals: number): Promise<Exposition> => {
    try {
      const body = await sliced(steps);
      const at = now();
      // Its time between slices counts too: scrapes then take at most half of the server's time, when it is busy.
      const exposition = { body, at, took: at - start, removals };
      // One that began before a removal leaves what a later build kept.
      if (removals === registry.removals) {
        if (exposition.took >= MIN_REUSED_BUILD_MS) expositions.set(type, exposition);
        else expositions.delete(type);
      }
      return exposition;
    } finally {
      if (builds.get(type)?.removals === removals) builds.delete(type);
    }
  };

  return (
    new Router({ prefix: '/scenarios' })
      .post('/', async (ctx) => {
        const { parseScenario } = require('../posted.js') as typeof import('../posted.js');
        const { launchScenario, prepareScenario } = require('../launch.js') as typeof import('../launch.js');
        // The writers of the files its compile reads, as it reads them: ended by its turn, they still refuse it.
        const { compiled: posted, wrote } = await registry.reading(() => parseScenario(ctx, deps));
        const { serverDirectories } = require('../file-root.js') as typeof import('../file-root.js');
        const own = await serverDirectories(deps);
        // Checked against the running scenarios and started before another POST is checked.
        const { prepared, started } = await registry.inTurn(async () => {
          const prepared = await prepareScenario(posted.file, deps.fileRoot, { registry, wrote, now: now() }, own);
          try {
            return { prepared, started: launchScenario(deps, prepared) };
          } catch (error) {
            // A refusal (draining, too many entries) is answered as such; anything else is the server's failure.
            if (asHttpError(error)) throw error;
            logger.error({ err: error }, 'could not start scenario');
            throw new HttpError(500, 'worker_failed', `could not start the scenario: ${(error as Error).message}`);
          }
        });
        if (deps.state) await keep(deps.state, deps, posted, started);
        // Only now: a POST answered 500 (not kept) forgets no ended scenario.
        registry.makeRoom();
        const summaries = started.map(identityOf);
        const warnings = prepared.warnings.map(({ text }) => text);
        ctx.status = 201;
        ctx.body = {
          ...(summaries.length === 1 ? summaries[0] : { scenarios: summaries }),
          ...(warnings.length && { warnings }),
        };
      })
      .get('/', (ctx) => {
        // Without `limit` the whole list, as before pages (design.md); a client that pages asks for them.
        const limit = ctx.query.limit === undefined ? Infinity : limitOf(ctx.query.limit, MAX_PAGE, MAX_PAGE);
        const { entries, more } = registry.page(afterOf(ctx.query.cursor), limit);
        ctx.body = {
          scenarios: entries.map((started) => ({
            ...identityOf(started),
            degraded: started.run.stats.degraded(now()),
            last_sink_error: started.run.stats.lastSinkError ?? null,
            signal_type: started.run.entry.signal_type,
            total_events: started.run.stats.totalEvents,
          })),
          next_cursor: more ? cursorOf(entries.at(-1)!) : null,
        };
      })
      // Before /:id, which would take "metrics" for an id.
      .get('/metrics', async (ctx) => {
        const onConflict = (name: string, types: readonly string[]) =>
          logger.warn(
            { metric: name, types },
            `scenarios share the metric name ${name} with different types (${types.join(', ')}): exposed as untyped`,
          );
        ctx.vary('Accept');
        // As Prometheus negotiates: the protobuf exposition when the Accept header prefers it (its q-values), else text.
        const protobuf = PROTOBUF_SERVED && acceptsProtobufExposition(ctx.get('Accept'));
        const type = protobuf ? PROTOBUF_EXPOSITION : EXPOSITION;
        const start = now();
        const { removals } = registry;
        let exposition = expositions.get(type);
        if (!exposition || exposition.removals !== removals || start - exposition.at >= exposition.took) {
          // Scrapes that come while a build is in flight take its answer rather than start their own.
          let building = builds.get(type);
          if (building?.removals !== removals) {
            const buffers = registry.list().map((started) => started.scrape);
            const steps = protobuf ? protobufSteps(buffers, onConflict) : aggregateSteps(buffers, onConflict);
            building = { removals, answer: build(type, steps, start, removals) };
            builds.set(type, building);
          }
          exposition = await building.answer;
        }
        // Empty is still 200: Prometheus takes any other status for a failed scrape (the target shows down).
        ctx.body = exposition.body;
        ctx.type = type;
      })
      .get('/:id', (ctx) => {
        const started = find(ctx);
        // One instant for the whole answer, so that uptime and elapsed_ms agree; it stops at the entry's end.
        const at = started.run.stats.asOf(now());
        ctx.body = {
          ...identityOf(started),
          config: redactConfig(started.run.entry),
          stats: statsOf(started, at),
          elapsed_ms: at - started.startedAt,
        };
      })
      .get('/:id/stats', (ctx) => {
        const started = find(ctx);
        ctx.body = statsOf(started, now());
      })
      .get('/:id/series', (ctx) => {
        const { scrape } = find(ctx);
        const rows = scrape.latestRows();
        ctx.body = {
          series: rows
            .slice(0, limitOf(ctx.query.limit, MAX_SERIES_LISTED, 100))
            .map(({ series, value }) => ({ name: sampleName(scrape.family.name, series), value })),
          total: rows.length,
        };
      })
      .get('/:id/metrics', (ctx) => {
        const started = find(ctx);
        const limit = limitOf(ctx.query.limit, MAX_SCRAPE_EVENTS, 100);
        // HEAD (which the router answers with this route) must not take the events a GET would drain.
        const text = ctx.method === 'HEAD' ? started.scrape.peek(limit) : started.scrape.drain(limit);
        if (text === undefined) return void (ctx.status = 204);
        ctx.type = EXPOSITION;
        ctx.body = text;
      })
      .delete('/:id', async (ctx) => {
        // One that had ended logged its end then ("scenario ended", "scenario failed"): one line per event of its life.
        const running = registry.get(ctx.params.id!)?.outcome === undefined;
        const removing = registry.remove(ctx.params.id!);
        // What a kept exposition holds is no longer answered (removals): not held either.
        expositions.clear();
        const started = (await removing) ?? notFoundScenario(ctx.params.id!);
        // `scenario`, as every other line of a scenario: a search for its id finds its end too.
        if (running)
          logger.info({ scenario: started.id, entry: started.run.entry.id, name: started.name }, 'scenario stopped');
        if (deps.state) await forget(deps.state, started);
        // The id is gone after this answer: its final record (what the stop's flush delivered or gave up) is told here.
        ctx.body = {
          id: started.id,
          status: 'stopped',
          total_events: started.run.stats.totalEvents,
          stats: statsOf(started, now()),
        };
      })
  );
}

/**
 * Writes a started POST to the state directory before it is answered, so a 201 survives a restart; when the
 * write fails the scenarios still listed are stopped again, each logged as stopped (the log said they started), and the answer is
 * a 500 saying why.
 */
async function keep(
  state: ScenarioStore,
  { registry, logger }: Pick<ServerDeps, 'registry' | 'logger'>,
  { text, format }: PostedScenario,
  started: readonly StartedEntry[],
): Promise<void> {
  try {
    await state.save(format, text, new Map(started.map((entry) => [entry.run.entry.id, entry.id])));
  } catch (error) {
    // Those a DELETE or another POST's room took out meanwhile were logged as such: not stopped here.
    const stopped = await Promise.all(started.map((entry) => registry.remove(entry.id)));
    const why =
      error instanceof StateDirectoryGone
        ? error.message
        : `${state.setting} ${state.dir} could not be written: ${(error as Error).message}`;
    for (const entry of stopped.filter((removed) => removed !== undefined))
      logger.error(
        { scenario: entry.id, entry: entry.run.entry.id, name: entry.name },
        `scenario stopped: its POST was answered 500 state_not_written: ${why}`,
      );
    throw new HttpError(500, 'state_not_written', `the scenario was not started: ${why}`);
  }
}

/**
 * Takes a deleted scenario out of the state directory before it is answered, so a 200 survives a restart; when
 * the write fails (the scenario is stopped all the same) the answer is a 500 saying it comes back at restart.
 * A directory gone meanwhile is a 200: removed, it took the record with it; moved, it still holds it, and the store
 * logs that it starts the scenario again if moved back (nothing tells the two apart, and a removal is the likely one).
 */
async function forget(state: ScenarioStore, started: StartedEntry): Promise<void> {
  try {
    await state.forget(started.id);
  } catch (error) {
    throw new HttpError(
      500,
      'state_not_written',
      `scenario ${started.id} was stopped, but ${state.setting} ${state.dir} could not be written: ${(error as Error).message}; it will start again when the server restarts`,
    );
  }
}

/**
 * How every answer names a started entry (a scenario, to the API): its UUID, its `id` in the
 * posted file (entries of one metric differ by it), the metric name and its status.
 */
function identityOf(started: StartedEntry) {
  return { id: started.id, entry: started.run.entry.id, name: started.name, status: statusOf(started) };
}

/** Each entry's silence test, made once: the console polls the statistics of every running entry. */
const silenced = perObject((entry: Entry) => silenceTest(entry.gaps, entry.gap_windows));

/**
 * The statistics record, with gap and burst state, at `now` on the entry's clock, or at its end once it ended (its
 * stats' `asOf`): the record and the gap and burst state of one instant, whoever asks (GET, DELETE's last answer).
 */
function statsOf(started: StartedEntry, now: number) {
  const { entry, stats } = started.run;
  const at = stats.asOf(now);
  const since = started.tickingSince();
  // Windows count from the entry's own start: before it, neither applies.
  const elapsed = since === undefined ? undefined : at - since;
  const inGap = elapsed !== undefined && silenced(entry)(elapsed);
  return {
    ...stats.snapshot(at),
    in_gap: inGap,
    in_burst: elapsed !== undefined && entry.bursts !== undefined && inHead(entry.bursts, elapsed) && !inGap,
  };
}

/** The `limit` query parameter: an integer from 1 to `max`, `byDefault` when absent; 400 otherwise. */
function limitOf(raw: unknown, max: number, byDefault: number): number {
  if (raw === undefined) return byDefault;
  const limit = Number(raw);
  // Digits only: Number() also reads 0x10, 1e3 and +5.
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || limit < 1 || limit > max) {
    throw new HttpError(
      400,
      'invalid_query',
      `limit: expected an integer from 1 to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return limit;
}

/** The opaque cursor after `started`: its place in the registry's order, valid while this server process runs. */
function cursorOf(started: StartedEntry): string {
  return Buffer.from(`after:${started.seq}`).toString('base64url');
}

/** The place a `cursor` query parameter names (none: from the first); 400 for anything but a cursor we answered. */
function afterOf(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const seq =
    typeof raw === 'string' ? /^after:(\d{1,15})$/.exec(Buffer.from(raw, 'base64url').toString())?.[1] : undefined;
  if (seq === undefined)
    throw new HttpError(
      400,
      'invalid_query',
      `cursor: ${JSON.stringify(raw)} is not a cursor of this server: pass the next_cursor of the previous page as it was answered`,
    );
  return Number(seq);
}

function notFoundScenario(id: string): never {
  throw notFound(`scenario ${id}`);
}
