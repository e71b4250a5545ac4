import { randomUUID } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { jsonSyntaxMessage } from '../config/parse.js';
import { explainFile } from '../sinks/core/errors.js';

/** How a posted body was written: it is parsed again the same way when the server restarts. */
export type BodyFormat = 'json' | 'yaml';

/** What `--state DIR` keeps of one POST: the body as posted and the id each of its entries was given. */
export interface StoredScenario {
  /** The file's name in the state directory, without `.json`. */
  readonly key: string;
  readonly format: BodyFormat;
  /** The body exactly as posted (with its `${NAME}` references unexpanded). */
  readonly body: string;
  /** Entry id in the posted file → the scenario id the API answered; an entry leaves it when it stops. */
  readonly ids: ReadonlyMap<string, string>;
}

/** A file of the state directory that is not a record written by this version: reported and skipped. */
export interface UnreadableState {
  readonly file: string;
  readonly problem: string;
}

/**
 * A write failed because the state directory itself is gone from its path (removed or moved while the server runs:
 * a stat cannot tell which): nothing can be kept there. The message says so, naming the directory. A removed one
 * took its records with it; a moved one still holds them, as they were, and starts them again if moved back.
 */
export class StateDirectoryGone extends Error {
  /** `setting`: how the directory was given, as {@link ScenarioStore.setting}. */
  constructor(
    readonly dir: string,
    setting: string,
  ) {
    super(
      `${setting} ${dir} no longer exists (removed or moved while the server runs): nothing can be kept there; create it again, owner-only (mkdir -m 700), to keep new scenarios`,
    );
  }
}

/** The mark of a record, so that a foreign JSON file in the directory is not taken for one. */
const VERSION = 'svc-state/1';
/** A state file is a posted body and a few ids: bodies are 1 MiB at most (MAX_TEXT_BYTES). */
const MAX_RECORD_BYTES = 4 << 20;
/** Owner only: a record holds the posted scenario, which may carry sink credentials (docs/reliability.md). */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * The scenarios started through the API, kept in a directory (`--state DIR`) so that a restarted
 * server starts them again with the same ids. One JSON file per POST, written atomically (a
 * temporary file, fsync, rename, fsync of the directory), so a crash leaves the old record or the
 * new one, never half of one. Writes of one record are serialised; records are independent.
 */
export class ScenarioStore {
  private readonly records = new Map<string, { format: BodyFormat; body: string; ids: Map<string, string> }>();
  /**
   * Scenario id → the keys of the records holding it: one, unless a record was copied in the directory (a backup
   * beside it), and then a deletion must leave every copy, or the next start would bring the scenario back.
   */
  private readonly keysOf = new Map<string, Set<string>>();
  /** The write in flight per record: the next one waits for it, so the last state wins on disk. */
  private readonly writes = new Map<string, Promise<void>>();

  private constructor(
    readonly dir: string,
    /** How the directory was given (`--state`, or `SVC_STATE_DIR`): the messages name the one the operator set. */
    readonly setting: string,
    private readonly logger?: Logger,
  ) {}

  /**
   * Opens (creating it, owner-only) the state directory; rejects naming the directory, and `setting` (how it was
   * given: `SVC_STATE_DIR` when set by the variable), when it cannot be written.
   */
  static async open(dir: string, logger?: Logger, setting = '--state'): Promise<ScenarioStore> {
    let stats: Stats;
    try {
      await makeDirectory(dir);
      stats = await stat(dir);
      if (!stats.isDirectory()) throw new Error('not a directory');
      const probe = join(dir, `.probe-${randomUUID()}`);
      await (await open(probe, 'w', FILE_MODE)).close();
      await unlink(probe);
    } catch (error) {
      throw new Error(`${setting} ${dir}: cannot write there: ${(error as Error).message}`);
    }
    // A directory made beforehand keeps its mode and owner. Warned, not refused: a volume's provisioner may make it so.
    const writers = otherWriters(stats);
    if (writers)
      logger?.warn(
        `${setting} ${dir} ${writers} (mode ${(stats.mode & 0o7777).toString(8)}): they can put a record there, which the next start starts as a POST it took, API key or not; chown it to this server's user and chmod 700 it, as svc-server makes it`,
      );
    return new ScenarioStore(dir, setting, logger);
  }

  /**
   * Every record of the directory, oldest key first, each kept for later updates; files that are not
   * records (corrupt, foreign, truncated) are returned apart and left where they are. Leftover
   * temporary files of an interrupted write are removed.
   */
  async load(): Promise<{ scenarios: StoredScenario[]; unreadable: UnreadableState[] }> {
    const scenarios: StoredScenario[] = [];
    const unreadable: UnreadableState[] = [];
    for (const name of (await readdir(this.dir)).sort()) {
      const path = join(this.dir, name);
      if (name.startsWith('.tmp-')) {
        await removeFile(path);
        continue;
      }
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const key = name.slice(0, -'.json'.length);
      try {
        const record = parseRecord(await readRecord(path));
        this.records.set(key, record);
        this.hold(key, record.ids);
        scenarios.push({ key, ...record });
      } catch (error) {
        unreadable.push({ file: path, problem: (error as Error).message });
      }
    }
    return { scenarios, unreadable };
  }

