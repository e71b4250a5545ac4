/**
 * io-ts codecs of the scenario language: the v2 file and every entry field. Field-local rules
 * (ranges, patterns, `for` < `every`, increasing buckets) live here; rules that relate several
 * entry fields live in entry.ts, rules across entries in references.ts.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { DURATION_PATTERN, ZERO_DURATION_PATTERN, longerPartGrammar, parseDuration, writtenMs } from './duration.js';
import { START_TIME_PATTERN, parseStartTime } from './start-time.js';
import { isMapping, show } from './problems.js';
import {
  Codec,
  andThen,
  atLeast,
  atMost,
  boolean,
  failAt,
  hasField,
  integer,
  invalidType,
  list,
  matching,
  charsUpTo,
  conditional,
  filePath,
  nonEmptyString,
  nonNegative,
  number,
  numberWhere,
  oneOf,
  positive,
  positiveInteger,
  record,
  refined,
  string,
  stringWhere,
  strict,
  tagged,
  unitInterval,
  type JsonSchema,
} from './combinators.js';
import * as limits from './limits.js';
import { formatMs } from '../format.js';
import { HOST_PORT_PATTERN, splitHostPort } from './address.js';
import { microseconds, type OneShotWindow, type Window } from '../../operators/model/window.js';
import type { CardinalitySpike as OperatorSpike } from '../../operators/labels.js';
import type {
  DynamicLabel,
  GeneratorConfig,
  LogGeneratorConfig,
  MetricType,
  Severity,
  SignalFamily,
  SignalType,
  StartTime,
} from './types.js';

export const NAME_PATTERN = '[a-zA-Z_:][a-zA-Z0-9_:]*';
/** Names of catalog files and packs (`@name`, `pack: name`). */
export const CATALOG_NAME_PATTERN = '[a-zA-Z0-9_][a-zA-Z0-9_.-]*';
export const LABEL_KEY_PATTERN = '[a-zA-Z_][a-zA-Z0-9_]*';
/** The `id` of a pack metric, told from its name by a dot (`node_cpu_seconds_total.idle`): it holds none. */
export const METRIC_ID_PATTERN = '[a-zA-Z0-9_][a-zA-Z0-9_-]*';
export const SIGNAL_TYPES: readonly SignalType[] = ['metrics', 'logs', 'histogram', 'summary', 'traces'];

/** What a transport or encoder carries: histograms and summaries are metrics. */
export function familyOf(signal: SignalType): SignalFamily {
  return signal === 'logs' || signal === 'traces' ? signal : 'metrics';
}
export const SEVERITIES: readonly Severity[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
/** RFC 5424 facility names in code order (0-23). */
export const SYSLOG_FACILITIES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'audit',
  'alert',
  'clock',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
] as const;

// ---- scalars -------------------------------------------------------------------------------

/** Grammar errors of the parsers become the failure message; `schema` is the string's shape. */
function parsed<A>(name: string, expected: string, parse: (text: string) => A, schema: JsonSchema): Codec<A> {
  return new Codec<A>(
    name,
    (u, c) => {
      if (typeof u !== 'string') return invalidType(u, c, expected);
      try {
        return t.success(parse(u));
      } catch (error) {
        return t.failure(u, c, (error as Error).message);
      }
    },
    undefined,
    () => ({ type: 'string', ...schema }),
  );
}

/**
 * A duration up to `max` ms; the limit is written from `max` itself, with an optional `note`, in the message and in the
 * schema, which refuses a duration one part of which alone passes it.
 */
export function durationUpTo(max: number, note = '', zero = false): Codec<number> {
  const text = parsed('duration', 'a duration string such as "30s"', (u) => parseDuration(u, { zero }), {
    pattern: DURATION_PATTERN,
  });
  return andThen<number, number>(text, (ms, u, c) =>
    ms <= max ? t.success(ms) : t.failure(u, c, `expected a duration up to ${formatMs(max)}${note}, got ${show(u)}`),
  ).withSchema(() => ({
    type: 'string',
    pattern: DURATION_PATTERN,
    not: { pattern: [...(zero ? [] : [ZERO_DURATION_PATTERN]), `^${longerPartGrammar(max)}$`].join('|') },
    description: `A number and a unit, or several largest first as Prometheus writes them (units y, w, d, h, m, s, ms), fractions allowed: 500ms, 1.5s, 1m30s, 7d; ${zero ? '' : 'at least 0.001ms, '}at most ${formatMs(max)}.`,
  }));
}

/** `duration`, `phase_offset`, `after.delay` and window lengths. */
export const duration = durationUpTo(limits.MAX_DURATION_MS, ` (${limits.MAX_DURATION_DAYS} days)`).define('duration');
const backoff = durationUpTo(limits.MAX_BACKOFF_MS);
/** `max_buffer_age` of a batching sink: `0s` turns the age rule off (a batch goes out full, or at the stop). */
export const maxBufferAge = durationUpTo(limits.MAX_BUFFER_AGE_MS, '', true).describe(
  `Longest a chunk waits before its batch goes out, a duration up to ${formatMs(limits.MAX_BUFFER_AGE_MS)} (500ms, 5s); 0s turns the age rule off: a batch goes out at batch_size or at the stop.`,
);

