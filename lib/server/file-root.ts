import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, isAbsolute } from 'node:path';
import type { SinkConfig } from '../config/types.js';
import { HttpError } from './http-error.js';

/**
 * Where a `file` sink posted to the server may write: only below the operator's `--file-root`
 * (design, "Server safety"), so a client cannot overwrite what the process can write elsewhere.
 * Returns the sink with the path it will open: relative paths are taken below the root, `..`
 * is resolved, and the part of the path that exists is followed through its symlinks, so the
 * sink opens exactly the file checked here. Other sinks pass unchanged.
 *
 * `root` is the root's real path ({@link realFileRoot}); undefined: file sinks are refused.
 */
export async function confineFileSink<S extends SinkConfig>(sink: S, root: string | undefined, where: string): Promise<S> {
  if (sink.type !== 'file') return sink;
  if (root === undefined) {
    throw new HttpError(422, 'file_sink_disabled', `${where}sink.path: file sinks are disabled on this server: start it with --file-root DIR (or SVC_FILE_ROOT=DIR) to allow writing below DIR`);
  }
  const path = await realPathOf(resolve(root, sink.path));
  const below = path === undefined ? undefined : relative(root, path);
  if (below === undefined || below === '' || below.startsWith('..') || isAbsolute(below)) {
    throw new HttpError(422, 'file_sink_outside_root', `${where}sink.path: ${sink.path} is not a file below the file root ${root}`);
  }
  return { ...sink, path };
}

/** The real path of the `--file-root` directory; throws a message for the operator when it is not one. */
export async function realFileRoot(dir: string): Promise<string> {
  const root = await realpath(dir).catch(() => undefined);
  if (root === undefined || !(await lstat(root)).isDirectory()) throw new Error(`--file-root: ${dir} is not a directory`);
  return root;
}

/**
 * `path` with its existing part replaced by its real path (symlinks followed) and the rest
 * appended as written. Undefined when it cannot be resolved that way: a part of it is a symlink
 * that leads nowhere (opening it would create its target, wherever that is), or is not a
 * directory, or the path is not one the system takes.
 */
async function realPathOf(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let existing = path; ; existing = dirname(existing)) {
    try {
      return join(await realpath(existing), ...missing);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
      if (await lstat(existing).then(() => true, () => false)) return undefined;
    }
    if (dirname(existing) === existing) return undefined;
    missing.unshift(basename(existing));
  }
}
