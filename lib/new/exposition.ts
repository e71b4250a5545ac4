import { decimal } from '../language/decimal.js';
/**
 * A parser of the Prometheus text exposition format (version 0.0.4), the format of `/metrics`
 * endpoints. No npm parser fits: the one in wide use (parse-prometheus-text-format, unchanged
 * since 2019) merges the label sets of a labelled histogram or summary into one, which is exactly
 * what a profile must count.
 *
 * The rules followed, from the format's documentation (prometheus.io, "Exposition formats", text
 * format details):
 * - Lines are separated by a line feed; empty lines are ignored; within a line, tokens are
 *   separated by any number of blanks and tabs, leading and trailing whitespace is ignored.
 * - A line whose first non-blank character is `#` is a comment, unless its first token after `#`
 *   is `HELP` (then a metric name and the docstring, the rest of the line, with `\\` and `\n`
 *   escaped) or `TYPE` (then a metric name and one of `counter`, `gauge`, `histogram`, `summary`,
 *   `untyped`). A TYPE line comes before the first sample of its metric.
 * - A sample is `metric_name [{label_name="label_value",…}] value [timestamp]`; a label value
 *   escapes `\`, `"` and line feed as `\\`, `\"` and `\n`; a trailing comma in the braces is allowed;
 *   the value is a float, `NaN`, `+Inf` or `-Inf`; the timestamp, milliseconds, is optional.
 * - The samples of a histogram `x` are `x_bucket{le="…"}`, `x_sum` and `x_count`; of a summary
 *   `x{quantile="…"}`, `x_sum` and `x_count`.
 * OpenMetrics' variants met on the same endpoints are read too: `# TYPE x counter` with samples
 * `x_total`, `_created` samples, `unknown` for `untyped`, `info` (samples `x_info`) and `stateset`
 * as gauges, as Prometheus stores them, timestamps in seconds with a fraction, an exemplar after
 * the value (`# {trace_id="…"} 0.5 [timestamp]`, not kept), and `# EOF`. Lines that break these rules
 * (and UTF-8 metric names written in quotes) are skipped and counted, so one bad line does not
 * lose the rest.
 */

/** The metric types of the exposition format. */
export type ExpositionType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: the family's, or it with a suffix (`_bucket`, `_sum`, `_count`, `_total`, `_created`). */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly type: ExpositionType;
  readonly help?: string;
  readonly samples: readonly Sample[];
}

export interface Exposition {
  /** In the order of their first line. */
  readonly families: readonly MetricFamily[];
  /** Lines skipped because they break the format: how many, and the first one's number and why. */
  readonly skipped: number;
  readonly firstSkipped?: string;
}

/** The suffixes each type's samples may carry after the family name. */
const SUFFIXES: Record<ExpositionType, readonly string[]> = {
  counter: ['_total', '_created'],
  gauge: [],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['_sum', '_count', '_created'],
  untyped: [],
};

const ALL_SUFFIXES = [...new Set(Object.values(SUFFIXES).flat())];

const TYPES: Readonly<Record<string, ExpositionType>> = {
  counter: 'counter',
  gauge: 'gauge',
  histogram: 'histogram',
  summary: 'summary',
  untyped: 'untyped',
  unknown: 'untyped',
  stateset: 'gauge',
};

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

interface Building {
  name: string;
  type: ExpositionType;
  help?: string;
  samples: Sample[];
}

/**
 * Whether `text` is an exposition rather than a CSV: a HELP or TYPE line, or a first line that is a
 * sample (a CSV's header holds a comma outside any braces: the time column and a series).
 */
export function looksLikeExposition(text: string): boolean {
  if (/^[ \t]*#[ \t]*(HELP|TYPE)[ \t]/m.test(text)) return true;
  const first = text.split('\n').find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  return first !== undefined && SAMPLE_LINE.test(first);
}

/**
 * A sample line's shape: a metric name, its labels or a blank, a value, then what may follow it after a blank (a
 * timestamp; an exemplar after `#`, whose labels may hold commas). No comma outside braces and the exemplar, as a
 * CSV's header has; each part is matched one way only, so a long line is read in one pass.
 */
const SAMPLE_LINE = new RegExp(`^\\s*${METRIC_NAME.source.slice(1)}(\\{.*\\}\\s*|\\s+)[^\\s,{#]+(\\s[^,#]*(#.*)?)?$`);

/** The families of a text exposition. */
export function parseExposition(text: string): Exposition {
  const families = new Map<string, Building>();
  const family = (name: string): Building => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, type: 'untyped', samples: [] }));
    return found;
  };
  let skipped = 0;
  let firstSkipped: string | undefined;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const problem = line.startsWith('#') ? readComment(line, family) : readSample(line, families, family);
    if (problem === undefined) continue;
    skipped++;
    firstSkipped ??= `line ${index + 1}: ${problem}`;
  }
  return {
    families: [...families.values()].filter((f) => f.samples.length > 0),
    skipped,
    ...(firstSkipped && { firstSkipped }),
  };
}

