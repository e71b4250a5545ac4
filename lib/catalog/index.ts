/**
 * A catalog: a directory (and everything below it) of scenario files and pack files, each named
 * by its top-level `name`, else by its file name without the extension. `svc run @name` and
 * `pack: <name>` resolve through it (packs: after the built-in ones).
 */
import { readdir, realpath } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { catalogReads } from './files.js';
import { isBelow, realFileStream, statIfAny } from '../real-file.js';
import type { CliOverrides } from '../config/overrides.js';
import { decodePack, isPackDocument } from '../config/pack.js';
import { LOCAL_YAML_BUDGET, MAX_CATALOG_FILES } from '../language/limits.js';
import { scenarioFromDocument } from '../config/load.js';
import { formatOf, parseText } from '../config/parse.js';
import { readTextFile, type TextSource } from '../config/read.js';
import type { Variables } from '../config/interpolate.js';
import { ConfigError, isMapping } from '../language/problems.js';
import type { PackFile, ScenarioFile } from '../config/types.js';

/** Keys of a v2 scenario file or a pack file, as opposed to a single flat entry. */
const FILE_KEYS = ['version', 'kind', 'defaults', 'scenarios', 'metrics'];

export interface CatalogItem {
  readonly name: string;
  /** A scenario file's kind, `pack` for a pack file, `invalid` for a file that cannot be used. */
  readonly kind: 'runnable' | 'composable' | 'pack' | 'invalid';
  /** The file, as found below the catalog directory. */
  readonly path: string;
  readonly description?: string;
  readonly category?: string;
  readonly tags?: readonly string[];
  /** Entries of a scenario file, metrics of a pack. */
  readonly size?: number;
  /** Why an `invalid` file cannot be used: its validation messages. */
  readonly problems?: readonly string[];
}

/**
 * A file as the catalog read it, parsed once: its text (for `svc catalog show`), and what a use
 * needs: a scenario file's document, a pack, or why the file cannot be used. Held for every file:
 * at most {@link MAX_CATALOG_FILES}, each within the text and YAML bounds of a file.
 */
interface Loaded {
  readonly item: CatalogItem;
  readonly text: string;
  readonly document?: unknown;
  readonly pack?: PackFile;
  readonly error?: ConfigError;
}

/** `@name` on the command line: a catalog reference rather than a file path. */
export function catalogRef(arg: string): string | undefined {
  return arg.startsWith('@') && arg.length > 1 ? arg.slice(1) : undefined;
}

/**
 * The error for `@name` (or `pack: name`) when no `--catalog` was given; `variable` also gives the directory where
 * one does (svc-server's `SVC_CATALOG`).
 */
export function noCatalogError(ref: string, variable?: string): ConfigError {
  const give = `give --catalog <dir>${variable ? ` or set ${variable}` : ''}`;
  return new ConfigError('unreadable', ref, [
    { path: '', message: `a catalog reference needs a catalog: ${give} (the directory of scenario and pack files)` },
  ]);
}

export class Catalog {
  private constructor(
    /** The directory, as given. */
    readonly dir: string,
    /** How the directory was given (`--catalog`, or svc-server's `SVC_CATALOG`): the messages name the one set. */
    readonly setting: string,
    private readonly loaded: readonly Loaded[],
    /**
     * The directory (a real path) the catalog reads only below: svc-server's file root, when the catalog lies below
     * it (lib/server/file-root.ts); undefined: it reads wherever its files lead.
     */
    readonly within?: string,
  ) {}

  /**
   * Reads and validates every scenario and pack file below `dir`; `setting` is how the directory was given, which
   * the error of a missing one names (svc-server's `SVC_CATALOG`, when set by the variable). `within`: see
   * {@link Catalog.within}.
   */
  static async open(dir: string, variables?: Variables, setting = '--catalog', within?: string): Promise<Catalog> {
    const found = await statIfAny(dir);
    if (!found?.isDirectory()) {
      throw new ConfigError('unreadable', dir, [
        {
          path: '',
          message: `${found ? 'not a directory (a file)' : 'catalog directory not found'}: ${giveDirectory(setting)} a directory of scenario and pack files`,
        },
      ]);
    }
    const files = await listFiles(dir);
    if (files.length > MAX_CATALOG_FILES) {
      throw new ConfigError('invalid', dir, [
        {
          path: '',
          message: `the catalog holds more than ${MAX_CATALOG_FILES} scenario and pack files, the limit; split it into several directories`,
        },
      ]);
    }
    const loaded = await Promise.all(files.map((path) => loadItem(path, variables, within)));
    loaded.sort((a, b) => a.item.name.localeCompare(b.item.name) || a.item.path.localeCompare(b.item.path));
    return new Catalog(dir, setting, loaded, within);
  }

  /** How to give another directory, in the words of the setting used: `give --catalog <dir> with`, `set SVC_CATALOG to`. */
  get giveDirectory(): string {
    return giveDirectory(this.setting);
  }

  get items(): readonly CatalogItem[] {
    return this.loaded.map((l) => l.item);
  }

  /** The item named `name`; undefined when there is none; an error when several files share it. */
  find(name: string): CatalogItem | undefined {
    return this.only(name)?.item;
  }

  /** The text of the file named `name` (for `svc catalog show`). */
  text(name: string): string | undefined {
    return this.only(name)?.text;
  }

