/**
 * The fields of an entry: the scenario language's field codecs (lib/language/fields.ts) with the
 * sink and encoder unions of the kind registries, which build on the same field codecs.
 */
import * as t from 'io-ts';
import {
  Codec,
  andThen,
  atLeast,
  boolean,
  atMost,
  integer,
  list,
  matching,
  filePath,
  nonNegative,
  oneOf,
  positive,
  record,
  strict,
  string,
  stringWhere,
  type Decoded,
} from '../language/combinators.js';
import { entryGenerator, packMetricGenerator } from '../language/aliases.js';
import { traceGenerator } from '../language/traces.js';
import type { GeneratorConfig } from '../language/types.js';
import * as limits from '../language/limits.js';
import { encoderCodec } from '../encoders/kinds/index.js';
import { sinkCodec } from '../sinks/kinds/index.js';
import {
  after,
  buckets,
  durationBuckets,
  cardinalitySpike,
  distribution,
  duration,
  dynamicLabels,
  gaps,
  gapWindow,
  referenceDelay,
  bursts,
  countUpTo,
  labels,
  logGenerator,
  metricName,
  metricType,
  METRIC_ID_PATTERN,
  NAME_PATTERN,
  native,
  quantiles,
  SIGNAL_TYPES,
  startTime,
  whileGate,
  exemplars,
  traceContext,
} from '../language/fields.js';
import { SPAN_METRICS_UNITS } from '../../operators/span-metrics.js';

/** Per-metric changes to the expansion of a `pack` entry: `overrides.<metric name>` or `overrides.<name>.<id>`. */
export interface MetricOverride {
  readonly generator?: GeneratorConfig;
  /** Merged over the metric's labels (pack and entry labels included); the override wins. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The noise of an operational alias in `generator`: the metric's jitter, in place of the entry's. */
  readonly jitter?: number;
  readonly jitter_seed?: number;
}

/**
 * `overrides` of a pack entry: per metric name (every metric of that name), or `<name>.<id>` (one of them), a generator (an operational alias allowed, its
 * noise becoming the metric's jitter) and labels replacing or joining the pack's.
 */
const overrides = record(
  matching(`${NAME_PATTERN}(?:\\.${METRIC_ID_PATTERN})?`, 'a metric name, or <metric name>.<metric id>'),
  andThen(
    strict(
      'metric override',
      {},
      { generator: packMetricGenerator, labels: labels.describe("Merged over the metric's labels; they win.") },
    ),
    (o) => {
      const noise = o.generator?.noise;
      const override: MetricOverride = {
        ...(o.generator && { generator: o.generator.generator }),
        ...(o.labels && { labels: o.labels }),
        ...(noise && { jitter: noise.amount, ...(noise.seed !== undefined && { jitter_seed: noise.seed }) }),
      };
      return t.success(override);
    },
  ),
).describe("Only with pack: per metric name of the pack, a generator and labels replacing or joining the pack's.");

/**
 * `span_metrics.namespace`: empty, or the start of an OpenTelemetry instrument name (a letter, then letters,
 * digits, `_`, `.`, `-`, `/`), short enough that `<namespace>.duration` stays within the 255 characters of one.
 * Prometheus names made from it (other characters as `_`) then start with a letter too.
 */
const NAMESPACE_PATTERN = '^(?:[A-Za-z][A-Za-z0-9_./-]{0,245})?$';
const NAMESPACE = new RegExp(NAMESPACE_PATTERN);
const spanMetricsNamespace = stringWhere(
  (s) => NAMESPACE.test(s),
  'an OpenTelemetry instrument name prefix (a letter, then letters, digits, _ . - or /; at most 246 characters) or ""',
  { pattern: NAMESPACE_PATTERN },
);

/** `span_metrics: {…}` of a traces entry: the connector's settings, svc's delivery. */
const spanMetricsSettings = strict(
  'span_metrics',
  {},
  {
    sink: sinkCodec.describe("Where the span metrics go; default the entry's sink, when it carries metrics (OTLP)."),
    encoder: encoderCodec.describe("How they are encoded; default the sink's default for metrics."),
    interval: duration.describe('How often they are written (metrics_flush_interval); default 15s.'),
    buckets: durationBuckets.describe(
      "Upper bounds of the duration histogram in seconds, at least 0 (a duration is never negative); default the connector's, 2 ms to 15 s.",
    ),
    unit: oneOf(SPAN_METRICS_UNITS).describe(
      'The unit of the duration histogram: ms (default, as the connector) or s.',
    ),
    namespace: spanMetricsNamespace.describe(
      "Prefix of the metric names; default traces.span.metrics (the connector's); empty: none.",
    ),
    exemplars: boolean.describe('Duration buckets carry the ids of a span they counted; default false.'),
  },
);

/** `span_metrics`: true (every default) or the settings; false or absent: none. */
const spanMetrics = new Codec<SpanMetricsConfig | undefined>(
  'span_metrics',
  (u, c) => (typeof u === 'boolean' ? t.success(u ? {} : undefined) : spanMetricsSettings.validate(u, c)),
  undefined,
  (child) => ({ anyOf: [{ type: 'boolean' }, child(spanMetricsSettings)] }),
).describe(
  'Request, error and duration metrics of the spans, as the OpenTelemetry span metrics connector makes them: true, or settings.',
);
export type SpanMetricsConfig = t.TypeOf<typeof spanMetricsSettings>;

