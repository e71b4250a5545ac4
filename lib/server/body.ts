import type { Context } from 'koa';
import type { Variables } from '../config/interpolate.js';

/**
 * Variables of svc-server that a request body may name: `SVC_ENV_REGION` is `${REGION}`; the rest of its
 * environment stays private.
 */
const BODY_VARIABLE = /^SVC_ENV_(.+)$/;

/** The variables of posted scenarios, from svc-server's environment. */
export function bodyVariables(env: Variables): Variables {
  return Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) => {
      const match = BODY_VARIABLE.exec(name);
      return match ? [[match[1]!, value]] : [];
    }),
  );
}

/**
 * Media types of YAML bodies (text/plain too: curl's `--data-binary` default is not one of them, but people
 * send it).
 */
export const YAML_TYPES = ['text/yaml', 'application/yaml', 'application/x-yaml', 'text/x-yaml', 'text/plain'];
export const JSON_TYPES = ['application/json', 'application/*+json'];

/** The body as the body parser kept it: text of every type above, parsed by lib/config with its bounds. */
export function bodyText(ctx: Context): string | undefined {
  return (ctx.request as { rawBody?: string }).rawBody;
}
