import Router from '@koa/router';

/** `GET /health`: liveness. */
export function healthRoutes(): Router {
  return new Router().get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
}
