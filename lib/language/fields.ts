/**
 * io-ts codecs of the scenario language: the v2 file and every entry field. Field-local rules
 * (ranges, patterns, `for` < `every`, increasing buckets) live here; rules that relate several
 * entry fields live in entry.ts, rules across entries in references.ts.
 */
import * as t from 'io-ts';
import { parseDuration } from './duration.js';
import { parseStartTime } from './start-time.js';
import { isMapping, show } from './problems.js';
import {
  Codec,
  andThen,
  atLeast,
  atMost,
  boolean,
  failAt,
  integer,
  invalidType,
  list,
  matching,
  nonEmptyString,
  nonNegative,
  number,
  numberWhere,
  oneOf,
  positive,
  positiveInteger,
  record,
  string,
  stringWhere,
  strict,
  tagged,
} from './combinators.js';
import * as limits from './limits.js';
import { formatMs } from '../format.js';
import { splitHostPort } from './address.js';
import type { DynamicLabel, GeneratorConfig, LogGeneratorConfig, Severity, SignalFamily, SignalType, StartTime } from './types.js';

export const NAME_PATTERN = '[a-zA-Z_:][a-zA-Z0-9_:]*';
/** Names of catalog files and packs (`@name`, `pack: name`). */
export const CATALOG_NAME_PATTERN = '[a-zA-Z0-9_][a-zA-Z0-9_.-]*';
export const LABEL_KEY_PATTERN = '[a-zA-Z_][a-zA-Z0-9_]*';
export const SIGNAL_TYPES: readonly SignalType[] = ['metrics', 'logs', 'histogram', 'summary'];

/** What a transport or encoder carries: histograms and summaries are metrics. */
export function familyOf(signal: SignalType): SignalFamily {
  return signal === 'logs' ? 'logs' : 'metrics';
}
export const SEVERITIES: readonly Severity[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
/** RFC 5424 facility names in code order (0-23). */
export const SYSLOG_FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp',
  'ntp', 'audit', 'alert', 'clock', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
] as const;

// ---- scalars -------------------------------------------------------------------------------

/** Grammar errors of the parsers become the failure message. */
function parsed<A>(name: string, expected: string, parse: (text: string) => A): Codec<A> {
  return new Codec<A>(name, (u, c) => {
    if (typeof u !== 'string') return invalidType(u, c, expected);
    try {
      return t.success(parse(u));
    } catch (error) {
      return t.failure(u, c, (error as Error).message);
    }
  });
}

/** A duration up to `max` ms; the limit is written from `max` itself, with an optional `note`. */
function durationUpTo(max: number, note = ''): Codec<number> {
  return andThen(parsed('duration', 'a duration string such as "30s"', parseDuration), (ms, u, c) =>
    ms <= max ? t.success(ms) : t.failure(u, c, `expected a duration up to ${formatMs(max)}${note}, got ${show(u)}`),
  );
}

/** `duration`, `phase_offset`, `after.delay` and window lengths. */
export const duration = durationUpTo(limits.MAX_DURATION_MS, ' (365 days)');
const backoff = durationUpTo(limits.MAX_BACKOFF_MS);
/** `max_buffer_age` of a batching sink: `0s` turns the age rule off. */
export const maxBufferAge = durationUpTo(limits.MAX_BUFFER_AGE_MS);

export const startTime: Codec<StartTime> = andThen(
  parsed('start_time', 'a string such as "now", "-1h" or "2024-05-01T12:00:00Z"', parseStartTime),
  (start, u, c) =>
    start.kind === 'relative' && Math.abs(start.offsetMs) > limits.MAX_START_OFFSET_MS
      ? t.failure(u, c, `expected an offset up to 36500d (100 years) either way, got ${show(u)}`)
      : t.success(start),
);

/** An integer from 1 to `max`. */
export const countUpTo = (max: number) => atMost(positiveInteger, max);

export const metricName = matching(NAME_PATTERN, 'a name');
export const catalogName = matching(CATALOG_NAME_PATTERN, 'a name');
export const METRIC_TYPES = ['gauge', 'counter', 'histogram', 'summary', 'untyped'] as const;
export const metricType = oneOf(METRIC_TYPES);
export const labelKey = matching(LABEL_KEY_PATTERN, 'a label key');

function isHostPort(s: string): boolean {
  return splitHostPort(s) !== undefined;
}

