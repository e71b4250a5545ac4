/**
 * `csv_replay` expansion: an entry replaying a CSV becomes one entry per replayed column (all of
 * them, or those `columns` names), as a `pack` entry becomes one per metric (packs.ts). A single
 * column keeps the entry's id; several get `<entry id>.<metric name>` (`#2`, ... when names repeat).
 * The header names the metric (else `default_metric_name` does, else the entry's `name`) and gives
 * labels, which win over the entry's own (as the reference tool merges them); a `columns` mapping's
 * labels win over both, and `--label` over all of them (as the flag wins over the file's labels). The table was read before compiling (lib/config/csv-replay.ts).
 */
import type { Issue } from '../language/problems.js';
import type { CsvColumn, CsvReplayGenerator, MetricTable } from '../language/types.js';
import type { Entry } from '../config/types.js';
import { claim } from '../config/references.js';
import { NEGATIVE_COUNTER } from '../config/entry.js';

/** The entries of a csv_replay entry, or the issue that stops it. */
export function expandReplay(
  entry: Entry & { generator: CsvReplayGenerator },
): { entries: Entry[] } | { issue: Issue } {
  const { table, columns: wanted, default_metric_name: fallback, ...generator } = entry.generator;
  if (!table)
    return {
      issue: {
        path: ['generator', 'file'],
        message: `${entry.generator.file} was not read: plan the file with planScenario (lib/compile/plan.ts), which reads the csv_replay files before compiling`,
      },
    };
  const chosen: ReturnType<typeof selected> = wanted
    ? selected(table, wanted, entry.generator.file)
    : { columns: table.columns.map((column) => ({ column })) };
  if ('issue' in chosen) return chosen;
  const negative =
    entry.metric_type === 'counter' && chosen.columns.find(({ column }) => column.negative)?.column.negative;
  if (negative)
    return {
      issue: {
        path: ['generator', 'file'],
        message: `${entry.generator.file} ${negative.place}: ${negative.value} ${NEGATIVE_COUNTER}, or a file whose values stay at 0 or above`,
      },
    };
  // As the reference tool names them: several nameless columns keep apart by their position.
  const nameless = chosen.columns.filter(({ column, as }) => as?.name === undefined && column.name === undefined);
  const fallbackOf = (column: TableColumn) =>
    fallback !== undefined && nameless.length > 1 ? `${fallback}_${table.columns.indexOf(column) + 1}` : fallback;
  const taken = new Set<string>();
  const { flag_labels: flagLabels, ...replayed } = entry;
  const entries = chosen.columns.map(({ column, as }): Entry => {
    const name = as?.name ?? column.name ?? fallbackOf(column) ?? entry.name!;
    const series = {
      header: column.header,
      times: table.times,
      values: column.values,
      toJSON: () => ({ column: column.header, rows: column.values.length }),
    };
    return {
      ...replayed,
      id: chosen.columns.length === 1 ? entry.id : claim(`${entry.id}.${name}`, taken),
      name,
      labels: { ...entry.labels, ...column.labels, ...as?.labels, ...flagLabels },
      generator: { ...generator, series },
    };
  });
  return { entries };
}

type TableColumn = MetricTable['columns'][number];

/**
 * The columns `wanted` names: by header text or metric name, in file order; by position, in the
 * order written, each with its own name and labels.
 */
function selected(
  table: MetricTable,
  wanted: readonly (string | CsvColumn)[],
  file: string,
): { columns: { column: TableColumn; as?: CsvColumn }[] } | { issue: Issue } {
  const known = () => table.columns.map((c) => c.header).join(', ');
  const missing = wanted.findIndex(
    (want) => typeof want === 'string' && !table.columns.some((c) => c.header === want || c.name === want),
  );
  if (missing >= 0)
    return {
      issue: {
        path: ['generator', 'columns', missing],
        message: `${file} has no column ${JSON.stringify(wanted[missing])} (its columns: ${known()})`,
      },
    };
  const past = wanted.findIndex((want) => typeof want !== 'string' && want.index > table.columns.length);
  if (past >= 0) {
    const message = `${file} has ${table.columns.length} series columns after its time column (1 to ${table.columns.length}: ${known()}), so no column ${(wanted[past] as CsvColumn).index}`;
    return { issue: { path: ['generator', 'columns', past, 'index'], message } };
  }
  const byName = wanted.filter((want): want is string => typeof want === 'string');
  const named = table.columns
    .filter((c) => byName.includes(c.header) || (c.name !== undefined && byName.includes(c.name)))
    .map((column) => ({ column }));
  const byIndex = wanted
    .filter((want): want is CsvColumn => typeof want !== 'string')
    .map((as) => ({ column: table.columns[as.index - 1]!, as }));
  return { columns: [...named, ...byIndex] };
}
