import { createRequire } from 'node:module';
import type { Context } from 'koa';
import { Router } from '../packages.js';
import type { ServerDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { parseDuration } from '../../language/duration.js';
import { MAX_START_EPOCH_MS } from '../../language/limits.js';
import type { PreviewOptions } from '../../preview/index.js';

// The parser, the pipeline and the preview are loaded by the first POST (docs/performance.md).
const require = createRequire(import.meta.url);

/** Points of a preview when the query gives no `points`. */
const DEFAULT_POINTS = 240;
/** Previews computed at once: each keeps a core busy for up to seconds, so more wait for none and get 429. */
export const MAX_RUNNING_PREVIEWS = 2;

/**
 * `POST /preview?for=30m&points=240&entry=ID&start=MS`: the Preview of a scenario body (as `POST /scenarios` takes
 * it, with the same 400, 415 and 422 answers), computed on virtual time without writing to any sink
 * (docs/plot.md). 400 for a query out of bounds, 422 for an `entry` the file lacks or a preview too large to make,
 * 429 while {@link MAX_RUNNING_PREVIEWS} are being computed.
 */
export function previewRoutes(deps: ServerDeps): Router {
  let running = 0;
  return new Router().post('/preview', async (ctx) => {
    const { parseScenario } = require('../posted.js') as typeof import('../posted.js');
    const { previewScenario, PreviewError } =
      require('../../preview/index.js') as typeof import('../../preview/index.js');
    const options = previewOptions(ctx);
    const { file } = await parseScenario(ctx, deps);
    if (running >= MAX_RUNNING_PREVIEWS)
      throw new HttpError(429, 'too_many_previews', `${running} previews are being computed: try again in a moment`);
    running++;
    // A client that goes away (a newer Preview in the console aborts the older) frees its slot at once.
    const gone = new AbortController();
    const abandon = () => ctx.res.writableFinished || gone.abort(new Error('the client went away'));
    ctx.res.once('close', abandon);
    try {
      ctx.body = await previewScenario(file.plans, { ...options, signal: gone.signal });
    } catch (error) {
      if (gone.signal.aborted) return;
      if (!(error instanceof PreviewError)) {
        deps.logger.error({ err: error }, 'preview failed');
        throw new HttpError(500, 'preview_failed', `the preview failed: ${(error as Error).message}`);
      }
      // The route checked `points` and the upper bound of `for` itself; the lower bound is previewScenario's.
      if (error.option === 'for') throw new HttpError(400, 'invalid_query', error.message);
      // What is left is about the file (an entry it lacks, its rates).
      if (error.option === 'rate')
        throw new HttpError(
          422,
          'preview_too_large',
          `${error.message}: ask a shorter span (for) or one entry (entry)`,
        );
      throw new HttpError(422, 'validation_failed', error.message);
    } finally {
      ctx.res.off('close', abandon);
      running--;
    }
  });
}

/**
 * The query's `for`, `points`, `entry` and `start`, bounded: 400 `invalid_query` naming the parameter. Without
 * `for`, the file decides it (previewScenario).
 */
function previewOptions(ctx: Context): PreviewOptions {
  const { MAX_PREVIEW_MS, MIN_POINTS, MAX_POINTS } =
    require('../../preview/index.js') as typeof import('../../preview/index.js');
  const invalid = (detail: string) => new HttpError(400, 'invalid_query', detail);
  const single = (name: string): string | undefined => {
    const raw = ctx.query[name];
    if (Array.isArray(raw)) throw invalid(`${name}: give it once, got ${raw.length} values`);
    return raw;
  };
  const forText = single('for');
  let forMs: number | undefined;
  if (forText !== undefined) {
    try {
      forMs = parseDuration(forText);
    } catch (error) {
      throw invalid(`for: ${(error as Error).message}`);
    }
    if (forMs > MAX_PREVIEW_MS) throw invalid(`for: at most 24h, got ${JSON.stringify(forText)}`);
  }
  const pointsText = single('points');
  const points = pointsText === undefined ? DEFAULT_POINTS : Number(pointsText);
  if (!Number.isInteger(points) || points < MIN_POINTS || points > MAX_POINTS)
    throw invalid(
      `points: expected a whole number from ${MIN_POINTS} to ${MAX_POINTS}, got ${JSON.stringify(pointsText)}`,
    );
  const entry = single('entry');
  if (entry === '') throw invalid('entry: expected the id of an entry of the file, got ""');
  const startText = single('start');
  const start = startText === undefined ? undefined : Number(startText);
  // A file's absolute start_time ends at 2200 too: past it, timestamps overflow what the encoders write.
  if (start !== undefined && !(Number.isSafeInteger(start) && start >= 0 && start <= MAX_START_EPOCH_MS))
    throw invalid(
      `start: expected epoch milliseconds, a whole number from 0 to ${MAX_START_EPOCH_MS} (2200-01-01T00:00:00Z), got ${JSON.stringify(startText)}`,
    );
  return {
    ...(forMs !== undefined && { for: forMs }),
    points,
    ...(entry !== undefined && { entry }),
    ...(start !== undefined && { start }),
  };
}