const START_OFFSET_DAYS = limits.MAX_START_OFFSET_MS / limits.DAY;
export const startTime: Codec<StartTime> = andThen(
  parsed('start_time', 'a string such as "now", "-1h" or "2024-05-01T12:00:00Z"', parseStartTime, {
    pattern: START_TIME_PATTERN,
    not: { pattern: `^[+-]${longerPartGrammar(limits.MAX_START_OFFSET_MS)}$` },
    examples: ['now', '-1h', '+30m', '2024-05-01T12:00:00Z'],
  }),
  (start, u, c) => {
    if (start.kind === 'relative' && Math.abs(start.offsetMs) > limits.MAX_START_OFFSET_MS)
      return t.failure(
        u,
        c,
        `expected an offset up to ${START_OFFSET_DAYS}d (${START_OFFSET_DAYS / 365} years) either way, got ${show(u)}`,
      );
    if (
      start.kind === 'absolute' &&
      !(start.epochMs >= limits.MIN_START_EPOCH_MS && start.epochMs <= limits.MAX_START_EPOCH_MS)
    )
      return t.failure(
        u,
        c,
        `expected an instant from 1678-01-01T00:00:00Z to 2200-01-01T00:00:00Z (timestamps in nanoseconds overflow 64 bits past 2262), got ${show(u)}`,
      );
    return t.success(start);
  },
);

/** An integer from 1 to `max`. */
export const countUpTo = (max: number) => atMost(positiveInteger, max);

export const metricName = charsUpTo(matching(NAME_PATTERN, 'a name'), limits.MAX_NAME_CHARS, 'a name');
export const catalogName = matching(CATALOG_NAME_PATTERN, 'a name');
export const METRIC_TYPES = ['gauge', 'counter', 'histogram', 'summary', 'untyped'] as const;
export const metricType = oneOf(METRIC_TYPES);
/**
 * The types an entry's samples can be announced as (`# TYPE`, remote write metadata, OTLP's data point kind): a
 * metrics entry's are single values, a histogram's or summary's its own series set (`untyped` would make readers
 * take its `_bucket`, `_sum` and `_count` for other metrics).
 */
export const METRIC_TYPES_OF: Readonly<Record<'metrics' | 'histogram' | 'summary', readonly MetricType[]>> = {
  metrics: ['gauge', 'counter', 'untyped'],
  histogram: ['histogram'],
  summary: ['summary'],
};
const labelKeyText = charsUpTo(matching(LABEL_KEY_PATTERN, 'a label key'), limits.MAX_NAME_CHARS, 'a label key');
/** A label key; Prometheus reserves those beginning with `__` (`__name__` is the metric name). */
export const labelKey = andThen<string, string>(labelKeyText, (key, u, c) =>
  key.startsWith('__')
    ? t.failure(
        u,
        c,
        `expected a label key not beginning with __ (Prometheus reserves those; __name__ is the metric name, the entry's name), got ${show(key)}`,
      )
    : t.success(key),
).withSchema(refined(labelKeyText, { not: { pattern: '^__' } }));

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

export const hostPort = stringWhere(isHostPort, 'host:port (port 1-65535)', { pattern: HOST_PORT_PATTERN });
/**
 * An http(s) URL whose user name and password decode: they are sent decoded as Basic auth, and Node's client throws
 * at every request for a `%` that starts no escape (`p%ss`).
 */
/**
 * What URL parsing takes (any case of the scheme, tabs and line breaks dropped, `http:host`) is no pattern a schema
 * could state: validation alone judges a URL.
 */
const anyUrl = {};
export const httpUrl = andThen<string, string>(
  stringWhere(isHttpUrl, 'an http:// or https:// URL', anyUrl),
  (s, u, c) => {
    const { username, password } = new URL(s);
    try {
      decodeURIComponent(username + password);
      return t.success(s);
    } catch {
      return t.failure(
        u,
        c,
        `expected a URL whose user name and password decode, got ${show(s)}: a % there starts an escape such as %40 (@); write % itself as %25`,
      );
    }
  },
);
/** host:port or an http(s) URL; gRPC takes only the host and port of a URL, so credentials there would not be sent. */
export const grpcEndpoint = andThen<string, string>(
  stringWhere((s) => isHostPort(s) || isHttpUrl(s), 'host:port or an http:// or https:// URL', anyUrl),
  (s, u, c) => {
    if (isHostPort(s)) return t.success(s);
    const { username, password } = new URL(s);
    return username || password
      ? t.failure(
          u,
          c,
          `expected an address without credentials, got ${show(s)}: gRPC does not send a URL's user name and password; give them in headers (authorization: Basic …, or the collector's token header)`,
        )
      : t.success(s);
  },
);

// ---- labels and schedules ------------------------------------------------------------------

/**
 * A label value: text; a YAML number or boolean (`status: 200`) is taken as its text, as the number reads
 * (`1.50` is `"1.5"`).
 */
export const labelValue = charsUpTo(
  new Codec<string>('label value', (u, c) => {
    if (typeof u === 'string') return t.success(u);
    if (typeof u === 'boolean' || (typeof u === 'number' && Number.isFinite(u))) return t.success(String(u));
    return invalidType(u, c, 'a string, a number or a boolean');
  }),
  limits.MAX_LABEL_VALUE_CHARS,
  'a label value',
  () => ({
    anyOf: [{ type: 'string', maxLength: limits.MAX_LABEL_VALUE_CHARS }, { type: 'number' }, { type: 'boolean' }],
  }),
);

/** The prefix of generated label values, each followed by up to `suffixChars` characters: a label value's bound. */
function valuePrefix(suffixChars: number): Codec<string> {
  return charsUpTo(string, limits.MAX_LABEL_VALUE_CHARS - suffixChars, 'a prefix');
}

export const labels = record(labelKey, labelValue)
  .describe('Label keys and values; a number or boolean value is taken as its text.')
  .define('labels');

function shorterThanEvery<W extends { every: number; for: number }>(w: W, u: unknown, c: t.Context): t.Validation<W> {
  const raw = u as Record<string, unknown>;
  if (w.for < w.every) return t.success(w);
  // Equal only once rounded (0.0005ms and 0.001ms): say why. Not for 1000ms and 1s, equal as written; in microseconds,
  // where 1.1s (1100.0000000000002 ms) and 1100ms are one value.
  const rounded = w.for === w.every && microseconds(writtenMs(raw.for)) !== microseconds(writtenMs(raw.every));
  return failAt(
    u,
    c,
    'for',
    `expected a duration shorter than every (${show(raw.every)}), got ${show(raw.for)}${rounded ? ` (both ${w.for}ms once counted in whole microseconds)` : ''}`,
  );
}

