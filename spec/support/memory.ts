import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, for specs that measure what memory a thing keeps: V8's `gc`, exposed to a new context
 * (mocha runs without `--expose-gc`).
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
