import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { filesBeside, NAMED_FILES, type LocateFile, type NamedFile } from '../config/csv-replay.js';
import type { TextSource } from '../config/read.js';
import { isBelow, realFileStream, statIfAny } from '../real-file.js';
import type { Catalog } from '../catalog/index.js';
import type { SinkConfig } from '../config/types.js';
import type { ServerDeps } from './deps.js';
import { HttpError } from './http-error.js';
import { catalogReads } from '../catalog/files.js';
import { cannotOpenFile, type ReadFile } from '../sinks/core/open-check.js';
import { type Encoding, sharedFileRefusal } from '../sinks/core/shared-files.js';

/**
 * The files a sink run by the server names, confined below the operator's `--file-root` (design, "Server safety"):
 * where a `file` sink writes (see {@link confineFileSink}) and the `tls.ca_cert` a `broker` sink reads, by the rules
 * of {@link confineReadFile}: a client must not make the process read what it can read elsewhere, nor a named pipe,
 * whose read would stop the whole server. Returns the sink with the checked paths; other sinks pass unchanged.
 *
 * `root` is the root's real path ({@link realFileRoot}); undefined: such sinks are refused. `reads`: the files the
 * scenario and the others running or starting with it read, which a `file` sink may not write over; `own`: the
 * server's own directories ({@link serverDirectories}), which it may not write into; `encoding`: what the sink
 * writes, refused onto a file another sink of the server writes now as another encoding ({@link sharedFileRefusal}).
 */
export async function confineSink(
  sink: SinkConfig,
  root: string | undefined,
  where: string,
  reads: readonly ReadFile[] = [],
  own: readonly OwnDirectory[] = [],
  encoding?: Encoding,
): Promise<SinkConfig> {
  if (sink.type === 'file') return confineFileSink(sink, root, where, reads, own, encoding);
  if (sink.type !== 'broker' || sink.tls?.ca_cert === undefined) return sink;
  const caCert = sink.tls.ca_cert;
  const path = await confineRead(caCert, 'ca_cert', `${where}sink.tls.ca_cert: ${caCert}`, root);
  return { ...sink, tls: { ...sink.tls, ca_cert: path } };
}

/**
 * Where a `file` sink posted to the server may write: only below the operator's `--file-root`,
 * so a client cannot overwrite what the process can write elsewhere; not over a file of `reads`, nor into `own`.
 * Returns the sink with the path it will open: relative paths are taken below the root, `..`
 * is resolved, and the part of the path that exists is followed through its symlinks, so the
 * sink opens exactly the file checked here.
 */
async function confineFileSink<S extends { type: 'file'; path: string }>(
  sink: S,
  root: string | undefined,
  where: string,
  reads: readonly ReadFile[],
  own: readonly OwnDirectory[],
  encoding: Encoding | undefined,
): Promise<S> {
  if (root === undefined) {
    throw new HttpError(
      422,
      'file_sink_disabled',
      `${where}sink.path: file sinks are disabled on this server: start it with --file-root DIR (or SVC_FILE_ROOT=DIR) to allow writing below DIR`,
    );
  }
  const path = await pathBelow(root, sink.path);
  if (path === undefined)
    throw new HttpError(
      422,
      'file_sink_outside_root',
      `${where}sink.path: ${sink.path} is not a file below the file root ${root}`,
    );
  const dir = directoryHolding(path, own);
  if (dir)
    throw new HttpError(
      422,
      'file_sink_cannot_open',
      `${where}sink.path: cannot open ${sink.path}: it is in ${dir.what}`,
    );
  const target = await statIfAny(path);
  const special = target?.isDirectory() ? 'a directory' : specialFile(target);
  if (special)
    throw new HttpError(422, 'file_sink_not_a_file', `${where}sink.path: ${sink.path} is ${special}, not a file`);
  // Answered at the POST rather than by a `201` whose scenario fails a moment later, its reason only in a later GET.
  // The root's resolve drops a final `/`, which said a directory: it is checked as written.
  const unopenable = await cannotOpenFile(sink.path.endsWith('/') ? `${path}/` : path, target, reads);
  // Another sink of this server writing it now with another encoding: the sink would fail at its open.
  const refusal = unopenable ?? (encoding && sharedFileRefusal(path, encoding));
  if (refusal)
    throw new HttpError(422, 'file_sink_cannot_open', `${where}sink.path: cannot open ${sink.path}: ${refusal}`);
  return { ...sink, path };
}

/**
 * A directory the server reads its own files from, by its real path; `reads`: which files below it (relative path),
 * else every one.
 */
export interface OwnDirectory extends ReadFile {
  readonly reads?: (below: string) => boolean;
}

/**
 * The directories the server reads its own files from, below the file root or not: its `--state` records (a sink
 * writing one would lose a kept scenario at the next start) and its `--catalog` files (those it would read: a sink
 * may write other files there, so a file root inside the catalog stays usable).
 */
export async function serverDirectories({
  state,
  catalog,
}: Pick<ServerDeps, 'state' | 'catalog'>): Promise<OwnDirectory[]> {
  return [
    ...(state
      ? [
          {
            path: await realDirectory(state.dir),
            what: `the ${state.setting} directory, where the server keeps the scenarios it starts again`,
          },
        ]
      : []),
    ...(catalog
      ? [
          {
            path: await realDirectory(catalog.dir),
            what: `the ${catalog.setting} directory, whose .yaml, .yml and .json files the server reads`,
            reads: catalogReads,
          },
        ]
      : []),
  ];
}

/** The real paths of the server's own directories (its --state store's, its catalog's), by the path given. */
const realDirectories = new Map<string, Promise<string>>();

