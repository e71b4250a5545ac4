/**
 * Whether a file sink's path can be opened, asked before a run starts: apart from the sink itself, so that what asks
 * (svc-server's file root at every POST, `svc run`) does not load the stream machinery to ask it.
 */
import { constants, type Stats } from 'node:fs';
import { access, stat as statOf } from 'node:fs/promises';
import { dirname } from 'node:path';
import { statIfAny } from '../../real-file.js';
import { createdAt, describeError, explainFile, throughLink } from './errors.js';

/**
 * Why a file sink could not open `path` for sure, found without opening it (which would create or truncate it): it
 * is a directory, its directory does not exist or is not one, or this process may not write there; or it is one of
 * `reads`, the files the run reads (its scenario file, a csv_replay file), which it would overwrite. Undefined when
 * it may open. Asked before a run starts (svc-server at the POST, `svc run` before any entry starts), so that a
 * mistyped path is refused with its field rather than by a sink failing (or a file lost) once the run is under way.
 *
 * `target`: what is at `path`, as `statIfAny` (lib/real-file.ts) found it (the callers look at it too); where
 * nothing is, the path is looked at again only to say why.
 */
export async function cannotOpenFile(
  path: string,
  target: Stats | undefined,
  reads: readonly ReadFile[] = [],
): Promise<string | undefined> {
  // The system opens `out/` as a directory, existing or not (EISDIR): say so before the sink's open does.
  if (path.endsWith('/')) return explainFile('EISDIR', path);
  if (target) {
    if (target.isDirectory()) return explainFile('EISDIR', path);
    // Opening truncates it, appending mixes the sink's lines into it: either way the user is left without the file.
    const read = await sameFileIn(target, reads);
    if (read) return `it is ${read.what}, which writing would overwrite`;
    // An existing file, pipe or device (`-o /dev/null`) is opened as it is: only its own permission counts.
    return accessProblem(path, constants.W_OK);
  }
  // Why nothing is there: a loop of symbolic links (ELOOP) or a name too long fails the open so too.
  const missing = await statOf(path).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error,
  );
  if (missing && !NOTHING_THERE.has(missing.code ?? ''))
    return explainFile(missing.code, path) ?? describeError(missing);
  // The open creates the file, at the end of the symbolic links at `path` when it is one to nowhere.
  const created = createdAt(path) ?? path;
  const at = (why: string | undefined) => (why === undefined || created === path ? why : throughLink(created, why));
  const parent = await statOf(dirname(created)).catch((error: NodeJS.ErrnoException) => error);
  if (parent instanceof Error) return at(explainFile(parent.code, created) ?? describeError(parent));
  // Creating a file needs a directory this process may write to and search (W and X); a file there is no directory.
  if (!parent.isDirectory()) return at(explainFile('ENOTDIR', created));
  return at(await accessProblem(dirname(created), constants.W_OK | constants.X_OK, created));
}

/**
 * A file a run reads, and what it is in messages (`the scenario file being run`); svc-server names its own
 * directories so too (lib/server/file-root.ts).
 */
export interface ReadFile {
  readonly path: string;
  readonly what: string;
  /** What is at `path`, looked at once for several comparisons ({@link statedOnce}); else looked at by each. */
  readonly stats?: Promise<Stats | undefined>;
}

/**
 * `files`, each looked at once, when first compared ({@link sameFileIn}), for every file compared with them: a file
 * of a hundred `file` sinks onto existing files looked at each file the running scenarios read a hundred times.
 */
export function statedOnce<F extends ReadFile>(files: readonly F[]): F[] {
  return files.map((file) => {
    let stats: Promise<Stats | undefined> | undefined;
    return {
      ...file,
      get stats() {
        stats ??= statIfAny(file.path);
        return stats;
      },
    };
  });
}

/**
 * The one of `files` that is the file `stats` describes: by device and inode, so that a symbolic link, a hard link or
 * another spelling of its path counts. Whether a file written is one read, asked both ways: of a sink's file among the
 * files read, and (svc-server) of a file read among those its running sinks write.
 */
export async function sameFileIn(stats: Stats, files: readonly ReadFile[]): Promise<ReadFile | undefined> {
  for (const file of files) {
    const other = await (file.stats ?? statIfAny(file.path));
    if (other && other.dev === stats.dev && other.ino === stats.ino) return file;
  }
  return undefined;
}

/** What stat says of a path where no file is (or of a link to such a place): its directory is checked instead. */
const NOTHING_THERE = new Set(['ENOENT', 'ENOTDIR']);

/** Why this process may not reach `target` in `mode`, said of the sink's `path`; undefined when it may. */
async function accessProblem(target: string, mode: number, path = target): Promise<string | undefined> {
  const problem = await access(target, mode).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error,
  );
  return problem && (explainFile(problem.code, path) ?? problem.message);
}