function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const hostPort = stringWhere(isHostPort, 'host:port (port 1-65535)');
export const httpUrl = stringWhere(isHttpUrl, 'an http:// or https:// URL');
export const grpcEndpoint = stringWhere((s) => isHostPort(s) || isHttpUrl(s), 'host:port or an http:// or https:// URL');

// ---- labels and schedules ------------------------------------------------------------------

/** A label value: text; a YAML number or boolean (`status: 200`) is taken as its text, as the number reads (`1.50` is `"1.5"`). */
export const labelValue = new Codec<string>('label value', (u, c) => {
  if (typeof u === 'string') return t.success(u);
  if (typeof u === 'boolean' || (typeof u === 'number' && Number.isFinite(u))) return t.success(String(u));
  return invalidType(u, c, 'a string, a number or a boolean');
});

export const labels = record(labelKey, labelValue);

function shorterThanEvery<W extends { every: number; for: number }>(w: W, u: unknown, c: t.Context): t.Validation<W> {
  const raw = u as Record<string, unknown>;
  return w.for < w.every ? t.success(w) : failAt(u, c, 'for', `expected a duration shorter than every (${show(raw.every)}), got ${show(raw.for)}`);
}

export const gaps = andThen(strict('gaps', { every: duration, for: duration }), shorterThanEvery);
const multiplier = atMost(atLeast(positive, limits.MIN_BURST_MULTIPLIER), limits.MAX_BURST_MULTIPLIER);
export const bursts = andThen(strict('bursts', { every: duration, for: duration, multiplier }), shorterThanEvery);
/** A recurring window: the cycle length and the window length, in milliseconds. */
export type Window = t.TypeOf<typeof gaps>;
export type BurstWindow = t.TypeOf<typeof bursts>;
const cardinality = countUpTo(limits.MAX_CARDINALITY);

export const cardinalitySpike = andThen(
  andThen(
    strict(
      'cardinality spike',
      { label: labelKey, every: duration, for: duration, cardinality },
      { strategy: oneOf(['counter', 'random']), prefix: string, seed: integer },
    ),
    shorterThanEvery,
  ),
  (s) =>
    t.success({
      label: s.label,
      every: s.every,
      for: s.for,
      cardinality: s.cardinality,
      strategy: s.strategy ?? 'counter',
      prefix: s.prefix ?? `${s.label}_`,
      seed: s.seed ?? 0,
    }),
);
export type CardinalitySpike = t.TypeOf<typeof cardinalitySpike>;

export const dynamicLabel = andThen(
  strict('dynamic label', { key: labelKey }, { prefix: string, cardinality, values: list(labelValue, { nonEmpty: true, max: limits.MAX_LIST_VALUES }) }),
  (d, u, c): t.Validation<DynamicLabel> => {
    if (d.cardinality !== undefined && d.values !== undefined) {
      return t.failure(u, c, 'expected either cardinality (counter form) or values (list form), not both');
    }
    if (d.values !== undefined) {
      return d.prefix === undefined
        ? t.success({ key: d.key, form: 'list', values: d.values })
        : failAt(u, c, 'prefix', 'only allowed with cardinality (the counter form); the list form uses its values as written');
    }
    if (d.cardinality === undefined) return t.failure(u, c, 'expected cardinality (counter form) or values (list form)');
    return t.success({ key: d.key, form: 'counter', prefix: d.prefix ?? `${d.key}_`, cardinality: d.cardinality });
  },
);

export const dynamicLabels = andThen(list(dynamicLabel, { max: limits.MAX_DYNAMIC_LABELS }), (all, u, c) => {
  const first = new Map<string, number>();
  for (const [i, label] of all.entries()) {
    const seen = first.get(label.key);
    if (seen !== undefined) return failAt(u, c, [i, 'key'], `duplicate key ${show(label.key)} (also dynamic_labels[${seen}])`);
    first.set(label.key, i);
  }
  return t.success(all);
});

// ---- value, log and observation generators ------------------------------------------------

/** A period of a periodic generator, in seconds: from 1 ms to 365 days. */
const periodSecs = atMost(atLeast(positive, limits.MIN_PERIOD_SECS), limits.MAX_PERIOD_SECS);

/** `max` above `min`, reported on `max`. */
function minBelowMax<G extends { min: number; max: number }>(g: G, u: unknown, c: t.Context): t.Validation<G> {
  return g.min < g.max ? t.success(g) : failAt(u, c, 'max', `expected a number greater than min (${g.min}), got ${g.max}`);
}