const windowEvery = duration.describe('How often the window recurs, from the entry start.');
export const gaps: Codec<Window> = andThen(
  strict('gaps', {
    every: windowEvery,
    for: duration.describe('How long each silence lasts, at the end of each cycle; shorter than every.'),
  }),
  shorterThanEvery,
);
/** One `gap_windows` entry: a silence that happened once, `[at, at + for)` from the entry start. */
export const gapWindow: Codec<OneShotWindow> = strict('gap window', {
  at: durationUpTo(limits.MAX_DURATION_MS, ` (${limits.MAX_DURATION_DAYS} days)`, true).describe(
    'When the silence begins, from the entry start; 0s: the entry starts inside it.',
  ),
  for: duration.describe('How long the silence lasts.'),
});
const multiplier = atMost(atLeast(positive, limits.MIN_BURST_MULTIPLIER), limits.MAX_BURST_MULTIPLIER).describe(
  'The rate during a burst is rate × multiplier.',
);
export const bursts = andThen(
  strict('bursts', {
    every: windowEvery,
    for: duration.describe('How long each burst lasts, at the start of each cycle; shorter than every.'),
    multiplier,
  }),
  shorterThanEvery,
);
export type { OneShotWindow, Window };
export type BurstWindow = t.TypeOf<typeof bursts>;
const cardinality = countUpTo(limits.MAX_CARDINALITY);

