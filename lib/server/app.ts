import { createRequire } from 'node:module';
import type { Middleware } from 'koa';
import { Koa } from './packages.js';
import { MAX_TEXT_BYTES } from '../language/limits.js';
import type { ServerDeps } from './deps.js';
import { auth } from './middleware/auth.js';
import { loopbackHosts } from './middleware/host.js';
import { sameOrigin } from './middleware/origin.js';
import { consoleAssets } from './console.js';
import { catalogRoutes } from './routes/catalog.js';
import { errors, exactPaths } from './middleware/errors.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { openapiRoutes } from './routes/openapi.js';
import { previewRoutes } from './routes/preview.js';
import { JSON_TYPES, YAML_TYPES } from './body.js';
import { HttpError } from './http-error.js';
import { scenarioRoutes } from './routes/scenarios.js';

const require = createRequire(import.meta.url);

/**
 * The svc HTTP API as a koa app: error envelope first, the refusal of other origins' pages (and of DNS names on a
 * keyless loopback server), then the web console's
 * files (open: docs/console.md), authentication, body parsing (text of JSON and YAML bodies; 1 MiB at most: larger ones get 413), and one router
 * per resource. Tests drive it through `app.callback()`; `svc-server` listens with it. JSON is read as text too:
 * lib/config parses every body, with its bounds on size and nesting, so no parse of a hostile body is unbounded.
 */
export function createApp(deps: ServerDeps): Koa {
  const app = new Koa();
  app.silent = true; // the error middleware logs what deserves it
  app.use(errors(deps.logger));
  if (deps.loopbackOnly) app.use(loopbackHosts()); // a page must not reach a keyless local server by DNS rebinding
  app.use(sameOrigin()); // before all: a page of another origin must not start scenarios through a browser
  app.use(consoleAssets()); // open: the console's page must load to ask for the key
  app.use(auth(deps.apiKey));
  app.use(exactPaths());
  app.use(textBodies());
  for (const router of [
    healthRoutes(deps),
    scenarioRoutes(deps),
    eventRoutes(deps),
    catalogRoutes(deps),
    previewRoutes(deps),
    openapiRoutes(),
  ]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}

/**
 * The body parser, keeping bodies of the YAML and JSON types as text. It is loaded by the first
 * request with such a body: its decoders are of no use to an idle server. Other requests skip it:
 * it would read nothing of theirs; so do the methods of routes that take no body (only POSTs do), which a
 * body too large or badly encoded would otherwise fail with 413 or 400, a liveness probe included.
 */
function textBodies(): Middleware {
  const types = [...YAML_TYPES, ...JSON_TYPES];
  let parser: Middleware | undefined;
  return (ctx, next) => {
    if (ctx.method !== 'POST' || !ctx.is(types)) return next();
    parser ??= (require('koa-bodyparser') as typeof import('koa-bodyparser'))({
      enableTypes: ['text'],
      extendTypes: { text: types },
      textLimit: `${MAX_TEXT_BYTES}b`,
      onerror: (error, request) => {
        // Reading errors carry their status (413, 400, 415); one without is the decompressor's: not what its
        // Content-Encoding says.
        if (typeof (error as { status?: unknown }).status === 'number') throw error;
        throw new HttpError(
          400,
          'malformed_body',
          `request body is not valid ${request.get('Content-Encoding')} data (its Content-Encoding): ${error.message}`,
        );
      },
    });
    return parser(ctx, next);
  };
}
