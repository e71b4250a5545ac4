/**
 * The CSV files of `csv_replay` generators (docs/scenario-fields.md#csv-replay), and the log files of `replay`
 * log generators: read, bounded and parsed before compiling, which does no file I/O. A metrics CSV is a
 * Grafana "series joined by time" export: a time column first, then one numeric column per series, headed
 * `{__name__="x", k="v"}` (or `x{k="v"}`, or a metric name). A logs CSV has timestamp, severity
 * and message columns, found by their header names; its other columns become fields. A replayed log file is
 * its lines. Every problem names the file, its line (and column).
 */
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { labels as labelsCodec, SEVERITIES } from '../language/fields.js';
import { decimal } from '../language/decimal.js';
import { MAX_CSV_BYTES, MAX_CSV_CELL, MAX_CSV_COLUMNS, MAX_CSV_ROWS } from '../language/limits.js';
import { ConfigError, formatPath, issuesOf, show } from '../language/problems.js';
import type { LogLines, LogTable, MetricTable, ReplayTimes, Severity } from '../language/types.js';
import { originOf, readTextFile, type TextSource } from './read.js';
import type { Entry, ScenarioFile } from './types.js';

/**
 * The files a scenario may name, by what they are for: a `csv_replay` generator's data, a `replay` log
 * generator's lines, a pack given by its path.
 */
export const NAMED_FILES = { csv_replay: 'csv_replay file', replay: 'replay file', pack: 'pack file' } as const;
export type NamedFile = keyof typeof NAMED_FILES;

/**
 * Where a file a scenario names is: the path to open (relative paths: from the scenario file), or the file opened
 * (the server's, below its file root), or a refusal thrown. `kind` says what the file is for, in messages.
 */
export type LocateFile = (file: string, kind: NamedFile) => Promise<TextSource>;

/**
 * Relative paths from `dir` (the directory of the scenario file), else from the working directory
 * (a path written from where the user runs svc, as other tools take it); an error names both
 * places when neither holds the file.
 */
export function filesIn(dir: string): LocateFile {
  return async (file, kind) => {
    const places = [...new Set([resolve(dir, file), resolve(file)])];
    for (const place of places) if (await exists(place)) return place;
    if (places.length === 1) return places[0]!;
    const message = `cannot read the ${NAMED_FILES[kind]} (no such file): looked for ${places[0]} (from the scenario file's directory) and ${places[1]} (from the working directory)`;
    throw new ConfigError('unreadable', file, [{ path: '', message }]);
  };
}

/**
 * Relative paths from the directory of the scenario file at `path`; from the working directory for standard
 * input (no path).
 */
