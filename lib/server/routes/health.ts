import { Router } from '../packages.js';
import type { ServerDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { DrainingError } from '../registry.js';

/**
 * `GET /health`: liveness, 200 while the process serves. `GET /health?ready`: readiness, 503 `starting`
 * while the server starts its `--autostart` and `--state` scenarios, then the same answer until the server
 * starts draining (SIGTERM), then 503 `draining`, so a load balancer or a Kubernetes readiness probe sends
 * no traffic before the scenarios run nor while they flush.
 */
export function healthRoutes({ registry, starting }: Pick<ServerDeps, 'registry' | 'starting'>): Router {
  return new Router().get('/health', (ctx) => {
    if (ctx.query.ready !== undefined) {
      if (registry.draining) throw new DrainingError();
      if (starting?.())
        throw new HttpError(
          503,
          'starting',
          'svc-server is still starting its --autostart and --state scenarios: ready once they run',
        );
    }
    ctx.body = { status: 'ok' };
  });
}