export const cardinalitySpike: Codec<CardinalitySpike> = andThen(
  andThen(
    strict(
      'cardinality spike',
      {
        label: labelKey.describe('The label key injected during the window.'),
        every: windowEvery,
        for: duration.describe('How long each spike lasts, at the start of each cycle; shorter than every.'),
        cardinality: cardinality.describe('How many distinct values the label takes.'),
      },
      {
        strategy: oneOf(['counter', 'random']).describe(
          'counter: prefix + 0, 1, … cardinality − 1; random: prefix + a hex value (SplitMix64). Default counter.',
        ),
        // Room for the longer suffix: 16 hex digits of the random strategy.
        prefix: valuePrefix(16).describe('Value prefix; default the label name and an underscore.'),
        seed: integer.describe('Seed of the random strategy; default 0.'),
      },
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
/** A cardinality spike as a scenario holds it: the labels operator's, every field given. */
export type CardinalitySpike = Required<OperatorSpike>;

const dynamicLabelFields = strict(
  'dynamic label',
  { key: labelKey.describe('The label key; a dynamic label wins over a static one of the same key.') },
  {
    // Room for the counter: values are prefix + 0 to cardinality − 1.
    prefix: valuePrefix(String(limits.MAX_CARDINALITY - 1).length).describe(
      'Counter form: the value prefix; default the key and an underscore.',
    ),
    cardinality: cardinality.describe('Counter form: tick n has value prefix + (n mod cardinality).'),
    values: list(labelValue, { nonEmpty: true, max: limits.MAX_LIST_VALUES }).describe(
      'List form: the values, cycled in order, one per tick.',
    ),
  },
);

export const dynamicLabel = andThen(dynamicLabelFields, (d, u, c): t.Validation<DynamicLabel> => {
  if (d.cardinality !== undefined && d.values !== undefined) {
    return t.failure(u, c, 'expected either cardinality (counter form) or values (list form), not both');
  }
  if (d.values !== undefined) {
    return d.prefix === undefined
      ? t.success({ key: d.key, form: 'list', values: d.values })
      : failAt(
          u,
          c,
          'prefix',
          'only allowed with cardinality (the counter form); the list form uses its values as written',
        );
  }
  if (d.cardinality === undefined) return t.failure(u, c, 'expected cardinality (counter form) or values (list form)');
  return t.success({ key: d.key, form: 'counter', prefix: d.prefix ?? `${d.key}_`, cardinality: d.cardinality });
}).withSchema((child) => ({
  ...child(dynamicLabelFields),
  // The counter form or the list form; a prefix only in the counter form.
  oneOf: [hasField('cardinality'), hasField('values')],
  dependentRequired: { prefix: ['cardinality'] },
}));

export const dynamicLabels = andThen(list(dynamicLabel, { max: limits.MAX_DYNAMIC_LABELS }), (all, u, c) => {
  const first = new Map<string, number>();
  for (const [i, label] of all.entries()) {
    const seen = first.get(label.key);
    if (seen !== undefined)
      return failAt(u, c, [i, 'key'], `duplicate key ${show(label.key)} (also dynamic_labels[${seen}])`);
    first.set(label.key, i);
  }
  return t.success(all);
}).describe(
  'Rotating labels, present on every event: a counter form (prefix + n mod cardinality) or a list form (values cycled).',
);

// ---- value, log and observation generators ------------------------------------------------

/** A period of a periodic generator, in seconds: from 1 ms to the longest duration. */
const periodSecs = atMost(atLeast(positive, limits.MIN_PERIOD_SECS), limits.MAX_PERIOD_SECS).describe(
  `Seconds, from 0.001 to ${limits.MAX_DURATION_DAYS} days.`,
);

/** `max` above `min`, reported on `max`. */
function minBelowMax<G extends { min: number; max: number }>(g: G, u: unknown, c: t.Context): t.Validation<G> {
  return g.min < g.max
    ? t.success(g)
    : failAt(u, c, 'max', `expected a number greater than min (${g.min}), got ${g.max}`);
}

/** A wrapping step: climbing by step_size from start to below max, in at most 2^53 − 1 steps a cycle. */
function wrappingStep(
  g: { start: number; step_size: number; max: number },
  u: unknown,
  c: t.Context,
): t.Validation<GeneratorConfig> {
  if (!(g.step_size > 0))
    return failAt(
      u,
      c,
      'step_size',
      `expected a number greater than 0 with max (the values climb toward max, then wrap), got ${g.step_size}`,
    );
  if (!(g.max > g.start)) return failAt(u, c, 'max', `expected a number greater than start (${g.start}), got ${g.max}`);
  // Written so that neither quotient overflows: max − start may exceed the double range.
  const least = g.max / Number.MAX_SAFE_INTEGER - g.start / Number.MAX_SAFE_INTEGER;
  if (g.step_size < least)
    return failAt(
      u,
      c,
      'step_size',
      `expected at least ${least} with max (at most 2^53 − 1 steps from start to max), got ${g.step_size}`,
    );
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
  failAt(
    u,
    c,
    'type',
    `${show((u as Record<string, unknown>).type)} is an operational alias, only allowed in the generator of an entry, of defaults, of a pack metric or of a pack's overrides; write the generator it stands for (docs/scenario-fields.md#operational-aliases)`,
  ),
);

/** How a CSV is replayed (lib/generators/replay.ts): starting over at its end, and its time scaled. */
const replayTiming = {
  repeat: boolean.describe('Start the CSV over after its last row (default true); false holds the last row.'),
  timescale: atMost(atLeast(positive, limits.MIN_TIMESCALE), limits.MAX_TIMESCALE).describe(
    'CSV seconds per second of the run (default 1): 15 plays 15 s rows one a second.',
  ),
};
const csvFile = filePath.describe(
  'The CSV file: a relative path is looked for beside the scenario file, then in the working directory.',
);

/** A replayed column by position; the time column (0) is not a series. */
const csvColumn = strict(
  'csv column',
  {
    index: atMost(positiveInteger, limits.MAX_CSV_COLUMNS).describe(
      "The column's position in the file: 1 is the first series (0 is the time).",
    ),
  },
  {
    name: metricName.describe("The metric name of the column; default the header's, else the entry's name."),
    labels: labels.describe("Merged over the header's and the entry's labels."),
  },
);
/** A replayed column: its header text or metric name, or `{index, name?, labels?}`. */
const csvColumnChoice = new Codec<string | t.TypeOf<typeof csvColumn>>(
  'csv column',
  (u, c) => (isMapping(u) ? csvColumn.validate(u, c) : nonEmptyString.validate(u, c)),
  undefined,
  (child) => ({ anyOf: [child(nonEmptyString), child(csvColumn)] }),
);

/** The generator types, each a variant of `generator` by its `type`. */
export const GENERATOR_VARIANTS = {
  constant: strict('constant generator', {
    type: oneOf(['constant']),
    value: number.describe('The value of every event.'),
  }),
  sine: andThen(
    strict(
      'sine generator',
      {
        type: oneOf(['sine']),
        amplitude: number.describe('Half the distance from trough to peak.'),
        period_secs: periodSecs,
      },
      { offset: number.describe('The centre line; default 0.') },
    ),
    (g) =>
      t.success({ type: 'sine' as const, amplitude: g.amplitude, period_secs: g.period_secs, offset: g.offset ?? 0 }),
  ).describe('offset + amplitude · sin(2π · t / period_secs), t in seconds from the entry start.'),
  step: andThen(
    strict(
      'step generator',
      { type: oneOf(['step']), step_size: number.describe('Added at every tick.') },
      {
        start: number.describe('The first value; default 0.'),
        max: number.describe(
          'With it, the values climb from start to the last one below max (never max itself), then wrap back to start.',
        ),
      },
    ),
    (g, u, c) => {
      const start = g.start ?? 0;
      return g.max === undefined
        ? t.success({ type: 'step' as const, start, step_size: g.step_size })
        : wrappingStep({ start, step_size: g.step_size, max: g.max }, u, c);
    },
  ).describe('start + n · step_size at tick n: a counter.'),
  sequence: andThen(
    strict(
      'sequence generator',
      {
        type: oneOf(['sequence']),
        values: list(number, { nonEmpty: true, max: limits.MAX_SEQUENCE_VALUES }).describe(
          'One value per tick, in order.',
        ),
      },
      { repeat: boolean.describe('Start over after the last value (default true); false holds the last value.') },
    ),
    (g): t.Validation<GeneratorConfig> => t.success({ type: 'sequence', values: g.values, repeat: g.repeat ?? true }),
  ),
  uniform: andThen(
    andThen(
      strict(
        'uniform generator',
        { type: oneOf(['uniform']), min: number.describe('The lowest value.'), max: number.describe('Above min.') },
        { seed: integer.describe('Seed of the draws; default 0.') },
      ),
      minBelowMax,
    ),
    (g) => t.success({ type: 'uniform' as const, min: g.min, max: g.max, seed: g.seed ?? 0 }),
  ).describe('A seeded uniform draw in [min, max) at every tick.'),
  sawtooth: andThen(
    strict('sawtooth generator', {
      type: oneOf(['sawtooth']),
      min: number.describe('The value at the start of each period.'),
      max: number.describe('Approached at the end of each period; above min.'),
      period_secs: periodSecs,
    }),
    minBelowMax,
  ).describe('A ramp from min to max over each period, then back to min.'),
  spike: andThen(
    strict('spike generator', {
      type: oneOf(['spike']),
      baseline: number.describe('The value outside spikes.'),
      magnitude: number.describe('Added to baseline during a spike.'),
      duration_secs: periodSecs.describe('How long each spike lasts, in seconds; less than interval_secs.'),
      interval_secs: periodSecs.describe("Seconds from one spike's start to the next."),
    }),
    (g, u, c) =>
      g.duration_secs < g.interval_secs
        ? t.success(g)
        : failAt(
            u,
            c,
            'duration_secs',
            `expected a number less than interval_secs (${g.interval_secs}), got ${g.duration_secs}`,
          ),
  ).describe('baseline, and baseline + magnitude for duration_secs at the start of every interval_secs.'),
  csv_replay: andThen(
    strict(
      'csv_replay generator',
      { type: oneOf(['csv_replay']), file: csvFile },
      {
        ...replayTiming,
        columns: list(csvColumnChoice, { nonEmpty: true, max: limits.MAX_CSV_COLUMNS }).describe(
          'The columns to replay, by header text or metric name, or {index, name, labels}; default every column (one entry each).',
        ),
        default_metric_name: metricName.describe(
          "The metric name of the columns whose header has labels and no name, the reference tool's: as it is for one such column, with _<column index> for several; default the entry's name.",
        ),
      },
    ),
    (g) =>
      t.success({
        type: 'csv_replay' as const,
        file: g.file,
        ...(g.columns && { columns: g.columns }),
        ...(g.default_metric_name !== undefined && { default_metric_name: g.default_metric_name }),
        repeat: g.repeat ?? true,
        timescale: g.timescale ?? 1,
      }),
  ).describe("Recorded data: the numeric columns of a CSV (a Grafana export), on the CSV's own time."),
};

/**
 * The generator types of a pack file's metric and of `overrides`: any but csv_replay, whose file only an
 * entry's generator has read.
 */
const { csv_replay: _readByEntriesOnly, ...packVariants } = GENERATOR_VARIANTS;
export const PACK_GENERATOR_VARIANTS = packVariants;

/** An entry's generator; its schema (with the aliases an entry may name too) is lib/language/aliases.ts's. */
export const generator: Codec<GeneratorConfig> = tagged('generator', {
  ...GENERATOR_VARIANTS,
  ...(Object.fromEntries(GENERATOR_ALIASES.map((alias) => [alias, aliasElsewhere])) as Record<
    GeneratorAlias,
    typeof aliasElsewhere
  >),
});

/**
 * The generator of a pack metric or an override, aliases aside (lib/language/aliases.ts, which writes the
 * schema): any but `csv_replay`, whose file only an entry's generator has read.
 */
export const packGenerator = new Codec<GeneratorConfig>('generator', (u, c) =>
  isMapping(u) && u.type === 'csv_replay'
    ? failAt(u, c, 'type', 'csv_replay is only allowed in the generator of an entry, not in a pack or its overrides')
    : generator.validate(u, c),
);

const placeholderText = matching(LABEL_KEY_PATTERN, 'a placeholder name');
/** A placeholder name: a field name too, so not `__proto__`, which a record's fields would not keep as a field. */
const placeholderName = andThen<string, string>(placeholderText, (name, u, c) =>
  name === '__proto__'
    ? t.failure(
        u,
        c,
        `expected a placeholder name other than __proto__ (a template's records cannot carry a field so named), got "__proto__"`,
      )
    : t.success(name),
).withSchema(refined(placeholderText, { not: { const: '__proto__' } }));

/** A `{name}` placeholder of a log template; one whose name has no pool stays literal text. */
export const PLACEHOLDER = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/**
 * The longest value of a pool by `measure` (UTF-16 characters, UTF-8 bytes, bytes once escaped), the first of those
 * as long ('' for none), each pool measured once: the templates of a generator share its pools, of up to 100 000
 * values each.
 */
export function longestValues(measure: (text: string) => number): (pool: readonly string[]) => string {
  const found = new WeakMap<readonly string[], string>();
  return (pool) => {
    let longest = found.get(pool);
    if (longest === undefined) {
      let most = -1;
      longest = '';
      for (const value of pool) {
        const length = measure(value);
        if (length > most) [most, longest] = [length, value];
      }
      found.set(pool, longest);
    }
    return longest;
  };
}

/**
 * The longest record a template makes, by `measure` (default: UTF-16 characters) and `longest` (a pool's longest value
 * by the same measure): its message with each placeholder that has a pool given its longest value, and those values
 * once more each, as the record's fields.
 */
export function longestRecord(
  message: string,
  pools: Readonly<Record<string, readonly string[]>>,
  measure: (text: string) => number = (text) => text.length,
  longest = longestValues(measure),
): { readonly message: number; readonly fields: number } {
  const values = new Map<string, number>();
  let length = 0;
  let last = 0;
  for (const match of message.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    if (!Object.hasOwn(pools, name)) continue;
    const value = measure(longest(pools[name]!));
    values.set(name, value);
    length += measure(message.slice(last, match.index)) + value;
    last = match.index + match[0].length;
  }
  length += measure(message.slice(last));
  return { message: length, fields: [...values.values()].reduce((sum, n) => sum + n, 0) };
}

const fieldPools = record(placeholderName, list(string, { nonEmpty: true, max: limits.MAX_LIST_VALUES })).describe(
  'Per placeholder, the values a {placeholder} of a message is drawn from; each drawn value is also a field of the record.',
);
const severity = oneOf(SEVERITIES);
const logTemplate = strict(
  'log template',
  { message: string.describe('The message; {name} placeholders are filled from field_pools.') },
  {
    field_pools: fieldPools.describe("Pools of this template only; they win over the generator's."),
    severity: severity.describe('Every record of this template has it; without it, severity_weights decide.'),
  },
);

const severityWeight = atMost(nonNegative, limits.MAX_SEVERITY_WEIGHT).describe('Relative weight of this severity.');
const severityWeightFields = strict(
  'severity weights',
  {},
  Object.fromEntries(SEVERITIES.map((s) => [s, severityWeight])) as Record<Severity, typeof severityWeight>,
);
const severityWeights = andThen(severityWeightFields, (weights, u, c) =>
  Object.values(weights).some((w) => w > 0)
    ? t.success(weights)
    : t.failure(u, c, 'expected at least one weight greater than 0'),
)
  .withSchema((child) => ({
    ...child(severityWeightFields),
    // Weights are at least 0: not all of them 0 (nor none given) is one above 0.
    not: { type: 'object', properties: Object.fromEntries(SEVERITIES.map((s) => [s, { const: 0 }])) },
  }))
  .describe('How often each severity is drawn (at least one above 0); default info only.');

export const logGenerator: Codec<LogGeneratorConfig> = tagged('log_generator', {
  template: andThen(
    strict(
      'template log generator',
      {
        type: oneOf(['template']),
        templates: list(logTemplate, { nonEmpty: true, max: limits.MAX_TEMPLATES }).describe(
          'The messages, one drawn per record.',
        ),
      },
      {
        field_pools: fieldPools,
        severity_weights: severityWeights,
        seed: integer.describe('Seed of every draw; default 0.'),
      },
    ),
    // A placeholder without a pool stays literal in the message (issue 3): no check here.
    (g, u, c): t.Validation<LogGeneratorConfig> => {
      const shared = g.field_pools ?? {};
      const chars = (text: string) => text.length;
      const longest = longestValues(chars);
      for (const [i, template] of g.templates.entries()) {
        const { message: length } = longestRecord(
          template.message,
          { ...shared, ...template.field_pools },
          chars,
          longest,
        );
        if (length > limits.MAX_MESSAGE_CHARS)
          return failAt(
            u,
            c,
            ['templates', i, 'message'],
            `makes messages of up to ${length} characters (each placeholder given its longest value), more than ${limits.MAX_MESSAGE_CHARS}: use fewer placeholders or shorter values`,
          );
      }
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
    strict(
      'csv_replay log generator',
      { type: oneOf(['csv_replay']), file: csvFile },
      {
        ...replayTiming,
        default_severity: severity.describe(
          'The severity of a row without one (no severity column, or an empty cell); default info.',
        ),
      },
    ),
    (g): t.Validation<LogGeneratorConfig> =>
      t.success({
        type: 'csv_replay',
        file: g.file,
        repeat: g.repeat ?? true,
        timescale: g.timescale ?? 1,
        default_severity: g.default_severity ?? 'info',
      }),
  ),
  // The reference tool's: no timing or severity fields, the lines are the records.
  replay: strict('replay log generator', {
    type: oneOf(['replay']),
    file: filePath.describe(
      'The log file, one record a line: a relative path is looked for beside the scenario file, then in the working directory.',
    ),
  }).describe('The lines of a text file, one record a tick in order, starting over after the last; severity info.'),
})
  .describe('What produces the log records: template, csv_replay, or replay.')
  .define('log_generator');

/** Moves every observation by this × the tick time in seconds: latency that degrades. */
const drift = {
  mean_shift_per_sec: number.describe(
    'Moves every observation by this × the tick time in seconds: latency that degrades.',
  ),
};

export const distribution = tagged('distribution', {
  exponential: strict(
    'exponential distribution',
    { type: oneOf(['exponential']), rate: positive.describe('λ: the mean is 1 / rate.') },
    drift,
  ),
  normal: strict(
    'normal distribution',
    {
      type: oneOf(['normal']),
      mean: number.describe('The mean.'),
      stddev: nonNegative.describe('The standard deviation.'),
    },
    drift,
  ),
  uniform: andThen(
    strict(
      'uniform distribution',
      { type: oneOf(['uniform']), min: number.describe('The lowest observation.'), max: number.describe('Above min.') },
      drift,
    ),
    minBelowMax,
  ),
})
  .describe('The distribution of the observations: type and its parameters.')
  .define('distribution');
export type DistributionConfig = t.TypeOf<typeof distribution>;

function increasing(what: string) {
  return (values: number[], u: unknown, c: t.Context): t.Validation<number[]> => {
    const i = values.findIndex((v, j) => j > 0 && v <= values[j - 1]!);
    return i < 0
      ? t.success(values)
      : failAt(u, c, [i], `expected a number greater than the previous ${what} (${values[i - 1]}), got ${values[i]}`);
  };
}

/** Increasing upper bounds of histogram buckets, each an `element` (+Inf is added by the histogram). */
const bucketList = (element: typeof number) =>
  andThen(list(element, { nonEmpty: true, max: limits.MAX_BUCKETS }), increasing('bucket'));
export const buckets = bucketList(number).describe(
  'Upper bounds of the buckets, increasing; +Inf is added. Default: the Prometheus client buckets.',
);
/** A span duration histogram's bounds, in seconds: as {@link buckets}, never below 0 (a duration is not). */
export const durationBuckets = bucketList(nonNegative);
export const quantiles = andThen(
  list(
    numberWhere((q) => q > 0 && q < 1, 'a number between 0 and 1 (both excluded)', {
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
    }),
    { nonEmpty: true, max: limits.MAX_QUANTILES },
  ),
  increasing('quantile'),
).describe('The quantiles written, increasing, each between 0 and 1. Default 0.5, 0.9, 0.95, 0.99.');

export const native = strict(
  'native histogram',
  {},
  {
    schema: atMost(atLeast(integer, limits.MIN_NATIVE_SCHEMA), limits.MAX_NATIVE_SCHEMA).describe(
      'Resolution: bucket bounds grow by 2^(2^-schema), from -4 (×65536) to 8 (×1.0027). Default 3 (×1.09).',
    ),
    zero_threshold: nonNegative.describe(
      "Observations at most this far from 0 count in the zero bucket. Default 2^-128 (client_golang's).",
    ),
    max_buckets: countUpTo(limits.MAX_NATIVE_BUCKETS).describe(
      'Populated buckets beyond which the resolution is halved (schema lowered by one). Default 160.',
    ),
  },
)
  .describe(
    'A Prometheus native histogram of the same observations; with buckets the classic ones are written too, without only the native one.',
  )
  .define('native');
export type NativeConfig = t.TypeOf<typeof native>;

// ---- fields shared by encoder and sink kinds (each kind's codec: lib/sinks/kinds, lib/encoders/kinds) ----

/** Digits after the decimal point. */
export const precision = numberWhere((n) => Number.isSafeInteger(n) && n >= 0 && n <= 100, 'an integer from 0 to 100', {
  type: 'integer',
  minimum: 0,
  maximum: 100,
}).describe('Digits after the decimal point of every value.');

export const retry = andThen(
  strict(
    'retry',
    {
      max_attempts: countUpTo(limits.MAX_RETRY_ATTEMPTS).describe(
        'Attempts of one delivery, the first included; at least 1.',
      ),
    },
    {
      initial_backoff: backoff.describe('The wait before the first retry; it doubles each time.'),
      max_backoff: backoff.describe('The longest wait between attempts.'),
    },
  ),
  (r, u, c) =>
    r.initial_backoff !== undefined && r.max_backoff !== undefined && r.max_backoff < r.initial_backoff
      ? failAt(
          u,
          c,
          'max_backoff',
          `expected a duration no shorter than initial_backoff (${show((u as Record<string, unknown>).initial_backoff)}), got ${show((u as Record<string, unknown>).max_backoff)}`,
        )
      : t.success(r),
)
  .describe('Retries of a failed delivery, with exponential backoff and full jitter.')
  .define('retry');
export type RetryConfig = t.TypeOf<typeof retry>;

export const headers = record(
  matching("[!#$%&'*+.^_`|~0-9A-Za-z-]+", 'a header name'),
  stringWhere((s) => !/[\r\n\0]/.test(s), 'a header value without line breaks', { pattern: '^[^\\r\\n\\u0000]*$' }),
)
  .describe(
    'HTTP headers sent with every request (a tenant, Authorization); secret values are masked wherever svc shows them.',
  )
  .define('headers');

export const batchSize = countUpTo(limits.MAX_BATCH_SIZE).describe('How much a request carries before it is sent.');

// ---- entry and file -------------------------------------------------------------------------

const watched = {
  ref: nonEmptyString.describe(
    'The id of the metrics entry whose generator is watched; a pack metric is <pack entry id>.<metric>.',
  ),
  op: oneOf(['<', '>']).describe('How the value compares with value.'),
  value: number.describe('The threshold.'),
};
export const after = strict('after', watched, { delay: duration.describe('A wait after the crossing.') })
  .describe("Start when another entry's value crosses a threshold; not with phase_offset.")
  .define('after');
export type After = t.TypeOf<typeof after>;

/**
 * `while`: the entry emits only while `ref`'s current value satisfies `op value`; `delay` debounces the
 * edges; `snap_to` is the value of one last sample on close.
 */
export const whileGate = strict('while', watched, {
  delay: strict(
    'while.delay',
    {},
    {
      open: duration.describe('How long the condition must hold before the entry emits.'),
      close: duration.describe('How long it must fail before the entry stops emitting.'),
    },
  ).describe('Debounces the edges.'),
  snap_to: number.describe('Metrics entries: the value of one last sample when the gate closes.'),
})
  .describe("Emit only while another entry's current value satisfies op value.")
  .define('while');
export type While = t.TypeOf<typeof whileGate>;

const closeDetails = strict(
  'delay.close',
  { duration: duration.describe('How long the condition must fail before the entry stops emitting.') },
  {
    snap_to: number.describe(
      "Metrics entries: the value of one last sample when the gate closes (while.snap_to's place).",
    ),
    stale_marker: boolean.describe(
      'false: no staleness marker on close, which svc never writes; true (without snap_to) is refused: use snap_to.',
    ),
  },
);
const closeDelay = new Codec<t.TypeOf<typeof closeDetails>>(
  'delay.close',
  (u, c) => {
    if (typeof u === 'string') {
      const ms = duration.validate(u, c);
      return isLeft(ms) ? ms : t.success({ duration: ms.right });
    }
    if (isMapping(u)) return closeDetails.validate(u, c);
    return invalidType(u, c, 'a duration string or a mapping {duration, snap_to?, stale_marker?}');
  },
  undefined,
  (child) => ({ anyOf: [child(duration), child(closeDetails)] }),
);

/**
 * The reference tool's place for the debounce of `while`: `delay` beside it, not in it; `close` also in its
 * extended form `{duration, snap_to?, stale_marker?}`. lib/config/entry.ts folds it into `while`.
 */
export const referenceDelay = strict(
  'delay',
  {},
  {
    open: duration.describe('How long the condition must hold before the entry emits (while.delay.open).'),
    close: closeDelay.describe(
      'How long it must fail before the entry stops emitting (while.delay.close), or {duration, snap_to?, stale_marker?}.',
    ),
  },
).describe("Only with while: the reference tool's place for while.delay (and, in close, while.snap_to).");
export type ReferenceDelay = t.TypeOf<typeof referenceDelay>;

const spanRef = nonEmptyString.describe('The id of the traces entry of this file whose spans are named.');
const spanService = nonEmptyString.describe('Only spans of this service (of a trace_generator service).');

/**
 * `exemplars`: which events carry one (every Nth tick, or each with a probability) and whose spans
 * they name (`from`: a traces entry; absent: random ids).
 */
const exemplarsFields = strict(
  'exemplars',
  {},
  {
    from: spanRef,
    service: spanService.describe(
      "Exemplars name this service's server and consumer spans; default the traces' root spans. Only with from.",
    ),
    every: countUpTo(limits.MAX_EXEMPLAR_EVERY).describe(
      'An exemplar on every tick whose slot number is a multiple of this; default 1. Not with probability.',
    ),
    probability: unitInterval.describe('The chance that a tick carries an exemplar, from 0 to 1. Not with every.'),
    seed: integer.describe('Seed of probability and of random ids; default 0.'),
  },
);
export const exemplars = andThen(exemplarsFields, (config, u, c) =>
  config.every !== undefined && config.probability !== undefined
    ? failAt(u, c, 'probability', 'give every or probability, not both')
    : config.service !== undefined && config.from === undefined
      ? failAt(u, c, 'service', 'names the service of spans: only with from')
      : t.success(config),
)
  .withSchema((child) => ({
    ...child(exemplarsFields),
    // At probability, where validation's message is.
    dependentSchemas: { every: { type: 'object', properties: { probability: false } } },
    dependentRequired: { service: ['from'] },
  }))
  .describe(
    'Exemplars on a histogram, summary or counter: trace and span ids of the spans of a traces entry (from), or random ones.',
  )
  .define('exemplars');
export type ExemplarsConfig = t.TypeOf<typeof exemplars>;

/** `trace_context`: which log records carry the ids of a span of the traces entry `from`. */
const traceContextFields = strict(
  'trace_context',
  { from: spanRef },
  {
    on: oneOf(['error', 'all', 'probability']).describe(
      'Which records name a span: error (default: records of severity error or fatal, each naming a span that raised an error), all, or probability.',
    ),
    probability: unitInterval.describe('With on: probability, the chance that a record names a span, from 0 to 1.'),
    service: spanService.describe('Records name spans of this service; default server and consumer spans of any.'),
    seed: integer.describe("Seed of probability's draws; default 0."),
  },
);
export const traceContext = andThen(traceContextFields, (config, u, c) =>
  (config.on === 'probability') !== (config.probability !== undefined)
    ? failAt(
        u,
        c,
        'probability',
        config.on === 'probability' ? 'required with on: probability' : 'only with on: probability',
      )
    : t.success(config),
)
  .withSchema((child) => ({
    ...child(traceContextFields),
    ...conditional({ ...hasField('on'), properties: { on: { const: 'probability' } } }, hasField('probability'), {
      type: 'object',
      properties: { probability: false },
    }),
  }))
  .describe('Log records carry the trace and span ids of spans of a traces entry (from).')
  .define('trace_context');
export type TraceContextConfig = t.TypeOf<typeof traceContext>;

export const mapping = new Codec<Record<string, unknown>>(
  'mapping',
  (u, c) => (isMapping(u) ? t.success(u) : invalidType(u, c, 'a mapping')),
  undefined,
  () => ({
    type: 'object',
  }),
);

/** Catalog metadata of scenario and pack files: shown and filtered by `svc catalog list`. */
export function catalogMetadata() {
  return {
    description: string.describe('Catalog metadata: one line, shown by svc catalog list.'),
    category: nonEmptyString.describe('Catalog metadata: a free-form category (network, application).'),
    tags: list(matching(CATALOG_NAME_PATTERN, 'a tag'), { max: limits.MAX_TAGS }).describe(
      'Catalog metadata: svc catalog list --tag <tag> selects by them.',
    ),
  };
}

/**
 * The ALERTS labels an expectation sets itself (`alertname` from `alert`; `alertstate` firing), with why: given
 * among its labels too, the selector could never match.
 */
const ALERT_OWN_LABELS: Record<string, string> = {
  alertname: "the name is the expectation's alert",
  alertstate: 'the expectation matches the alert firing',
};
const alertLabelKey = andThen<string, string>(labelKey, (key, u, c) =>
  Object.hasOwn(ALERT_OWN_LABELS, key)
    ? t.failure(
        u,
        c,
        `expected a label of the alert other than alertname and alertstate (${ALERT_OWN_LABELS[key]}), got ${show(key)}`,
      )
    : t.success(key),
).withSchema(refined(labelKey, { allOf: [{ not: { enum: Object.keys(ALERT_OWN_LABELS) } }] }));

/**
 * One alert expectation of `svc test` (the reference tool's shape): the alert, a subset of its labels, how
 * soon it fires and then resolves.
 */
export const alertExpectation = strict(
  'alert expectation',
  {
    alert: nonEmptyString.describe('The alert name.'),
    firing_within: duration.describe('How soon after the start the alert must fire.'),
  },
  {
    labels: record(alertLabelKey, labelValue).describe(
      "A subset of the alert's labels to match (not alertname or alertstate: the expectation's alert, firing).",
    ),
    resolves_within: duration.describe('How soon after firing it must resolve.'),
  },
);
export type AlertExpectation = t.TypeOf<typeof alertExpectation>;

/** The file's `expect`: what `svc test` checks; `svc run` ignores it. */
export const expectations = strict('expect', {
  alerts: list(alertExpectation, { nonEmpty: true, max: limits.MAX_ALERT_EXPECTATIONS }).describe(
    'The alerts that must fire (and resolve).',
  ),
}).describe('What svc test checks; svc run ignores it.');
export type Expectations = t.TypeOf<typeof expectations>;

export const fileFields = {
  version: new Codec<2>(
    'version',
    (u, c) =>
      typeof u !== 'number'
        ? invalidType(u, c, 'the number 2')
        : u === 2
          ? t.success(2)
          : t.failure(u, c, `expected 2, got ${show(u)}`),
    'expected 2',
    () => ({ const: 2, description: 'The file format version: 2.' }),
  ),
  kind: oneOf(['runnable', 'composable']).describe(
    'runnable: a file to run; composable: a file other files build on (packs).',
  ),
  // Catalog metadata: `svc run @name` finds a file by its name (else by its file name).
  name: catalogName.describe('Catalog metadata: svc run @name finds the file by it; default the file name.'),
  ...catalogMetadata(),
  // The reference tool's word for `name`.
  scenario_name: catalogName.describe("The reference tool's word for name."),
  defaults: mapping,
  expect: expectations,
  // Entries are kept raw: each one is validated on its own, after defaults and overrides.
  scenarios: new Codec<unknown[]>('scenarios', (u, c) => {
    if (!Array.isArray(u)) return invalidType(u, c, 'a list of entries');
    if (u.length > limits.MAX_ENTRIES)
      return t.failure(u, c, `expected at most ${limits.MAX_ENTRIES} entries, got ${u.length}`);
    return u.length ? t.success(u) : t.failure(u, c, 'expected at least one entry, got an empty list');
  }),
};