export function filesBeside(path: string | undefined): LocateFile {
  return filesIn(path === undefined ? process.cwd() : dirname(path));
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** `file` with the table of every csv_replay generator and the lines of every replay log generator read, each file once. */
export async function readReplays(file: ScenarioFile, locate: LocateFile): Promise<ScenarioFile> {
  const texts = new Map<string, Promise<{ text: string; path: string }>>();
  const read = (name: string, kind: 'csv_replay' | 'replay' = 'csv_replay') => {
    const key = `${kind}:${name}`;
    let found = texts.get(key);
    if (!found) {
      found = locate(name, kind).then(async (source) => ({
        path: originOf(source),
        text: await readTextFile(source, NAMED_FILES[kind], MAX_CSV_BYTES, kind === 'replay' ? 'text' : 'CSV'),
      }));
      texts.set(key, found);
    }
    return found;
  };
  const scenarios = await Promise.all(
    file.scenarios.map(async (entry): Promise<Entry> => {
      const { generator, log_generator } = entry;
      if (generator?.type === 'csv_replay') {
        const { text, path } = await read(generator.file);
        return { ...entry, generator: { ...generator, table: metricTable(text, path) } };
      }
      if (log_generator?.type === 'csv_replay') {
        const { text, path } = await read(log_generator.file);
        return {
          ...entry,
          log_generator: { ...log_generator, table: logTable(text, path, log_generator.default_severity) },
        };
      }
      if (log_generator?.type === 'replay') {
        const { text, path } = await read(log_generator.file, 'replay');
        return { ...entry, log_generator: { ...log_generator, lines: logLines(text, path) } };
      }
      return entry;
    }),
  );
  return { ...file, scenarios };
}

interface Row {
  readonly cells: readonly string[];
  readonly line: number;
}

/** What a header of labels that split at their commas needs, as Grafana writes it. */
const UNQUOTED_LABELS =
  '; a header whose labels hold commas is one CSV cell only when quoted, its quotes doubled, as Grafana writes it: "node_load1{instance=""a"",job=""b""}"';

/** Whether the first line of `text` names labels (`{`), the usual cause of a header that does not parse. */
function labelledHeader(text: string): boolean {
  const end = text.indexOf('\n');
  return text.slice(0, end === -1 ? undefined : end).includes('{');
}

/** Header and rows of a CSV text, within the bounds. */
function rowsOf(text: string, origin: string): { header: readonly string[]; rows: readonly Row[] } {
  const fail = (message: string) => new ConfigError('invalid', origin, [{ path: '', message }]);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      // Lines that begin with `#` are comments, as the reference tool reads them; a `#` within a cell is data.
      comment: '#',
      comment_no_infix: true,
      info: true,
      // A quote inside an unquoted cell is text: `load{host="a"}` written by hand, unquoted, is one header.
      relax_quotes: true,
      // A row of another length is refused below, naming its line and the column it lacks or adds.
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_CSV_CELL,
      to: MAX_CSV_ROWS + 2,
    }) as unknown as typeof records;
  } catch (error) {
    throw fail(`not a CSV file: ${(error as Error).message}${labelledHeader(text) ? UNQUOTED_LABELS : ''}`);
  }
  const [header, ...rest] = records;
  if (!header || rest.length === 0) throw fail('expected a header line and at least one row');
  if (rest.length > MAX_CSV_ROWS) throw fail(`more than ${MAX_CSV_ROWS} rows, the limit for a csv_replay file`);
  if (header.record.length > MAX_CSV_COLUMNS)
    throw fail(`${header.record.length} columns, more than ${MAX_CSV_COLUMNS}, the limit for a csv_replay file`);
  const names = header.record.map((h) => h.trim());
  const uneven = rest.find(({ record }) => record.length !== names.length);
  if (uneven) {
    const { record, info } = uneven;
    const short = record.length < names.length;
    const column = Math.min(record.length, names.length);
    throw fail(
      `${at(info.lines, column, names[column])}: ${short ? 'missing' : 'beyond the header'}: the row has ${record.length} cells, the header ${names.length}${short ? ' (an empty cell, not a missing one, holds the value before it)' : ''}${labelledHeader(text) ? UNQUOTED_LABELS : ''}`,
    );
  }
  return { header: names, rows: rest.map(({ record, info }) => ({ cells: record, line: info.lines })) };
}

/** Names the place of a cell in messages: `line 3, column 2 (cpu)`. */
function at(line: number, column: number, header?: string): string {
  return `line ${line}, column ${column + 1}${header ? ` (${header})` : ''}`;
}

/** Milliseconds of a timestamp cell: Unix seconds (10 digits) or milliseconds (13, Grafana's), or a date-time text. */
function timeOf(cell: string): number {
  const text = cell.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    return n < 1e11 ? n * 1000 : n;
  }
  return /\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
}

/**
 * The rows' times from their first, checked to increase; the last row holds for the spacing before it. Times are
 * read to the microsecond, the grid the runtime reckons on: in ms, 1.0137 s from 1 s is 13.700000000000045.
 */
function replayTimes(rows: readonly Row[], column: number, header: string, origin: string): ReplayTimes {
  const times = rows.map(({ cells, line }) => {
    const ms = timeOf(cells[column] ?? '');
    if (!Number.isFinite(ms)) {
      throw new ConfigError('invalid', origin, [
        {
          path: '',
          message: `${at(line, column, header)}: expected a timestamp (Unix seconds or milliseconds, or a date-time such as 2024-05-01T10:00:00Z), got ${show(cells[column])}`,
        },
      ]);
    }
    return Math.round(ms * 1000);
  });
  times.forEach((us, i) => {
    if (i > 0 && us <= times[i - 1]!) {
      throw new ConfigError('invalid', origin, [
        {
          path: '',
          message: `${at(rows[i]!.line, column, header)}: expected a time later than the row before's (rows must be in time order, read to 1 µs), got ${show(rows[i]!.cells[column])}`,
        },
      ]);
    }
  });
  const first = times[0]!;
  const last = times.length - 1;
  const span = last === 0 ? 1000 : times[last]! - first + (times[last]! - times[last - 1]!);
  return { at: times.map((us) => (us - first) / 1000), span: span / 1000 };
}

