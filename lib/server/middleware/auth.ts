import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { HttpError } from '../http-error.js';

/** The one 401 detail: a caller cannot tell a wrong key from a missing or malformed header. */
const UNAUTHORIZED = 'this server requires an API key: send Authorization: Bearer <API key>';

/**
 * With an API key configured, every route and method but `GET` and `HEAD /health` needs
 * `Authorization: Bearer <key>`, the scheme in any case (RFC 7235). Keys are compared as SHA-256
 * digests with `timingSafeEqual`: constant time, whatever the length.
 */
export function auth(apiKey: string | undefined): Middleware {
  if (!apiKey) return (_ctx, next) => next();
  const expected = digest(apiKey);
  return async (ctx, next) => {
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path === '/health') return next();
    const key = /^bearer +(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
    if (key === undefined || !timingSafeEqual(digest(key), expected))
      throw new HttpError(401, 'unauthorized', UNAUTHORIZED);
    await next();
  };
}

/**
 * Why `key` cannot serve as the API key, without showing it; undefined when it can. An empty key left every route
 * open without a word (`--api-key "$UNSET"`), and one with whitespace or a control character (a line break at its
 * end, as a Secret made from a file keeps) could never be sent as `Bearer <key>`, so every request was refused.
 */
export function apiKeyProblem(key: string): string | undefined {
  if (key === '')
    return 'is empty, which would leave every route open: give the key, or leave it unset to run without one';
  if (/[\s\u0000-\u001f\u007f]/.test(key))
    return 'holds whitespace or a control character (a line break at its end?), which an Authorization: Bearer header cannot carry: remove it';
  return undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