/** Not empty, no control characters (Unicode's Cc): the schema's pattern and the check are this one text. */
const ENTRY_ID_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]+$';
const ENTRY_ID = new RegExp(ENTRY_ID_PATTERN, 'u');

/** Whether `s` can be an entry's id: not empty, no control characters (see `id`). */
export function isEntryId(s: string): boolean {
  return ENTRY_ID.test(s);
}

/**
 * An explicit `id`, and a `clock_group`: without control characters, since ids are printed on lines of their own
 * (progress, STOPPED, `error:`), are path segments of svc-server's URLs and name `--state` files, and groups are
 * printed by `--dry-run`; a line break would split a line.
 */
const lineSafeName = stringWhere(
  isEntryId,
  'a non-empty string without control characters (such as a line break or tab)',
  { pattern: ENTRY_ID_PATTERN },
);

/** Every field an entry may carry; which ones are required depends on the others (entry.ts). */
export const entryFields = {
  id: lineSafeName.describe(
    "The entry's identifier: after, while and clock_group name it. Default: name (or pack), made unique.",
  ),
  signal_type: oneOf(SIGNAL_TYPES).describe('What the entry emits: metrics, logs, histogram, summary or traces.'),
  name: metricName.describe("The metric name (a logs or traces entry's name in messages); not with pack."),
  rate: atMost(
    atLeast(positive, limits.MIN_RATE, ' events per second'),
    limits.MAX_RATE,
    ' events per second',
  ).describe('Events per second; fractions allowed (0.1: one every 10 s).'),
  duration: duration.describe('How long the entry runs; absent: until stopped.'),
  start_time: startTime.describe(
    'The timestamp anchor of every event: now, a signed offset (-1h, +30m) or an RFC 3339 instant. Only timestamps move.',
  ),
  generator: entryGenerator,
  log_generator: logGenerator,
  trace_generator: traceGenerator,
  distribution,
  buckets,
  native,
  quantiles,
  observations_per_tick: countUpTo(limits.MAX_OBSERVATIONS_PER_TICK).describe(
    'Observations drawn at each tick; default 100.',
  ),
  seed: integer.describe('Seed of the observations; default 0.'),
  encoder: encoderCodec,
  sink: sinkCodec,
  labels: labels.describe('Static labels on every event.'),
  dynamic_labels: dynamicLabels,
  jitter: nonNegative.describe('Uniform noise in [−jitter, +jitter] added to every value.'),
  jitter_seed: integer.describe('Seed of the jitter; default 0.'),
  on_sink_error: oneOf(['warn', 'fail']).describe(
    'warn (default): log the error, drop the batch, keep running; fail: stop the run.',
  ),
  metric_type: metricType.describe(
    'The # TYPE of scrapes: default counter for a step generator, gauge otherwise, histogram or summary.',
  ),
  help: string.describe('The text of the # HELP line of scrapes.'),
  gaps: gaps.describe('Silence windows: no events for `for` at the end of every `every`.'),
  gap_windows: list(gapWindow, { max: limits.MAX_GAP_WINDOWS }).describe(
    'One-shot silences: no events from `at` (after the entry start) for `for`, each once; beside gaps.',
  ),
  bursts: bursts.describe('High-rate windows: rate × multiplier for `for` at the start of every `every`.'),
  cardinality_spikes: list(cardinalitySpike, { max: limits.MAX_CARDINALITY_SPIKES }).describe(
    'Label explosions: a label with many values during windows.',
  ),
  phase_offset: duration.describe('A delay before the entry starts; not with after.'),
  clock_group: lineSafeName.describe('Entries of one group share a start-time reference.'),
  after,
  while: whileGate,
  delay: referenceDelay,
  exemplars,
  trace_context: traceContext,
  span_metrics: spanMetrics,
  pack: filePath.describe(
    'A metric pack: its name (built-in or from the catalog), or the path of a pack file (holding a / or starting with .; relative: from the scenario file). The entry becomes one entry per metric of the pack.',
  ),
  overrides,
};

export type EntryField = keyof typeof entryFields;

/**
 * What an entry needs once `defaults` are merged into it; which source field it needs depends on its signal
 * (entry.ts).
 */
export const REQUIRED_ENTRY_FIELDS: readonly EntryField[] = ['signal_type', 'rate'];
export type EntryFields = Partial<Decoded<typeof entryFields>>;

/** Fields that name one entry and therefore cannot be shared through `defaults`. */
export const ENTRY_ONLY_FIELDS: readonly EntryField[] = ['id', 'name', 'pack'];

export const defaultsFields = Object.fromEntries(
  Object.entries(entryFields).filter(([key]) => !(ENTRY_ONLY_FIELDS as readonly string[]).includes(key)),
) as Omit<typeof entryFields, 'id' | 'name' | 'pack'>;
