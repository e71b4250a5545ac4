import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { HttpError } from '../http-error.js';

/**
 * With an API key configured, every route but `GET /health` needs `Authorization: Bearer <key>`.
 * Keys are compared as SHA-256 digests with `timingSafeEqual`: constant time, whatever the length.
 */
export function auth(apiKey: string | undefined): Middleware {
  if (!apiKey) return (_ctx, next) => next();
  const expected = digest(apiKey);
  return async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/health') return next();
    const header = ctx.get('Authorization');
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!header) throw new HttpError(401, 'unauthorized', 'missing Authorization header: send Authorization: Bearer <API key>');
    if (!match) throw new HttpError(401, 'unauthorized', 'malformed Authorization header: expected Bearer <API key>');
    if (!timingSafeEqual(digest(match[1]!), expected)) throw new HttpError(401, 'unauthorized', 'wrong API key');
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
