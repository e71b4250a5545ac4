import { Router } from '../packages.js';
import type { ServerDeps } from '../deps.js';
import { DrainingError } from '../registry.js';

/**
 * `GET /health`: liveness, 200 while the process serves. `GET /health?ready`: readiness, the
 * same answer until the server starts draining (SIGTERM), then 503 `draining`, so a load balancer
 * or a Kubernetes readiness probe sends no new traffic while the scenarios flush.
 */
export function healthRoutes({ registry }: Pick<ServerDeps, 'registry'>): Router {
  return new Router().get('/health', (ctx) => {
    if (ctx.query.ready !== undefined && registry.draining) throw new DrainingError();
    ctx.body = { status: 'ok' };
  });
}
