import type { Middleware } from 'koa';
import { HttpError } from '../http-error.js';

/**
 * Refuses what a web page of another origin asks: a browser lets any page POST a `text/plain` body (a scenario, to
 * this API) to any address, the server's on `127.0.0.1` included, without asking first, and sends its `Origin`
 * with it. Without an API key that started the page's scenarios, with their sinks. The console is served from this
 * origin; clients that are not browsers send no `Origin`. The `Host` a proxy forwarded (`X-Forwarded-Host`) counts
 * as this origin too: no page can set that header without the preflight this server never answers.
 */
export function sameOrigin(): Middleware {
  return (ctx, next) => {
    const origin = ctx.get('Origin');
    if (!origin) return next();
    const host = hostOf(origin);
    const own = [ctx.get('Host'), ctx.get('X-Forwarded-Host')].filter(Boolean).map((h) => h.toLowerCase());
    if (host !== undefined && own.includes(host)) return next();
    throw new HttpError(
      403,
      'cross_origin',
      `requests from web pages of another origin (${origin}) are refused: use the console this server serves, or a client that is not a browser`,
    );
  };
}

/** The `host[:port]` of an `Origin` as a `Host` header writes it; undefined for `null` and what is not a URL. */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}
