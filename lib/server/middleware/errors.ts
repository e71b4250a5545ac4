import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { HttpError } from '../http-error.js';
import { DrainingError, TooManyEntriesError } from '../registry.js';

/**
 * First middleware: every failure becomes the `{error, detail}` envelope with its status, and an
 * unexpected one a logged 500 — a bad request never takes the server down. Unknown routes get a
 * 404 in the same envelope, methods no route takes a 405.
 */
export function errors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined && [404, 405, 501].includes(ctx.status)) unrouted(ctx);
    } catch (error) {
      const known = asHttpError(error);
      if (!known) logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unexpected error');
      const { status, code, detail } =
        known ?? new HttpError(500, 'internal_error', 'unexpected server error; see the server log');
      ctx.status = status;
      ctx.body = { error: code, detail };
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
    }
  };
}

/**
 * Nothing answered: no route takes this path (404), or none takes this method on it (405). The
 * router answers 501 for a method it does not know at all (PROPFIND): to a client that is a
 * method not allowed here too.
 */
function unrouted(ctx: Context): never {
  const allowed = ctx.response.get('Allow');
  if (ctx.status === 404 || !allowed) {
    ctx.remove('Allow');
    throw noRoute(ctx);
  }
  throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path} (allowed: ${allowed})`);
}

/**
 * A path with a trailing slash names no resource, as in Prometheus' API: `/scenarios/` is not `/scenarios`. The
 * router would take both (its `strict` option breaks its prefixes), so this runs before the routers, after
 * authentication: 404, naming the path that is.
 */
export function exactPaths(): Middleware {
  return (ctx, next) => {
    if (ctx.path === '/' || !ctx.path.endsWith('/')) return next();
    throw noRoute(ctx, `: paths take no trailing slash (${ctx.path.replace(/\/+$/, '') || '/'})`);
  };
}

/** The 404 of a path no route takes, `why` after it. */
function noRoute(ctx: Context, why = ''): HttpError {
  return new HttpError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}${why}`);
}

/** Our own errors, a draining registry's (503), a full one's (429), and the status errors koa and its body parser throw (413, 400, 415). */
export function asHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof DrainingError) return new HttpError(503, 'draining', error.message);
  if (error instanceof TooManyEntriesError) return new HttpError(429, 'too_many_entries', error.message);
  const status = (error as { status?: number }).status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const message = (error as Error).message;
  if (status === 413) return new HttpError(413, 'payload_too_large', 'request body over 1 MiB');
  if (status === 415) return new HttpError(415, 'unsupported_media_type', message);
  return new HttpError(
    status,
    status === 400 ? 'malformed_body' : 'bad_request',
    status === 400 ? `request body is not valid: ${message}` : message,
  );
}
