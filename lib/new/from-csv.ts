/**
 * `svc new --from FILE.csv`: a runnable scenario whose entries reproduce the series of a recorded
 * CSV (a Grafana "series joined by time" export or plain `time,value` columns), one entry per
 * column, each the generator of its fitted shape (fit.ts) or a csv_replay of its column where no
 * shape fits, with a comment saying what was found and how well it fits (docs/new.md).
 */
import { Document, YAMLMap, type YAMLSeq } from 'yaml';
import { metricTable } from '../config/csv-replay.js';
import { fitSeries, type SeriesFit } from './fit.js';
import { SCHEMA_MODELINE } from './modeline.js';

/**
 * The YAML text of a v2 runnable scenario reproducing the CSV `text`. `origin` names the text in
 * errors (a ConfigError when it is not such a CSV); `file` is the path csv_replay entries name,
 * relative to where the scenario will be written.
 */
export function scenarioFromCsv(text: string, origin: string, file: string): string {
  const table = metricTable(text, origin);
  const doc = new Document({ version: 2, kind: 'runnable', scenarios: [] });
  // The modeline's own `#` is what YAML writes before each comment line.
  doc.commentBefore = [
    SCHEMA_MODELINE.replace(/^#/, ''),
    ` Written by svc new from ${file}: one entry per column, the generator of the shape found in it,`,
    ' or a csv_replay of the column where none fits (docs/new.md).',
  ].join('\n');
  const scenarios = doc.get('scenarios') as YAMLSeq;
  const headers = table.columns.map((column) => column.header);
  table.columns.forEach((column, k) => {
    const fit = fitSeries(table.times.at, column.values);
    // A header two columns share names both: such a column is named by its position (the time column is 0).
    const shared = headers.indexOf(column.header) !== headers.lastIndexOf(column.header);
    const entry = doc.createNode(
      entryOf(fit, column.name ?? `series_${k + 1}`, column.labels, {
        file,
        column: shared ? { index: k + 1 } : column.header,
      }),
    ) as YAMLMap;
    entry.commentBefore = ` ${column.header}: ${fit.note}`;
    for (const key of ['generator', 'labels']) {
      const inner = entry.get(key);
      if (inner instanceof YAMLMap) inner.flow = true;
    }
    scenarios.add(entry);
  });
  return doc.toString({ lineWidth: 0 });
}

/** The entry of one column: its fitted generator, or a replay of the column. */
function entryOf(
  fit: SeriesFit,
  name: string,
  labels: Readonly<Record<string, string>>,
  source: { file: string; column: string | { index: number } },
): Record<string, unknown> {
  const generator = fit.generator ?? { type: 'csv_replay', file: source.file, columns: [source.column] };
  return {
    name,
    signal_type: 'metrics',
    rate: fit.rate,
    generator,
    // A step is a counter by default; a trend that is not one is a gauge.
    ...(fit.shape === 'trend' && { metric_type: 'gauge' }),
    ...(fit.jitter !== undefined && { jitter: fit.jitter }),
    ...(Object.keys(labels).length > 0 && { labels }),
  };
}
