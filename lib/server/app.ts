import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { MAX_TEXT_BYTES } from '../language/limits.js';
import type { ServerDeps } from './deps.js';
import { auth } from './middleware/auth.js';
import { errors } from './middleware/errors.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { openapiRoutes } from './routes/openapi.js';
import { JSON_TYPES, YAML_TYPES } from './body.js';
import { scenarioRoutes } from './routes/scenarios.js';


/**
 * The svc HTTP API as a koa app: error envelope first, then authentication, body parsing
 * (text of JSON and YAML bodies; 1 MiB at most: larger ones get 413), and one router per resource. Tests drive it through
 * `app.callback()`; `svc-server` listens with it. JSON is read as text too: lib/config parses
 * every body, with its bounds on size and nesting, so no parse of a hostile body is unbounded.
 */
export function createApp(deps: ServerDeps): Koa {
  const app = new Koa();
  app.silent = true; // the error middleware logs what deserves it
  app.use(errors(deps.logger));
  app.use(auth(deps.apiKey));
  app.use(bodyParser({ enableTypes: ['text'], extendTypes: { text: [...YAML_TYPES, ...JSON_TYPES] }, textLimit: `${MAX_TEXT_BYTES}b` }));
  for (const router of [healthRoutes(deps), scenarioRoutes(deps), eventRoutes(deps), openapiRoutes()]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
