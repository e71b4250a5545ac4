import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * The package's root folder, found through the package's own name rather than a module's folder: the support code
 * and the benchmarks run from the sources and, for `npm run bench`, compiled into dist-bench/.
 */
export const PACKAGE_ROOT = dirname(createRequire(import.meta.url).resolve('svc/package.json'));