/** A wrapping step: climbing by step_size from start to max, in at most 2^53 − 1 steps a cycle. */
function wrappingStep(g: { start: number; step_size: number; max: number }, u: unknown, c: t.Context): t.Validation<GeneratorConfig> {
  if (!(g.step_size > 0)) return failAt(u, c, 'step_size', `expected a number greater than 0 with max (the values climb to max, then wrap), got ${g.step_size}`);
  if (!(g.max > g.start)) return failAt(u, c, 'max', `expected a number greater than start (${g.start}), got ${g.max}`);
  // Written so that neither quotient overflows: max − start may exceed the double range.
  const least = g.max / Number.MAX_SAFE_INTEGER - g.start / Number.MAX_SAFE_INTEGER;
  if (g.step_size < least) return failAt(u, c, 'step_size', `expected at least ${least} with max (at most 2^53 − 1 steps from start to max), got ${g.step_size}`);
  return t.success({ type: 'step', ...g });
}

/**
 * The operational aliases (lib/language/aliases.ts). Entries and `defaults` have them rewritten
 * into a generator before validation, and `overrides` decode them (aliases.ts); the generator
 * codec meets one only where it cannot stand (a pack file's metric), and says so.
 */
export const GENERATOR_ALIASES = ['flap', 'saturation', 'leak', 'degradation', 'steady', 'spike_event'] as const;
export type GeneratorAlias = (typeof GENERATOR_ALIASES)[number];
const aliasElsewhere = new Codec<GeneratorConfig>('generator alias', (u, c) =>
  failAt(u, c, 'type', `${show((u as Record<string, unknown>).type)} is an operational alias, only allowed in the generator of an entry, of defaults or of a pack's overrides; write the generator it stands for (docs/scenario-fields.md#operational-aliases)`),
);

/** How a CSV is replayed (lib/generators/replay.ts): starting over at its end, and its time scaled. */
const replayTiming = { repeat: boolean, timescale: atMost(atLeast(positive, limits.MIN_TIMESCALE), limits.MAX_TIMESCALE) };

/** A replayed column by position; the time column (0) is not a series. */
const csvColumn = strict('csv column', { index: atMost(positiveInteger, limits.MAX_CSV_COLUMNS) }, { name: metricName, labels });
/** A replayed column: its header text or metric name, or `{index, name?, labels?}`. */
const csvColumnChoice = new Codec<string | t.TypeOf<typeof csvColumn>>('csv column', (u, c) =>
  isMapping(u) ? csvColumn.validate(u, c) : nonEmptyString.validate(u, c),
);

export const generator: Codec<GeneratorConfig> = tagged('generator', {
  constant: strict('constant generator', { type: oneOf(['constant']), value: number }),
  sine: andThen(
    strict('sine generator', { type: oneOf(['sine']), amplitude: number, period_secs: periodSecs }, { offset: number }),
    (g) => t.success({ type: 'sine' as const, amplitude: g.amplitude, period_secs: g.period_secs, offset: g.offset ?? 0 }),
  ),
  step: andThen(strict('step generator', { type: oneOf(['step']), step_size: number }, { start: number, max: number }), (g, u, c) => {
    const start = g.start ?? 0;
    return g.max === undefined ? t.success({ type: 'step' as const, start, step_size: g.step_size }) : wrappingStep({ start, step_size: g.step_size, max: g.max }, u, c);
  }),
  sequence: andThen(
    strict('sequence generator', { type: oneOf(['sequence']), values: list(number, { nonEmpty: true, max: limits.MAX_SEQUENCE_VALUES }) }, { repeat: boolean }),
    (g): t.Validation<GeneratorConfig> => t.success({ type: 'sequence', values: g.values, repeat: g.repeat ?? true }),
  ),
  uniform: andThen(
    andThen(strict('uniform generator', { type: oneOf(['uniform']), min: number, max: number }, { seed: integer }), minBelowMax),
    (g) => t.success({ type: 'uniform' as const, min: g.min, max: g.max, seed: g.seed ?? 0 }),
  ),
  sawtooth: andThen(strict('sawtooth generator', { type: oneOf(['sawtooth']), min: number, max: number, period_secs: periodSecs }), minBelowMax),
  spike: andThen(
    strict('spike generator', { type: oneOf(['spike']), baseline: number, magnitude: number, duration_secs: periodSecs, interval_secs: periodSecs }),
    (g, u, c) =>
      g.duration_secs < g.interval_secs
        ? t.success(g)
        : failAt(u, c, 'duration_secs', `expected a number less than interval_secs (${g.interval_secs}), got ${g.duration_secs}`),
  ),
  csv_replay: andThen(
    strict('csv_replay generator', { type: oneOf(['csv_replay']), file: nonEmptyString }, { ...replayTiming, columns: list(csvColumnChoice, { nonEmpty: true, max: limits.MAX_CSV_COLUMNS }) }),
    (g) => t.success({ type: 'csv_replay' as const, file: g.file, ...(g.columns && { columns: g.columns }), repeat: g.repeat ?? true, timescale: g.timescale ?? 1 }),
  ),
  ...(Object.fromEntries(GENERATOR_ALIASES.map((alias) => [alias, aliasElsewhere])) as Record<GeneratorAlias, typeof aliasElsewhere>),
});

