/**
 * Pack expansion: an entry with `pack: <name>` becomes one entry per metric of the pack, with id
 * `<entry id>.<metric name>` (metrics that share a name: `<entry id>.<metric name>#2`, ...). Every other
 * field of the entry (rate, duration, encoder, sink, labels, schedules, phase_offset, clock_group, after, …)
 * applies to each expanded metric.
 *
 * Labels, later ones winning: the pack's `shared_labels`, the metric's `labels`, the entry's
 * `labels`, the metric's `overrides.<name>.labels`. Generator: the override's, else the metric's.
 */
import { MAX_ENTRIES } from '../language/limits.js';
import { closest, type Issue } from '../language/problems.js';
import type { Entry, PackFile, PackMetric } from '../config/types.js';
import { isPackPath, type PackAtPath } from '../config/pack.js';
import { countsUp } from '../config/entry.js';
import { builtinPack, builtinPackNames, REFERENCE_PACKS } from './builtin-packs.js';
import { claim } from '../config/references.js';
import { expandReplay } from './replays.js';
import type { Catalog } from '../catalog/index.js';

/** The source of a built-in pack, which no file holds. */
export const BUILT_IN = 'built-in';

/** Where a pack was found: {@link BUILT_IN}, or the path of its file (the catalog's, or one named by its path). */
export interface FoundPack {
  readonly pack: PackFile;
  readonly source: string;
}

/** A pack file named by its path, as read before compiling (lib/compile/plan.ts); else built-in packs first, then the catalog's. */
export function findPack(
  name: string,
  catalog?: Catalog,
  files?: ReadonlyMap<string, PackAtPath>,
): FoundPack | undefined {
  if (isPackPath(name)) {
    const file = files?.get(name);
    return file && { pack: file.pack, source: file.path };
  }
  const builtin = builtinPack(name);
  if (builtin) return { pack: builtin, source: BUILT_IN };
  const found = catalog?.pack(name);
  return found && { pack: found.pack, source: found.path };
}

/** What an expanded entry came from. */
export interface PackOrigin {
  /** The id of the `pack` entry. */
  readonly entry: string;
  readonly pack: string;
  readonly metric: string;
  readonly source: string;
}

export interface Expansion {
  readonly entries: readonly Entry[];
  readonly origins: readonly (PackOrigin | undefined)[];
  /** Index of the file entry each expanded entry came from. */
  readonly sources: readonly number[];
  readonly issues: readonly { readonly index: number; readonly issue: Issue }[];
}

/** Expands every `pack` and `csv_replay` entry of `entries`; issues are indexed by file entry. */
export function expandPacks(
  entries: readonly Entry[],
  catalog?: Catalog,
  files?: ReadonlyMap<string, PackAtPath>,
): Expansion {
  const out: Entry[] = [];
  const origins: (PackOrigin | undefined)[] = [];
  const sources: number[] = [];
  const issues: { index: number; issue: Issue }[] = [];

  /**
   * False, with an issue at `path` of entry `index`, when `size` more entries would pass the limit: expansion
   * stops there.
   */
  const room = (index: number, size: number, what: string, path: Issue['path']): boolean => {
    if (out.length + size <= MAX_ENTRIES) return true;
    const message = `${what} brings this file to more than ${MAX_ENTRIES} entries once packs are expanded; the limit is ${MAX_ENTRIES}`;
    issues.push({ index, issue: { path, message } });
    return false;
  };

  for (const [index, entry] of entries.entries()) {
    if (entry.generator?.type === 'csv_replay') {
      const replay = expandReplay({ ...entry, generator: entry.generator });
      if ('issue' in replay) {
        issues.push({ index, issue: replay.issue });
        continue;
      }
      if (!room(index, replay.entries.length, `the CSV ${entry.generator.file}`, ['generator', 'file'])) break;
      for (const expanded of replay.entries) {
        out.push(expanded);
        origins.push(undefined);
        sources.push(index);
      }
      continue;
    }
    if (entry.pack === undefined) {
      if (!room(index, 1, 'this entry', [])) break;
      out.push(entry);
      origins.push(undefined);
      sources.push(index);
      continue;
    }
    const found = findPack(entry.pack, catalog, files);
    if (!found) {
      issues.push({ index, issue: { path: ['pack'], message: unknownPack(entry.pack, catalog) } });
      continue;
    }
    const { pack, source } = found;
    if (!room(index, pack.metrics.length, `the pack "${pack.name}"`, ['pack'])) break;
    issues.push(...overrideIssues(entry.overrides ?? {}, pack).map((issue) => ({ index, issue })));
    // Metrics of one name (one metric, several label sets) get ids <entry>.<metric>.<id> when the pack gives
    // them one, else <entry>.<metric>, <entry>.<metric>#2, ...
    const taken = new Set<string>();
    for (const metric of pack.metrics) {
      const id = claim(`${entry.id}.${selector(metric)}`, taken);
      out.push({ ...expandMetric(entry, pack, metric), id });
      origins.push({ entry: entry.id, pack: pack.name, metric: metric.name, source });
      sources.push(index);
    }
  }
  return { entries: out, origins, sources, issues };
}

