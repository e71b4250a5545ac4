import type { ServerDeps } from './deps.js';

/** The server's clock: its injected scheduler's (virtual in specs), else the wall clock. */
export function nowOf({ scheduler }: Pick<ServerDeps, 'scheduler'>): () => number {
  return scheduler ? () => scheduler.now() : Date.now;
}