const TIME_HEADERS = ['time', 'timestamp', 'ts'];
const SERIES_HEADER = /^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{(.*)\}\s*$/;
const LABEL_PAIR = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * The metric name and labels of a column header; undefined when it is neither a series header nor a metric name.
 * `repeated` is a label (or `__name__`) the header gives twice: which value it means is unknown.
 */
function seriesOf(header: string): { name?: string; labels: Record<string, string>; repeated?: string } | undefined {
  if (METRIC_NAME.test(header)) return { name: header, labels: {} };
  const match = SERIES_HEADER.exec(header);
  if (!match) return undefined;
  // No prototype: a label headed __proto__ is a key of its own, refused by the label rules, not a prototype set.
  const labels: Record<string, string> = Object.create(null);
  const seen = new Set<string>(match[1] === undefined ? [] : ['__name__']);
  let repeated: string | undefined;
  let name = match[1];
  const body = match[2]!.trim();
  LABEL_PAIR.lastIndex = 0;
  while (LABEL_PAIR.lastIndex < body.length) {
    const pair = LABEL_PAIR.exec(body);
    if (!pair) return undefined;
    const key = pair[1]!;
    const value = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (seen.has(key)) repeated ??= key;
    seen.add(key);
    if (key === '__name__') name = value;
    else labels[key] = value;
  }
  if (name !== undefined && !METRIC_NAME.test(name)) return undefined;
  return { ...(name !== undefined && { name }), labels: { ...labels }, ...(repeated !== undefined && { repeated }) };
}

const NUMBER_CELL = 'a finite decimal number (NaN, infinities and values beyond ±1.8e308 are not replayed)';

export function metricTable(text: string, origin: string): MetricTable {
  const { header, rows } = rowsOf(text, origin);
  const fail = (message: string) => new ConfigError('invalid', origin, [{ path: '', message }]);
  if (!TIME_HEADERS.includes(header[0]!.toLowerCase()))
    throw fail(`${at(1, 0)}: expected the time column first (headed Time or timestamp), got ${show(header[0])}`);
  if (header.length < 2) throw fail(`${at(1, 1)}: expected at least one column of values after the time column`);
  const times = replayTimes(rows, 0, header[0]!, origin);
  const columns = header.slice(1).map((text, k) => {
    const column = k + 1;
    const series = seriesOf(text);
    if (!series)
      throw fail(
        `${at(1, column)}: expected a metric name or a series header such as {__name__="up", job="api"}, got ${show(text)}`,
      );
    if (series.repeated !== undefined)
      throw fail(
        `${at(1, column, text)}: the header gives ${series.repeated} twice: a series has one value a label, so give it once`,
      );
    // The header's labels obey the rules of an entry's `labels` (no __ prefix, the length bounds): they are written as such.
    const decoded = labelsCodec.decode(series.labels);
    if (decoded._tag === 'Left') {
      const [issue] = issuesOf(decoded.left);
      throw fail(`${at(1, column, text)}: ${formatPath(['labels', ...issue!.path])}: ${issue!.message}`);
    }
    const values: number[] = [];
    let last: number | undefined;
    let negative: { place: string; value: number } | undefined;
    for (const { cells, line } of rows) {
      const cell = (cells[column] ?? '').trim();
      // An empty cell or `null` (Grafana's null, written so by its older exports and since 12.0.2) holds the value before it.
      if (cell !== '' && cell !== 'null') {
        last = decimal(cell) ?? Number.NaN;
        if (!Number.isFinite(last))
          throw fail(`${at(line, column, text)}: expected ${NUMBER_CELL}, got ${show(cells[column])}`);
        if (last < 0) negative ??= { place: at(line, column, text), value: last };
      }
      values.push(last ?? NaN);
    }
    const firstValue = values.find((v) => !Number.isNaN(v));
    if (firstValue === undefined) throw fail(`${at(1, column, text)}: the column has no value in any row`);
    // Empty cells before the first value take it.
    return {
      header: text,
      ...series,
      values: values.map((v) => (Number.isNaN(v) ? firstValue : v)),
      ...(negative && { negative }),
    };
  });
  return { times, columns, toJSON: () => ({ rows: rows.length, columns: columns.length }) };
}