/** The generator of a pack metric or an override: any but `csv_replay`, whose file only an entry's generator has read. */
export const packGenerator = new Codec<GeneratorConfig>('generator', (u, c) =>
  isMapping(u) && u.type === 'csv_replay'
    ? failAt(u, c, 'type', 'csv_replay is only allowed in the generator of an entry, not in a pack or its overrides')
    : generator.validate(u, c),
);

const fieldPools = record(matching(LABEL_KEY_PATTERN, 'a placeholder name'), list(string, { nonEmpty: true, max: limits.MAX_LIST_VALUES }));
const logTemplate = strict('log template', { message: string }, { field_pools: fieldPools, severity: oneOf(SEVERITIES) });

const severityWeight = atMost(nonNegative, limits.MAX_SEVERITY_WEIGHT);
const severityWeights = andThen(
  strict('severity weights', {}, Object.fromEntries(SEVERITIES.map((s) => [s, severityWeight])) as Record<Severity, typeof severityWeight>),
  (weights, u, c) =>
    Object.values(weights).some((w) => w > 0) ? t.success(weights) : t.failure(u, c, 'expected at least one weight greater than 0'),
);

export const logGenerator: Codec<LogGeneratorConfig> = tagged('log_generator', {
  template: andThen(
    strict(
      'template log generator',
      { type: oneOf(['template']), templates: list(logTemplate, { nonEmpty: true, max: limits.MAX_TEMPLATES }) },
      { field_pools: fieldPools, severity_weights: severityWeights, seed: integer },
    ),
    // A placeholder without a pool stays literal in the message (issue 3): no check here.
    (g): t.Validation<LogGeneratorConfig> => {
      const shared = g.field_pools ?? {};
      return t.success({
        type: 'template',
        templates: g.templates,
        field_pools: shared,
        ...(g.severity_weights ? { severity_weights: g.severity_weights } : {}),
        seed: g.seed ?? 0,
      });
    },
  ),
  csv_replay: andThen(
    strict('csv_replay log generator', { type: oneOf(['csv_replay']), file: nonEmptyString }, { ...replayTiming, default_severity: oneOf(SEVERITIES) }),
    (g): t.Validation<LogGeneratorConfig> =>
      t.success({ type: 'csv_replay', file: g.file, repeat: g.repeat ?? true, timescale: g.timescale ?? 1, default_severity: g.default_severity ?? 'info' }),
  ),
});

/** Moves every observation by this × the tick time in seconds: latency that degrades. */
const drift = { mean_shift_per_sec: number };

export const distribution = tagged('distribution', {
  exponential: strict('exponential distribution', { type: oneOf(['exponential']), rate: positive }, drift),
  normal: strict('normal distribution', { type: oneOf(['normal']), mean: number, stddev: nonNegative }, drift),
  uniform: andThen(strict('uniform distribution', { type: oneOf(['uniform']), min: number, max: number }, drift), minBelowMax),
});
export type DistributionConfig = t.TypeOf<typeof distribution>;

function increasing(what: string) {
  return (values: number[], u: unknown, c: t.Context): t.Validation<number[]> => {
    const i = values.findIndex((v, j) => j > 0 && v <= values[j - 1]!);
    return i < 0 ? t.success(values) : failAt(u, c, [i], `expected a number greater than the previous ${what} (${values[i - 1]}), got ${values[i]}`);
  };
}

