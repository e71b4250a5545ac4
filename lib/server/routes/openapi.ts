import { createRequire } from 'node:module';
import { Router } from '../packages.js';

/** The API's OpenAPI 3 document, kept in docs/ and served as is. */
export const OPENAPI = createRequire(import.meta.url)('svc/docs/openapi.json') as {
  paths: Record<string, Record<string, unknown>>;
};

export function openapiRoutes(): Router {
  return new Router().get('/openapi.json', (ctx) => {
    ctx.body = OPENAPI;
  });
}