const LOG_COLUMNS = { timestamp: TIME_HEADERS, severity: ['severity', 'level'], message: ['message', 'msg'] };
const SEVERITY_WORDS: Readonly<Record<string, Severity>> = {
  ...Object.fromEntries(SEVERITIES.map((s) => [s, s])),
  warning: 'warn',
  critical: 'fatal',
};

/** The records of a logs CSV; a row without a severity (no such column, or an empty cell) has `defaultSeverity`. */
export function logTable(text: string, origin: string, defaultSeverity: Severity = 'info'): LogTable {
  const { header, rows } = rowsOf(text, origin);
  const fail = (message: string) => new ConfigError('invalid', origin, [{ path: '', message }]);
  const lower = header.map((h) => h.toLowerCase());
  const find = (names: readonly string[]) => lower.findIndex((h) => names.includes(h));
  const [time, severity, message] = [
    find(LOG_COLUMNS.timestamp),
    find(LOG_COLUMNS.severity),
    find(LOG_COLUMNS.message),
  ];
  if (time < 0) throw fail(`line 1: no timestamp column (headed ${LOG_COLUMNS.timestamp.join(', ')})`);
  if (message < 0) throw fail(`line 1: no message column (headed ${LOG_COLUMNS.message.join(', ')})`);
  const times = replayTimes(rows, time, header[time]!, origin);
  const fieldColumns = header.map((_, k) => k).filter((k) => k !== time && k !== severity && k !== message);
  // A record holds one value a field name: of two columns with one header, the second would replace the first.
  const columnOf = new Map<string, number>();
  for (const k of fieldColumns) {
    const first = columnOf.get(header[k]!);
    if (first !== undefined)
      throw fail(
        `${at(1, k, header[k])}: the header names the field "${header[k]}" twice (columns ${first + 1} and ${k + 1}): a record has one value a field, so rename one`,
      );
    columnOf.set(header[k]!, k);
  }
  const records = rows.map(({ cells, line }) => {
    let level = defaultSeverity;
    if (severity >= 0 && cells[severity]!.trim() !== '') {
      const word = cells[severity]!.trim().toLowerCase();
      const found = Object.hasOwn(SEVERITY_WORDS, word) ? SEVERITY_WORDS[word] : undefined;
      if (!found)
        throw fail(
          `${at(line, severity, header[severity])}: expected one of ${SEVERITIES.join(', ')}, got ${show(cells[severity])}`,
        );
      level = found;
    }
    // fromEntries defines each field, where an assignment would set the prototype of a column headed __proto__.
    const fields = Object.fromEntries(fieldColumns.filter((k) => cells[k] !== '').map((k) => [header[k]!, cells[k]!]));
    return { severity: level, message: cells[message]!, fields };
  });
  return { times, records, lineNumbers: rows.map(({ line }) => line), toJSON: () => ({ rows: rows.length }) };
}

const BYTE_ORDER_MARK = '\uFEFF';

/** The lines of a replayed log file, blank ones left out (as the reference tool reads them), within the bounds. */
export function logLines(text: string, origin: string): LogLines {
  const fail = (message: string) => new ConfigError('invalid', origin, [{ path: '', message }]);
  const lines: string[] = [];
  const lineNumbers: number[] = [];
  // Line by line, not split whole: a file of blank lines would be millions of strings at once. A byte-order mark
  // (editors on Windows write one) is no text of the first line, as the CSV reader and the scenario parser drop it.
  for (let start = text.startsWith(BYTE_ORDER_MARK) ? 1 : 0, number = 1; start < text.length; number++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, text[end - 1] === '\r' ? end - 1 : end);
    start = end + 1;
    if (line.trim() === '') continue;
    if (line.length > MAX_CSV_CELL)
      throw fail(`line ${number}: longer than ${MAX_CSV_CELL} characters, the limit for a line of a replay file`);
    if (lines.length === MAX_CSV_ROWS)
      throw fail(`more than ${MAX_CSV_ROWS} lines that are not blank, the limit for a replay file`);
    lines.push(line);
    lineNumbers.push(number);
  }
  if (lines.length === 0) throw fail('expected at least one line that is not blank, got none');
  return { lines, lineNumbers, toJSON: () => ({ lines: lines.length }) };
}
