import { extname, sep } from 'node:path';

/**
 * Which files a catalog reads: apart from the catalog itself, so that svc-server's file root (which keeps sinks off
 * them) does not load the scenario language to ask.
 */

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Whether a catalog reads the file at `path`, relative to its directory: no part hidden, a scenario's extension. */
export function catalogReads(path: string): boolean {
  return !path.split(sep).some((part) => part.startsWith('.')) && EXTENSIONS.has(extname(path).toLowerCase());
}