  /**
   * The pack named `name`, undefined when the catalog has none (the caller reports it, listing the
   * built-in packs too); a ConfigError when the file named so is invalid or not a pack.
   */
  pack(name: string): { pack: PackFile; path: string } | undefined {
    const found = this.only(name);
    if (!found) return undefined;
    if (found.error) throw found.error;
    if (!found.pack) {
      throw new ConfigError('invalid', found.item.path, [
        {
          path: '',
          message: `"${name}" is a ${found.item.kind} scenario file, not a pack (a pack file has metrics and no scenarios)`,
        },
      ]);
    }
    return { pack: found.pack, path: found.item.path };
  }

  /** Loads the scenario file named `name` with the CLI overrides, as `svc run <file>` would. */
  scenario(name: string, overrides: CliOverrides = {}): { file: ScenarioFile; path: string } {
    const found = this.only(name);
    if (!found) {
      const names = this.loaded
        .filter((l) => l.item.kind === 'runnable' || l.item.kind === 'composable')
        .map((l) => l.item.name);
      throw new ConfigError('unreadable', `@${name}`, [
        {
          path: '',
          message:
            `no scenario named "${name}" in the catalog ${this.dir}` +
            ` (${names.length ? `it has: ${names.join(', ')}` : 'it has no scenario files'}); check the name, or ${this.giveDirectory} the right directory`,
        },
      ]);
    }
    if (found.error) throw found.error;
    if (found.pack) {
      throw new ConfigError('invalid', `@${name}`, [
        {
          path: '',
          message: `"${name}" is a pack (${found.item.path}), not a scenario: use it from an entry with pack: ${name}`,
        },
      ]);
    }
    // The overrides are applied before validation (a flag gets the checks of a file value), so each
    // use validates the document again with its own; the text is not parsed again.
    return {
      file: scenarioFromDocument(found.document, { origin: found.item.path, overrides }),
      path: found.item.path,
    };
  }

  private only(name: string): Loaded | undefined {
    const matches = this.loaded.filter((l) => l.item.name === name);
    if (matches.length > 1) {
      throw new ConfigError('invalid', this.dir, [
        {
          path: '',
          message: `the catalog has several files named "${name}": ${matches.map((m) => m.item.path).join(', ')}; give each its own name`,
        },
      ]);
    }
    return matches[0];
  }
}

/** How to give the catalog directory by `setting` (a flag, or a variable): the words before the directory. */
function giveDirectory(setting: string): string {
  return setting.startsWith('--') ? `give ${setting} <dir> with` : `set ${setting} to`;
}

/**
 * Scenario and pack files below `dir`, skipping hidden entries and not following directory links;
 * the listing stops one file past the limit.
 */
async function listFiles(dir: string, found: string[] = []): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (found.length > MAX_CATALOG_FILES) break;
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await listFiles(path, found);
    else if ((entry.isFile() || entry.isSymbolicLink()) && catalogReads(entry.name)) found.push(path);
  }
  return found;
}

/**
 * Where the catalog reads its file `path` from: the path; in a catalog read only `within` a directory, its real path
 * when it lies there, opened only if it still is that file (lib/real-file.ts). Whoever writes below svc-server's
 * file root could link any file into a catalog there, and its text would show in the catalog's answers.
 */
async function sourceOf(path: string, within: string | undefined): Promise<TextSource> {
  if (within === undefined) return path;
  // A link to nowhere is read as it is: the read says why it cannot be.
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return path;
  if (!isBelow(within, real))
    throw new ConfigError('unreadable', path, [
      {
        path: '',
        message: `not read: it leads out of the file root ${within} the catalog lies below (a symbolic link)`,
      },
    ]);
  return { stream: realFileStream(real), origin: path };
}

async function loadItem(path: string, variables: Variables | undefined, within: string | undefined): Promise<Loaded> {
  const fileName = basename(path, extname(path));
  let text = '';
  let document: unknown;
  try {
    text = await readTextFile(await sourceOf(path, within), 'catalog file');
    document = parseText(text, formatOf(path), path, LOCAL_YAML_BUDGET, variables);
  } catch (error) {
    return invalid({ name: fileName, path }, text, error);
  }
  // A v2 scenario file or a pack may name itself; in a single flat entry, `name` is the metric's, and
  // `scenario_name` and `description` are the file's (lib/config/load.ts singleEntryMetadata).
  const fields = isMapping(document) ? document : undefined;
  const file = fields && FILE_KEYS.some((key) => Object.hasOwn(fields, key)) ? fields : undefined;
  const own = [file?.name, fields?.scenario_name].find(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  const named = own ?? fileName;
  const description = typeof fields?.description === 'string' ? fields.description : undefined;
  const base = { name: named, path, ...(description !== undefined && { description }) };
  try {
    if (isPackDocument(document)) {
      const pack = decodePack(document, path);
      return { item: { ...base, ...metadataOf(pack), kind: 'pack', size: pack.metrics.length }, text, pack };
    }
    const file = scenarioFromDocument(document, { origin: path });
    return { item: { ...base, ...metadataOf(file), kind: file.kind, size: file.scenarios.length }, text, document };
  } catch (error) {
    return invalid(base, text, error);
  }
}

/** The category and tags a valid file gives itself. */
function metadataOf({
  category,
  tags,
}: {
  category?: string;
  tags?: readonly string[];
}): Pick<CatalogItem, 'category' | 'tags'> {
  return { ...(category !== undefined && { category }), ...(tags !== undefined && { tags }) };
}

function invalid(base: { name: string; path: string; description?: string }, text: string, error: unknown): Loaded {
  const configError =
    error instanceof ConfigError
      ? error
      : new ConfigError('unreadable', base.path, [
          { path: '', message: `cannot read the file (${(error as Error).message})` },
        ]);
  return { item: { ...base, kind: 'invalid', problems: configError.message.split('\n') }, text, error: configError };
}
