import { createRequire } from 'node:module';

/** svc's version, from its package.json: the CLI's `--version`, and the instrumentation scope of OTLP data. */
export const VERSION = (createRequire(import.meta.url)('svc/package.json') as { version: string }).version;
