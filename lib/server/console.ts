import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import { notFound } from './http-error.js';

const require = createRequire(import.meta.url);

/** Where `npm run build` writes the console (console/build.ts): index.html and assets/ of hashed names. */
export const CONSOLE_DIR = join(dirname(require.resolve('svc/package.json')), 'dist', 'console');

/**
 * The console's policy: its own scripts, styles, images and API calls only; nothing inline, no other
 * origin, no framing. CodeMirror's styles are constructed stylesheets and uPlot's are set through the
 * CSSOM, neither of which the policy blocks.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A year: the longest a cache keeps anything; assets are named by their content hash, so they never change. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/**
 * The web console (docs/console.md): `GET`/`HEAD` of `/`, `/ui` and `/ui/` answer its page, revalidated on each
 * load (`no-cache`, `Last-Modified`), and `/ui/assets/*` its scripts and styles, cached as immutable. Mounted
 * before authentication: the page must load to ask for the key; every API call it makes then carries it.
 * Without a built console (no `npm run build`) these paths answer 404 with a hint.
 */
export function consoleAssets(dir: string = CONSOLE_DIR): Middleware {
  let send: typeof import('@koa/send').send | undefined;
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path === '/' || ctx.path === '/ui' || ctx.path === '/ui/' ? '/index.html' : assetOf(ctx.path);
    if (path === undefined) return next();
    // The detail leaves the directory out: these paths answer without the API key.
    if (!existsSync(dir)) throw notFound('the web console (not built: run npm run build)');
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    send ??= (require('@koa/send') as typeof import('@koa/send')).send;
    const immutable = path !== '/index.html';
    try {
      await send(ctx, path, {
        root: dir,
        immutable,
        maxage: immutable ? ASSET_MAX_AGE_MS : 0,
        setHeaders: immutable ? undefined : (res) => res.setHeader('Cache-Control', 'no-cache'),
      });
    } catch (error) {
      if ((error as { status?: number }).status === 404) throw notFound(`console asset ${ctx.path}`);
      throw error;
    }
    // What koa-conditional-get does: a revalidation of an unchanged file gets 304 without the body.
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.body = null;
    }
  };
}

/** The asset path below the console directory for `/ui/assets/<name>` (no dot file); undefined for any other path. */
function assetOf(path: string): string | undefined {
  return /^\/ui\/assets\/[\w-][\w.-]*$/.test(path) ? path.slice('/ui'.length) : undefined;
}