/**
 * The real path of the directory `dir`, resolved at its first use and kept, as the file root's is at start (a link
 * on its path pointed elsewhere later is not followed, as the root's is not): the catalog's, resolved at start to
 * tell whether it lies below the root ({@link rootHolding}), is not resolved again as an own directory.
 * A directory missing then is taken as its path stands, which a directory made again there has too.
 */
function realDirectory(dir: string): Promise<string> {
  let real = realDirectories.get(dir);
  if (!real) {
    real = realpath(dir).catch(() => resolve(dir));
    realDirectories.set(dir, real);
  }
  return real;
}

/** The one of `dirs` that holds `path` (a real path) as a file it reads; undefined when none does. */
function directoryHolding(path: string, dirs: readonly OwnDirectory[]): OwnDirectory | undefined {
  return dirs.find((dir) => isBelow(dir.path, path) && (dir.reads?.(relative(dir.path, path)) ?? true));
}

/** The prefix of the error codes that refuse a file a request names, by what the file is for. */
const READ_CODES: Readonly<Record<NamedFile, string>> = {
  csv_replay: 'csv_replay',
  replay: 'replay_file',
  pack: 'pack_file',
};

/**
 * Where a file named in a request (a `csv_replay` or `replay` file, a pack file given by its path) may be read from: only
 * below `--file-root`, as file sinks write (a client must not read what the process can read elsewhere);
 * relative paths are taken below the root. Undefined `root`: refused. Returns the checked file, opened only if it
 * still is the one checked.
 */
export async function confineReadFile(file: string, kind: NamedFile, root: string | undefined): Promise<TextSource> {
  const path = await confineRead(file, READ_CODES[kind], `${NAMED_FILES[kind]} ${file}`, root);
  return { stream: realFileStream(path), origin: path };
}

/** {@link confineReadFile} of a file shown as `what`, refused with the error codes `<code>_…`. */
async function confineRead(file: string, code: string, what: string, root: string | undefined): Promise<string> {
  if (root === undefined) {
    throw new HttpError(
      422,
      `${code}_disabled`,
      `${what}: reading files is disabled on this server: start it with --file-root DIR (or SVC_FILE_ROOT=DIR) to allow reading below DIR`,
    );
  }
  const path = await pathBelow(root, file);
  if (path === undefined)
    throw new HttpError(422, `${code}_outside_root`, `${what}: not a file below the file root ${root}`);
  const special = specialFile(await statIfAny(path));
  if (special) throw new HttpError(422, `${code}_not_a_file`, `${what}: it is ${special}, not a file`);
  return path;
}

/**
 * What a path is, by its `stats`, when it exists and is neither a regular file nor a directory (whose own messages
 * say so): opening a FIFO waits for its other end, a device may never end, so a request naming one would hold the
 * server's file threads.
 */
function specialFile(stats: Stats | undefined): string | undefined {
  if (!stats || stats.isFile() || stats.isDirectory()) return undefined;
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

/** `path` (relative: below `root`) with symlinks and `..` resolved, when it is below `root`; else undefined. */
async function pathBelow(root: string, path: string): Promise<string | undefined> {
  const real = await realPathOf(resolve(root, path));
  return real !== undefined && isBelow(root, real) ? real : undefined;
}

/**
 * `root` when the catalog directory `dir` is it or lies below it, where whoever writes below the root writes too: the
 * catalog then reads only below the root (`Catalog.open`'s `within`, {@link catalogFiles}); else undefined.
 */
export async function rootHolding(dir: string, root: string | undefined): Promise<string | undefined> {
  if (root === undefined) return undefined;
  const real = await realDirectory(dir);
  return real === root || isBelow(root, real) ? root : undefined;
}

/**
 * Where the files the catalog scenario at `path` names (its CSVs, its pack files by path) are read: beside it; in a
 * catalog below the file root, by the rules of a request's files ({@link confineReadFile}), so that a link there
 * leads nowhere out of the root.
 */
export function catalogFiles(catalog: Pick<Catalog, 'within'>, path: string): LocateFile {
  const { within } = catalog;
  if (within === undefined) return filesBeside(path);
  return (file, kind) => confineReadFile(resolve(dirname(path), file), kind, within);
}

/**
 * The real path of the `--file-root` directory; throws a message for the operator when it is not one, naming
 * `setting`, how it was given (`SVC_FILE_ROOT` when set by the variable).
 */
export async function realFileRoot(dir: string, setting = '--file-root'): Promise<string> {
  const root = await realpath(dir).catch(() => undefined);
  if (root === undefined || !(await lstat(root)).isDirectory())
    throw new Error(`${setting}: ${dir} is not a directory`);
  return root;
}

/** Why realpath may fail on a path whose existing part is still found by walking up. */
const UNRESOLVED = new Set(['ENOENT', 'ENOTDIR', 'EACCES']);

/**
 * `path` with its existing part replaced by its real path (symlinks followed) and the rest
 * appended as written. Undefined when it cannot be resolved that way: a part of it is a symlink
 * that leads nowhere (opening it would create its target, wherever that is), or the path is not one
 * the system takes.
 */
async function realPathOf(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let existing = path; ; existing = dirname(existing)) {
    try {
      return join(await realpath(existing), ...missing);
    } catch (error) {
      // A part that is a file (ENOTDIR) or may not be searched (EACCES) ends the existing part as a missing one does:
      // the path is still below the root or not, and the sink's checks then name why it cannot open.
      if (!UNRESOLVED.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      if (
        await lstat(existing).then(
          () => true,
          () => false,
        )
      )
        return undefined;
    }
    if (dirname(existing) === existing) return undefined;
    missing.unshift(basename(existing));
  }
}
