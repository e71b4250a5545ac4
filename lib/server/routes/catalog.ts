import { Router } from '../packages.js';
import type { ServerDeps } from '../deps.js';

/**
 * `GET /catalog`: the files of `--catalog` (docs/catalog.md), each with its name, kind and description, so a
 * client (the console) can offer them; a runnable one starts with a `POST /scenarios` body of `@name`. Without a
 * catalog the list is empty.
 */
export function catalogRoutes({ catalog }: Pick<ServerDeps, 'catalog'>): Router {
  return new Router().get('/catalog', (ctx) => {
    ctx.body = {
      items: (catalog?.items ?? []).map(({ name, kind, description, category, tags, size }) => ({
        name,
        kind,
        description: description ?? null,
        category: category ?? null,
        tags: tags ?? [],
        size: size ?? null,
      })),
    };
  });
}
