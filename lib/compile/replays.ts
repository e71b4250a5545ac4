/**
 * `csv_replay` expansion: an entry replaying a CSV becomes one entry per replayed column (all of
 * them, or those `columns` names), as a `pack` entry becomes one per metric (packs.ts). A single
 * column keeps the entry's id; several get `<entry id>.<metric name>` (`#2`, ... when names repeat).
 * The header names the metric (else the entry's `name` does) and gives labels; the entry's own
 * labels win. The table was read before compiling (lib/config/csv-replay.ts).
 */
import type { Issue } from '../language/problems.js';
import type { CsvReplayGenerator, MetricTable } from '../language/types.js';
import type { Entry } from '../config/types.js';
import { claim } from '../config/references.js';

/** The entries of a csv_replay entry, or the issue that stops it. */
export function expandReplay(entry: Entry & { generator: CsvReplayGenerator }): { entries: Entry[] } | { issue: Issue } {
  const { table, columns: wanted, ...generator } = entry.generator;
  if (!table) return { issue: { path: ['generator', 'file'], message: `${entry.generator.file} was not read: read the csv_replay files (readReplays, lib/config/csv-replay.ts) before compiling` } };
  const chosen = wanted ? selected(table, wanted, entry.generator.file) : { columns: table.columns };
  if ('issue' in chosen) return chosen;
  const taken = new Set<string>();
  const entries = chosen.columns.map((column): Entry => {
    const name = column.name ?? entry.name!;
    const series = { header: column.header, times: table.times, values: column.values, toJSON: () => ({ column: column.header, rows: column.values.length }) };
    return {
      ...entry,
      id: chosen.columns.length === 1 ? entry.id : claim(`${entry.id}.${name}`, taken),
      name,
      labels: { ...column.labels, ...entry.labels },
      generator: { ...generator, series },
    };
  });
  return { entries };
}

/** The columns `wanted` names, by header text or metric name, in file order. */
function selected(table: MetricTable, wanted: readonly string[], file: string): { columns: MetricTable['columns'] } | { issue: Issue } {
  const missing = wanted.findIndex((want) => !table.columns.some((c) => c.header === want || c.name === want));
  if (missing >= 0) {
    const known = table.columns.map((c) => c.header).join(', ');
    return { issue: { path: ['generator', 'columns', missing], message: `${file} has no column ${JSON.stringify(wanted[missing])} (its columns: ${known})` } };
  }
  return { columns: table.columns.filter((c) => wanted.includes(c.header) || (c.name !== undefined && wanted.includes(c.name))) };
}