export const buckets = andThen(list(number, { nonEmpty: true, max: limits.MAX_BUCKETS }), increasing('bucket'));
export const quantiles = andThen(
  list(numberWhere((q) => q > 0 && q < 1, 'a number between 0 and 1 (both excluded)'), { nonEmpty: true, max: limits.MAX_QUANTILES }),
  increasing('quantile'),
);

// ---- fields shared by encoder and sink kinds (each kind's codec: lib/sinks/kinds, lib/encoders/kinds) ----

/** Digits after the decimal point. */
export const precision = numberWhere((n) => Number.isSafeInteger(n) && n >= 0 && n <= 100, 'an integer from 0 to 100');

export const retry = andThen(
  strict('retry', { max_attempts: countUpTo(limits.MAX_RETRY_ATTEMPTS) }, { initial_backoff: backoff, max_backoff: backoff }),
  (r, u, c) =>
    r.initial_backoff !== undefined && r.max_backoff !== undefined && r.max_backoff < r.initial_backoff
      ? failAt(u, c, 'max_backoff', `expected a duration no shorter than initial_backoff (${show((u as Record<string, unknown>).initial_backoff)}), got ${show((u as Record<string, unknown>).max_backoff)}`)
      : t.success(r),
);
export type RetryConfig = t.TypeOf<typeof retry>;

export const headers = record(
  matching("[!#$%&'*+.^_`|~0-9A-Za-z-]+", 'a header name'),
  stringWhere((s) => !/[\r\n\0]/.test(s), 'a header value without line breaks'),
);

export const batchSize = countUpTo(limits.MAX_BATCH_SIZE);

// ---- entry and file -------------------------------------------------------------------------

export const after = strict('after', { ref: nonEmptyString, op: oneOf(['<', '>']), value: number }, { delay: duration });
export type After = t.TypeOf<typeof after>;

/** `while`: the entry emits only while `ref`'s current value satisfies `op value`; `delay` debounces the edges; `snap_to` is the value of one last sample on close. */
export const whileGate = strict(
  'while',
  { ref: nonEmptyString, op: oneOf(['<', '>']), value: number },
  { delay: strict('while.delay', {}, { open: duration, close: duration }), snap_to: number },
);
export type While = t.TypeOf<typeof whileGate>;

export const mapping = new Codec<Record<string, unknown>>('mapping', (u, c) => (isMapping(u) ? t.success(u) : invalidType(u, c, 'a mapping')));

/** Entries are kept raw here: each one is validated on its own, after defaults and overrides. */
/** Catalog metadata of scenario and pack files: shown and filtered by `svc catalog list`. */
export function catalogMetadata() {
  return {
    description: string,
    category: nonEmptyString,
    tags: list(matching(CATALOG_NAME_PATTERN, 'a tag'), { max: limits.MAX_TAGS }),
  };
}

/** One alert expectation of `svc test` (the reference tool's shape): the alert, a subset of its labels, how soon it fires and then resolves. */
export const alertExpectation = strict(
  'alert expectation',
  { alert: nonEmptyString, firing_within: duration },
  { labels, resolves_within: duration },
);
export type AlertExpectation = t.TypeOf<typeof alertExpectation>;

/** The file's `expect`: what `svc test` checks; `svc run` ignores it. */
export const expectations = strict('expect', { alerts: list(alertExpectation, { nonEmpty: true, max: limits.MAX_ALERT_EXPECTATIONS }) });
export type Expectations = t.TypeOf<typeof expectations>;

export const fileFields = {
  version: new Codec<2>(
    'version',
    (u, c) => (typeof u !== 'number' ? invalidType(u, c, 'the number 2') : u === 2 ? t.success(2) : t.failure(u, c, `expected 2, got ${show(u)}`)),
    'expected 2',
  ),
  kind: oneOf(['runnable', 'composable']),
  // Catalog metadata: `svc run @name` finds a file by its name (else by its file name).
  name: catalogName,
  ...catalogMetadata(),
  // The reference tool's word for `name`.
  scenario_name: catalogName,
  defaults: mapping,
  expect: expectations,
  scenarios: new Codec<unknown[]>('scenarios', (u, c) => {
    if (!Array.isArray(u)) return invalidType(u, c, 'a list of entries');
    if (u.length > limits.MAX_ENTRIES) return t.failure(u, c, `expected at most ${limits.MAX_ENTRIES} entries, got ${u.length}`);
    return u.length ? t.success(u) : t.failure(u, c, 'expected at least one entry, got an empty list');
  }),
};