/** Reads a HELP or TYPE line into its family; other comments are ignored. Returns why the line is broken, if it is. */
function readComment(line: string, family: (name: string) => Building): string | undefined {
  const match = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!match) return undefined;
  const [, keyword, name, rest = ''] = match;
  if (!METRIC_NAME.test(name!) || METRIC_NAME.exec(name!)![0] !== name) return `not a metric name: ${name}`;
  if (keyword === 'HELP') {
    family(name!).help = rest.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
    return undefined;
  }
  const typeName = rest.trim().toLowerCase();
  // An info family `x` is written as samples `x_info`: that is the gauge to reproduce, with x's help.
  if (typeName === 'info') {
    const info = family(`${name}_info`);
    info.type = 'gauge';
    info.help ??= family(name!).help;
    return undefined;
  }
  const type = TYPES[typeName];
  if (!type) return `unknown metric type "${rest.trim()}"`;
  family(name!).type = type;
  return undefined;
}

/** Reads a sample into the family it belongs to. Returns why the line is broken, if it is. */
function readSample(
  line: string,
  families: ReadonlyMap<string, Building>,
  family: (name: string) => Building,
): string | undefined {
  const name = METRIC_NAME.exec(line)?.[0];
  if (!name) return 'expected a metric name';
  let at = name.length;
  const labels: Record<string, string> = {};
  at = skipBlanks(line, at);
  if (line[at] === '{') {
    const read = readLabels(line, at + 1, labels);
    if (typeof read === 'string') return read;
    at = read;
  }
  // An OpenMetrics exemplar follows a `#`, which neither a value nor a timestamp holds.
  const [valueText, timestamp, extra] = line
    .slice(at)
    .split('#', 1)[0]!
    .trim()
    .split(/[ \t]+/);
  const value = parseValue(valueText ?? '');
  if (value === undefined) return `expected a value, got "${valueText ?? ''}"`;
  // Milliseconds in the text format, seconds with a fraction in OpenMetrics.
  if (extra !== undefined || (timestamp !== undefined && !/^-?\d+(\.\d+)?$/.test(timestamp)))
    return 'expected a value and an optional timestamp after the labels';
  family(familyOf(name, families)).samples.push({ name, labels, value });
  return undefined;
}

/**
 * The family a sample named `name` belongs to: a declared family it is the name of, or the name of with a
 * suffix of that family's type.
 */
function familyOf(name: string, families: ReadonlyMap<string, Building>): string {
  if (families.has(name)) return name;
  const suffix = ALL_SUFFIXES.find(
    (s) => name.endsWith(s) && SUFFIXES[families.get(name.slice(0, -s.length))?.type ?? 'untyped'].includes(s),
  );
  return suffix === undefined ? name : name.slice(0, -suffix.length);
}

/** Reads `name="value",…}` from `at` into `labels`; the index after the `}`, or why it cannot. */
function readLabels(line: string, from: number, labels: Record<string, string>): number | string {
  let at = from;
  for (;;) {
    at = skipBlanks(line, at);
    if (line[at] === '}') return at + 1;
    const name = LABEL_NAME.exec(line.slice(at))?.[0];
    if (!name) return 'expected a label name';
    at = skipBlanks(line, at + name.length);
    if (line[at] !== '=') return `expected = after the label ${name}`;
    at = skipBlanks(line, at + 1);
    if (line[at] !== '"') return `expected a quoted value of the label ${name}`;
    let value = '';
    for (at++; at < line.length && line[at] !== '"'; at++) {
      if (line[at] !== '\\') {
        value += line[at];
        continue;
      }
      const escaped = line[++at];
      value += escaped === 'n' ? '\n' : escaped === '\\' || escaped === '"' ? escaped : `\\${escaped ?? ''}`;
    }
    if (at >= line.length) return `unterminated value of the label ${name}`;
    labels[name] = value;
    at = skipBlanks(line, at + 1);
    if (line[at] === ',') at++;
    else if (line[at] !== '}') return `expected , or } after the label ${name}`;
  }
}

function skipBlanks(line: string, at: number): number {
  while (line[at] === ' ' || line[at] === '\t') at++;
  return at;
}

/** A sample value: a float as Go's ParseFloat reads it, `NaN`, `+Inf`, `-Inf` (any case, as Go). */
function parseValue(text: string): number | undefined {
  const special = /^([+-]?)(inf|infinity)$/i.exec(text);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return decimal(text);
}
