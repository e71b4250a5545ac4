import type { LogTemplate } from '../../operators/model/batch.js';
import type {
  CsvReplayLogGenerator,
  LineReplayLogGenerator,
  LogGeneratorConfig,
  Severity,
  TemplateLogGenerator,
} from '../language/types.js';
import { SplitMix64 } from '../random.js';
import { replayRow } from './replay.js';
import { PLACEHOLDER } from '../language/fields.js';

/** One generated log record. */
export interface LogRecord {
  readonly severity: Severity;
  readonly message: string;
  /** Every placeholder value picked for the message. */
  readonly fields: Readonly<Record<string, string>>;
  /** The template the message was filled from (template generators). */
  readonly template?: LogTemplate;
}

/**
 * A template split once into literal text and the placeholders that have a pool: `parts` holds
 * literal text and pool indexes (into `pools`, and `names`) where a value goes; `names` the
 * distinct placeholders with a pool, in order of first appearance.
 */
interface CompiledTemplate extends LogTemplate {
  /** The template's own severity, if it has one. */
  readonly severity?: Severity;
  readonly pools: readonly (readonly string[])[];
}

/** The record of the tick scheduled `at` ms after the entry start, its n-th. */
export function logGenerator(config: LogGeneratorConfig): (n: number, at: number) => LogRecord {
  switch (config.type) {
    case 'template':
      return templateGenerator(config);
    case 'csv_replay':
      return replayGenerator(config);
    case 'replay':
      return lineGenerator(config);
  }
}

/** Line n mod the line count of the file: one line a tick whatever the time, as the reference tool replays. */
function lineGenerator(config: LineReplayLogGenerator): (n: number) => LogRecord {
  if (!config.lines) throw new Error(`replay of ${config.file}: the file was not read`);
  const records = config.lines.lines.map((message): LogRecord => ({ severity: 'info', message, fields: {} }));
  return (n) => records[n % records.length]!;
}

/** The CSV row in force at the tick's time, on the CSV's own spacing (lib/generators/replay.ts). */
function replayGenerator(config: CsvReplayLogGenerator): (n: number, at: number) => LogRecord {
  if (!config.table) throw new Error(`csv_replay of ${config.file}: the file was not read`);
  const { times, records } = config.table;
  const row = replayRow(times, config.repeat, config.timescale);
  return (_n, at) => records[row(at)]!;
}

/**
 * The record of tick n, a pure function of (seed, n): draw 0 picks the template, draw 1 the
 * severity (unless the template has its own), draw 2 + k the value of the template's k-th
 * placeholder, each from SplitMix64 output `n × stride + draw`. The same file gives the same
 * records on every run.
 */
function templateGenerator(config: TemplateLogGenerator): (n: number) => LogRecord {
  const templates = config.templates.map((template) => ({
    ...compile(template.message, { ...config.field_pools, ...template.field_pools }),
    ...(template.severity && { severity: template.severity }),
  }));
  const stride = 2 + Math.max(...templates.map((t) => t.names.length));
  const pickSeverity = severityPicker(config.severity_weights);
  const random = new SplitMix64(config.seed);

  // Plain loops, not map/forEach, and one scratch array of values: this runs once per event.
  const values: string[] = [];
  return (n) => {
    const draw = n * stride;
    const template = templates[Math.floor(random.unit(draw) * templates.length)]!;
    const { parts, names, pools } = template;
    const fields: Record<string, string> = {};
    for (let k = 0; k < pools.length; k++) {
      const pool = pools[k]!;
      fields[names[k]!] = values[k] = pool[Math.floor(random.unit(draw + 2 + k) * pool.length)]!;
    }
    let message = '';
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p]!;
      message += typeof part === 'string' ? part : values[part];
    }
    return { severity: template.severity ?? pickSeverity(random.unit(draw + 1)), message, fields, template };
  };
}

function compile(message: string, pools: Readonly<Record<string, readonly string[]>>): CompiledTemplate {
  const parts: (string | number)[] = [];
  const names: string[] = [];
  let last = 0;
  for (const match of message.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!Object.hasOwn(pools, name)) continue; // no pool: the text stays literal
    if (!names.includes(name)) names.push(name);
    parts.push(message.slice(last, match.index), names.indexOf(name));
    last = match.index + match[0].length;
  }
  parts.push(message.slice(last));
  return { parts: parts.filter((p) => p !== ''), names, pools: names.map((name) => pools[name]!) };
}

/** The severities `weights` draw, with their weights: those above 0; `info` when none are given. */
export function drawnSeverities(weights: TemplateLogGenerator['severity_weights']): [Severity, number][] {
  return Object.entries(weights ?? { info: 1 }).filter(([, w]) => w! > 0) as [Severity, number][];
}

/** Picks a severity from a unit draw, in proportion to the weights; `info` when none are given. */
function severityPicker(weights: TemplateLogGenerator['severity_weights']): (u: number) => Severity {
  const entries = drawnSeverities(weights);
  const severities = entries.map(([severity]) => severity);
  const shares = entries.map(([, weight]) => weight);
  const total = shares.reduce((sum, w) => sum + w, 0);
  return (u) => {
    let left = u * total;
    for (let k = 0; k < shares.length; k++) {
      if (left < shares[k]!) return severities[k]!;
      left -= shares[k]!;
    }
    return severities[severities.length - 1]!;
  };
}