/** What names one metric in `overrides` and in its expanded id: `<name>.<id>`, or its name when it has no id. */
function selector(metric: PackMetric): string {
  return metric.id === undefined ? metric.name : `${metric.name}.${metric.id}`;
}

/** Override keys naming no metric of the pack, and metrics two keys change (`<name>` and `<name>.<id>`). */
function overrideIssues(overrides: Readonly<Record<string, unknown>>, pack: PackFile): Issue[] {
  const issues: Issue[] = [];
  const selectors = [...new Set(pack.metrics.flatMap((m) => (m.id === undefined ? [m.name] : [m.name, selector(m)])))];
  for (const key of Object.keys(overrides)) {
    if (!selectors.includes(key)) {
      const near = closest(key, selectors);
      const message = `the pack "${pack.name}" has no metric "${key}"${near ? ` (did you mean ${near}?)` : ''} (its metrics: ${selectors.join(', ')})`;
      issues.push({ path: ['overrides', key], message });
    } else if (key.includes('.') && Object.hasOwn(overrides, key.slice(0, key.indexOf('.')))) {
      const name = key.slice(0, key.indexOf('.'));
      const message = `overrides.${name} changes this metric too: keep one of the two (overrides.${name} changes every metric named ${name})`;
      issues.push({ path: ['overrides', key], message });
    }
  }
  return issues;
}

function expandMetric(entry: Entry, pack: PackFile, metric: PackMetric): Entry {
  const override = entry.overrides?.[selector(metric)] ?? entry.overrides?.[metric.name];
  const { pack: _pack, overrides: _overrides, help: _help, jitter: _jitter, ...common } = entry;
  const generator = override?.generator ?? metric.generator;
  const metric_type = metric.metric_type ?? (countsUp(generator) ? 'counter' : 'gauge');
  // The noise of the generator's alias: the override's replaces the entry's jitter, which replaces the pack's. A
  // counter takes none: noise would make its samples go down, which Prometheus reads as resets.
  const noisy =
    metric_type === 'counter'
      ? undefined
      : override?.generator
        ? override
        : entry.jitter === undefined
          ? metric
          : entry;
  return {
    ...common,
    name: metric.name,
    generator,
    labels: { ...pack.shared_labels, ...metric.labels, ...entry.labels, ...override?.labels },
    ...(noisy?.jitter !== undefined && { jitter: noisy.jitter, jitter_seed: noisy.jitter_seed ?? entry.jitter_seed }),
    metric_type,
    ...(metric.help !== undefined && { help: metric.help }),
  };
}

function unknownPack(name: string, catalog?: Catalog): string {
  if (isPackPath(name))
    return `the pack file ${name} was not read: plan the file with planScenario (lib/compile/plan.ts), which reads pack files before compiling`;
  const builtins = `built-in packs: ${builtinPackNames().join(', ')}`;
  const packs = catalog?.items.filter((item) => item.kind === 'pack').map((item) => item.name) ?? [];
  if (Object.hasOwn(REFERENCE_PACKS, name)) {
    const ours = REFERENCE_PACKS[name];
    return (
      `no pack named "${name}": that is a built-in pack of the reference tool, which svc does not ship; ` +
      (ours
        ? `svc's ${ours} models the same source with metrics of its own (docs/packs.md): write pack: ${ours}, or give `
        : `give `) +
      `the pack file by its path (./packs/<file>.yaml)${catalog ? '' : ' or --catalog <dir> with the directory holding it'}`
    );
  }
  const near = closest(name, [...builtinPackNames(), ...packs]);
  const unknown = `no pack named "${name}"${near ? ` (did you mean ${near}?)` : ''}`;
  if (!catalog)
    return `${unknown} (${builtins}); for a pack file, give its path (./packs/<file>.yaml) or --catalog <dir> with the directory holding it`;
  return (
    `${unknown} (${builtins}; the catalog ${catalog.dir} has ${packs.length ? packs.join(', ') : 'no packs'});` +
    ` check the name, or ${catalog.giveDirectory} the directory holding it`
  );
}