  /**
   * Records a started POST: its body, format and ids (entry id → scenario id), durable when this resolves. When
   * it rejects, the record is forgotten (its scenarios are stopped again): kept, every POST refused on a full
   * disk would hold its body for the life of the process.
   */
  async save(format: BodyFormat, body: string, ids: ReadonlyMap<string, string>): Promise<void> {
    const key = `${Date.now().toString(36).padStart(9, '0')}-${randomUUID()}`;
    this.records.set(key, { format, body, ids: new Map(ids) });
    this.hold(key, ids);
    try {
      await this.write(key);
    } catch (error) {
      this.records.delete(key);
      for (const id of ids.values()) this.keysOf.delete(id);
      // A write that failed after its rename (the directory's fsync) left the file: it must not start at restart.
      await this.write(key).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Takes a stopped or deleted scenario out of every record holding it (a file goes with its last scenario);
   * unknown ids are ignored. A failure to write is logged and rejects: the scenario is stopped whatever
   * the disk says, but its record on disk still starts it again at restart. When the directory itself is gone, this
   * resolves: removed, it took the record with it and nothing starts the scenario again. Moved, it still holds the
   * record, which the log says (a stat cannot tell the two apart): moved back, it starts the scenario again.
   */
  async forget(id: string): Promise<void> {
    const keys = this.keysOf.get(id);
    if (keys === undefined) return;
    this.keysOf.delete(id);
    const writes = [...keys].map(async (key) => {
      const record = this.records.get(key)!;
      for (const [entry, scenario] of record.ids) if (scenario === id) record.ids.delete(entry);
      if (record.ids.size === 0) this.records.delete(key);
      try {
        await this.write(key);
      } catch (error) {
        if (error instanceof StateDirectoryGone) {
          this.logger?.error(
            { scenario: id },
            `${error.message}. Scenario ${id} is stopped; if the directory was moved rather than removed, its records were not updated: moved back, they start the scenarios they held again at the next start, this one included`,
          );
          return;
        }
        // Said in words, without a stack: the operator reads here that the scenario will come back, and why.
        this.logger?.error(
          { scenario: id },
          `${this.setting}: could not update ${this.pathOf(key)}: ${(error as Error).message}; it still holds scenario ${id}, stopped, which will start again when the server restarts: delete it then (the record may hold other scenarios of its POST, still running)`,
        );
        throw error;
      }
    });
    const failed = (await Promise.allSettled(writes)).find((write) => write.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Notes that the record `key` holds the scenarios `ids`. */
  private hold(key: string, ids: ReadonlyMap<string, string>): void {
    for (const id of ids.values()) {
      const keys = this.keysOf.get(id);
      if (keys) keys.add(key);
      else this.keysOf.set(id, new Set([key]));
    }
  }

  /** Resolves once every write begun so far is on disk (or failed). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.writes.values()]);
  }

  private pathOf(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  /**
   * Writes (or removes, once empty) the record as it is when its turn comes, after the previous write of it;
   * rejects with {@link StateDirectoryGone} when the directory no longer exists.
   */
  private write(key: string): Promise<void> {
    const previous = this.writes.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => this.writeNow(key))
      .catch(async (error) => {
        // Node names the temporary file or the directory with ENOENT: the user removed the directory, say so.
        const gone = await stat(this.dir).then(
          () => false,
          (statError: NodeJS.ErrnoException) => statError.code === 'ENOENT',
        );
        throw gone ? new StateDirectoryGone(this.dir, this.setting) : explained(error, this.pathOf(key));
      });
    this.writes.set(key, next);
    const forget = () => {
      if (this.writes.get(key) === next) this.writes.delete(key);
    };
    next.then(forget, forget);
    return next;
  }

  private async writeNow(key: string): Promise<void> {
    const record = this.records.get(key);
    const path = this.pathOf(key);
    if (!record) {
      await removeFile(path);
      return syncDirectory(this.dir);
    }
    const text = JSON.stringify({
      svc_state: VERSION,
      format: record.format,
      ids: Object.fromEntries(record.ids),
      body: record.body,
    });
    const temporary = join(this.dir, `.tmp-${randomUUID()}`);
    try {
      const handle = await open(temporary, 'w', FILE_MODE);
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      // A full disk fails the write itself: no temporary file may stay behind, whichever step failed.
      await removeFile(temporary).catch(() => undefined);
      throw error;
    }
    await syncDirectory(this.dir);
  }
}

const DISK_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS', 'EACCES', 'EPERM']);

/**
 * A failed write of the record at `path` with what its code means, in the words of the file sink's errors:
 * `EFBIG: file too large, write` alone does not say that the limit is the process's (`ulimit -f`), nor
 * `EPERM` that an immutable or sticky directory refuses what its rights allow.
 */
function explained(error: unknown, path: string): unknown {
  const { code, message } = error as NodeJS.ErrnoException;
  // The faults of the disk and its rights; the others (a record that is a directory) say enough as they are.
  const meaning = code !== undefined && DISK_FAULTS.has(code) ? explainFile(code, path) : undefined;
  if (meaning === undefined) return error;
  // EPERM, not EACCES: rights on the directory would allow it, as for root, yet an attribute forbids it.
  const forbidden = code === 'EPERM' ? ', or the directory is immutable (chattr +i) or sticky (chmod +t)' : '';
  return new Error(`${message}: ${meaning}${forbidden}`, { cause: error });
}

/**
 * `mkdir -p` that fails with the error of the directory it could not make. Node's recursive mkdir answers a
 * read-only file system with ENOENT ("no such file or directory", where the directory's parent exists) and never
 * ends below /proc; here each level is made by a plain mkdir, and made at most twice.
 */
async function makeDirectory(dir: string, parentMade = false): Promise<void> {
  try {
    await mkdir(dir, { mode: DIR_MODE });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') return; // a directory or not: open() checks
    if (code !== 'ENOENT' || parentMade || dirname(dir) === dir) throw error;
    await makeDirectory(dirname(dir));
    await makeDirectory(dir, true);
  }
}

/**
 * Removes the file at `path`, if there is one. Not `rm({ force: true })`: on EPERM (an immutable directory, another
 * user's file in a sticky one) it takes the file for a directory, and fails naming that: `ENOTDIR: not a directory,
 * scandir '….json'`.
 */
async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** fsync of a directory, so a rename or an unlink in it survives a crash. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The text of the state file at `path`, refused when it is not a regular file or larger than a record can be:
 * a named pipe would hold the start for ever (opening it waits for a writer, here it is opened without waiting),
 * a device such as /dev/zero would be read until memory ran out.
 */
async function readRecord(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error('not a regular file (a directory, a named pipe or a device?)');
    if (stats.size > MAX_RECORD_BYTES) throw new Error(`larger than ${MAX_RECORD_BYTES} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** A record's text as written by {@link ScenarioStore}; an Error saying what is wrong otherwise. */
function parseRecord(text: string): { format: BodyFormat; body: string; ids: Map<string, string> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON (${jsonSyntaxMessage(text, error as Error)})`);
  }
  const record = value as Record<string, unknown> | null;
  if (typeof record !== 'object' || record === null || record.svc_state !== VERSION)
    throw new Error(`not a state record of this svc-server (no "svc_state": "${VERSION}")`);
  if (record.format !== 'json' && record.format !== 'yaml') throw new Error('format: expected "json" or "yaml"');
  if (typeof record.body !== 'string') throw new Error('body: expected a string');
  const ids = record.ids as Record<string, unknown> | null;
  if (typeof ids !== 'object' || ids === null || Array.isArray(ids) || Object.keys(ids).length === 0)
    throw new Error('ids: expected an object of entry ids to scenario ids');
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  for (const [entry, id] of Object.entries(ids))
    if (typeof id !== 'string' || !uuid.test(id)) throw new Error(`ids.${entry}: expected a UUID`);
  return { format: record.format, body: record.body, ids: new Map(Object.entries(ids as Record<string, string>)) };
}

/**
 * Who but this server's user may write in the state directory, as a warning says it; undefined when nobody. Every
 * user (mode o+w, as /tmp); an owner other than this user and root (root writes anywhere anyway); a group other than
 * this server's own (mode g+w): a Kubernetes volume under `fsGroup` is group-writable on purpose, by the pod's group,
 * which is the server's own when fsGroup is its gid (1000 in the image), and is not warned of.
 */
function otherWriters({ mode, uid, gid }: Stats): string | undefined {
  if (mode & constants.S_IWOTH) return 'is writable by every user of this machine';
  // Undefined where processes have no uid (Windows): nothing to compare with.
  const user = process.getuid?.();
  if (user !== undefined && uid !== user && uid !== 0)
    return `is owned by another user (uid ${uid}; this server runs as uid ${user})`;
  const group = process.getgid?.();
  if (group !== undefined && mode & constants.S_IWGRP && gid !== group)
    return `is writable by the users of its group (gid ${gid}; this server's group is ${group})`;
  return undefined;
}
