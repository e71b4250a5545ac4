import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import type { ServerDeps } from './deps.js';
import { auth } from './middleware/auth.js';
import { errors } from './middleware/errors.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { openapiRoutes } from './routes/openapi.js';
import { scenarioRoutes, YAML_TYPES } from './routes/scenarios.js';

/** Request bodies above this get 413. */
const BODY_LIMIT = '1mb';

/**
 * The svc HTTP API as a koa app: error envelope first, then authentication, body parsing
 * (JSON, and YAML as text; 1 MiB at most), and one router per resource. Tests drive it through
 * `app.callback()`; `svc-server` listens with it.
 */
export function createApp(deps: ServerDeps): Koa {
  const app = new Koa();
  app.silent = true; // the error middleware logs what deserves it
  app.use(errors(deps.logger));
  app.use(auth(deps.apiKey));
  app.use(bodyParser({ enableTypes: ['json', 'text'], extendTypes: { text: YAML_TYPES }, jsonLimit: BODY_LIMIT, textLimit: BODY_LIMIT }));
  for (const router of [healthRoutes(), scenarioRoutes(deps), eventRoutes(deps), openapiRoutes()]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
