/**
 * Bounds on every number and size of the scenario language: what the runtime can represent and
 * sustain. Validation refuses anything beyond them with a message naming the limit, so no user
 * number reaches a loop, an allocation or a timer unbounded. The table in
 * docs/scenario-fields.md#limits lists them; keep the two in step.
 */

const SECOND = 1000;
const HOUR = 3_600_000;
export const DAY = 86_400_000;

// ---- documents ------------------------------------------------------------------------------

/** Bytes of one scenario or pack text (the server's request body limit is the same 1 MiB). */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** A Prometheus rules file `svc test --rules` reads: a large rule set is a few hundred KiB. */
export const MAX_RULES_BYTES = 16 * 1024 * 1024;
/**
 * What one YAML parse may cost: the bytes of the text and its tokens (scalars, indicators, line
 * breaks, indentation). The YAML parser takes some microseconds per token and per 10 characters
 * of a quoted string (`bench/parse.ts`). JSON, parsed natively, always has the whole 1 MiB.
 */
export interface YamlBudget {
  readonly bytes: number;
  readonly tokens: number;
}

/** In svc-server, whose event loop every request shares: one parse blocks it for tens of milliseconds at most. */
export const SHARED_YAML_BUDGET: YamlBudget = { bytes: 128 * 1024, tokens: 5000 };

/** In a process of its own (`svc` reading a file or standard input): the whole 1 MiB text, a few seconds at most. */
export const LOCAL_YAML_BUDGET: YamlBudget = { bytes: MAX_TEXT_BYTES, tokens: 250_000 };
/** Mappings and lists nested in one document. */
export const MAX_DEPTH = 64;
/** Alias expansions in one YAML document: enough for anchors shared by entries, too few for an alias bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Entries of one file, and entries once packs are expanded: validating them stays quick. */
export const MAX_ENTRIES = 500;
/** Scenario and pack files below one catalog directory. */
export const MAX_CATALOG_FILES = 1000;

// ---- rates and costs ------------------------------------------------------------------------

/** Events per second: the least rate (one event per 11.6 days). */
export const MIN_RATE = 0.000001;
/**
 * Samples (output lines) per second of one entry at its burst peak: rate × multiplier × samples
 * per event. More than one core writes (`npm run bench`): a rate this high means "flat out". It
 * bounds no memory (batches are bounded), only keeps slot numbers exact for years of run time.
 */
export const MAX_RATE = 100_000_000;
/** Observations per second of a histogram or summary entry at its burst peak. */
export const MAX_OBSERVATIONS_PER_SECOND = 100_000_000;
export { MAX_OBSERVATIONS_PER_TICK } from '../../operators/observe.js';
/**
 * Series of one entry: label sets × samples per event. Past 65,536 label sets a metrics or logs
 * entry keeps nothing per series (operators/labels.ts); a histogram or summary keeps its running
 * totals per series, and a counter the otlp encoder writes its last point (about 225 bytes), so their
 * memory grows with them: they have the lower bound.
 */
export const MAX_SERIES = 10_000_000;
export const MAX_SERIES_WITH_STATE = 100_000;
export const MAX_CARDINALITY = 10_000_000;
export const MIN_BURST_MULTIPLIER = 0.001;
export const MAX_BURST_MULTIPLIER = 1000;

// ---- times ------------------------------------------------------------------------------------

/** `duration`, `phase_offset`, `after.delay` and the `every`/`for` of windows, in days: messages name it so. */
export const MAX_DURATION_DAYS = 365;
export const MAX_DURATION_MS = MAX_DURATION_DAYS * DAY;
/** Retry backoffs. */
export const MAX_BACKOFF_MS = HOUR;
/** A relative `start_time`, either way: 100 years. */
export const MAX_START_OFFSET_MS = 36_500 * DAY;
/**
 * An absolute `start_time`: nanoseconds since 1970 in a signed 64-bit integer (InfluxDB line protocol, Loki, and OTLP's
 * unsigned times up to 2554) hold 1677-09-21 to 2262-04-11; 2200 leaves room for the durations, phase offsets and
 * `after` delays of a file.
 */
export const MIN_START_EPOCH_MS = Date.UTC(1678, 0, 1);
export const MAX_START_EPOCH_MS = Date.UTC(2200, 0, 1);
/** `period_secs` of a sine or sawtooth, `duration_secs` and `interval_secs` of a spike, in seconds. */
export const MIN_PERIOD_SECS = 1 / SECOND;
export const MAX_PERIOD_SECS = MAX_DURATION_MS / SECOND;

/** `timescale` of a csv_replay: how many seconds of the CSV's time pass in one second of the run. */
export const MIN_TIMESCALE = 0.001;
export const MAX_TIMESCALE = 1_000_000;

// ---- replayed files (csv_replay, and the log files of replay) ---------------------------------

/** Bytes of one CSV file, or of one replayed log file. */
export const MAX_CSV_BYTES = 16 * 1024 * 1024;
/** Data rows of one CSV file (the header line not counted), lines of a replayed log file (blank ones not counted). */
export const MAX_CSV_ROWS = 100_000;
/** Columns of one CSV file, the time column included: each replayed column becomes an entry. */
export const MAX_CSV_COLUMNS = MAX_ENTRIES + 1;
/** Characters of one CSV cell (a log message), or of one line of a replayed log file. */
export const MAX_CSV_CELL = 64 * 1024;

// ---- lists and other counts -------------------------------------------------------------------

/** Characters of a path a scenario names (a file sink's, a CSV, a replayed log, a pack, a CA certificate): Linux's PATH_MAX. */
export const MAX_PATH_CHARS = 4096;
/**
 * Characters of a metric name or label key, and of a label value: Loki's defaults (max_label_name_length,
 * max_label_value_length), which remote-write receivers' limits are commonly set near; Prometheus has none.
 */
export const MAX_NAME_CHARS = 1024;
export const MAX_LABEL_VALUE_CHARS = 2048;
export const MAX_BUCKETS = 256;
/** `native.schema` of a histogram: Prometheus' resolutions, from base 2^16 (-4) to base 2^(1/256) (8). */
export const MIN_NATIVE_SCHEMA = -4;
export const MAX_NATIVE_SCHEMA = 8;
/** `native.max_buckets`: populated buckets of one native histogram (its dense counts take up to 4 times that). */
export const MAX_NATIVE_BUCKETS = 4096;
/**
 * Native buckets one entry may keep: label sets × `native.max_buckets`. The native state is a histogram entry's
 * largest memory per series (up to 64 bytes a bucket); this keeps it to about a gigabyte at worst.
 */
export const MAX_NATIVE_BUCKET_STATE = 16_000_000;
export const MAX_QUANTILES = 64;
/** `exemplars.every`: only a modulus, bounded to stay a safe integer in messages and the schema. */
export const MAX_EXEMPLAR_EVERY = 1_000_000_000;
export const MAX_SEQUENCE_VALUES = 10_000;
export const MAX_TEMPLATES = 1000;
/**
 * Characters of the longest message a log template makes, its placeholders given their longest values: as long as a
 * whole scenario text may be. Placeholders repeat a value, so a short file could ask for records of gigabytes.
 */
export const MAX_MESSAGE_CHARS = MAX_TEXT_BYTES;
/** Values of one placeholder pool, and of one list-form dynamic label. */
export const MAX_LIST_VALUES = 100_000;
/** Tags of one scenario or pack file (catalog metadata). */
export const MAX_TAGS = 50;
export const MAX_DYNAMIC_LABELS = 16;
export const MAX_CARDINALITY_SPIKES = 8;
/** One-shot silences of one entry: a capture's outages, each looked up by bisection per tick. */
export const MAX_GAP_WINDOWS = 10_000;
export const MAX_SEVERITY_WEIGHT = 1_000_000;
export const MAX_RETRY_ATTEMPTS = 100;
/** `batch_size` of the batching sinks (bytes for http_push and logstore). */
export const MAX_BATCH_SIZE = 16 * 1024 * 1024;
/** Records in one request of a protocol sink (`batch_size`: remote-write series, OTLP data points or log records). */
export const MAX_RECORDS_PER_REQUEST = 100_000;
/** Alert expectations of one file (`expect.alerts`): each costs `svc test` a few promtool runs. */
export const MAX_ALERT_EXPECTATIONS = 100;
/** `max_buffer_age` of a batching sink. */
export const MAX_BUFFER_AGE_MS = HOUR;
export const MAX_STREAMS_PER_PUSH = 10_000;
/** Events in one send of a broker sink (`batch_size`): Kafka messages, or events of one batch message. */
export const MAX_EVENTS_PER_SEND = 100_000;
/** Kafka's own limits on names: a topic (249 characters), and `client_id` (an int16-length string, kept short). */
export const MAX_TOPIC_LENGTH = 249;
export const MAX_CLIENT_ID_LENGTH = 255;

type SeriesSetShape = {
  readonly signal_type?: string;
  /** A histogram's classic buckets; absent on a native-only histogram. */
  readonly buckets?: readonly number[];
  readonly quantiles?: readonly number[];
  /** A histogram's native histogram, one more row. */
  readonly native?: object;
};

/** The rows of a histogram's or summary's series set: one per bucket or quantile, then these. */
const SERIES_SETS: Readonly<
  Record<string, { readonly own: 'buckets' | 'quantiles'; readonly extra: readonly string[] }>
> = {
  histogram: { own: 'buckets', extra: ['le="+Inf"', '_sum', '_count'] },
  summary: { own: 'quantiles', extra: ['_sum', '_count'] },
};

/** Samples one event of an entry writes: one, or a histogram's or summary's series set (and native histogram). */
export function samplesPerEvent(entry: SeriesSetShape): number {
  const set = SERIES_SETS[entry.signal_type ?? ''];
  if (!set) return 1;
  const own = entry[set.own];
  return (own ? own.length + set.extra.length : 0) + (entry.native ? 1 : 0);
}

/**
 * The rows of an event's series set in words (`11 buckets, le="+Inf", _sum, _count, native histogram`); undefined
 * for one sample.
 */
export function samplesExplained(entry: SeriesSetShape): string | undefined {
  const set = SERIES_SETS[entry.signal_type ?? ''];
  const own = set && entry[set.own];
  return (
    set &&
    [...(own ? [`${own.length} ${set.own}`, ...set.extra] : []), ...(entry.native ? ['native histogram'] : [])].join(
      ', ',
    )
  );
}

// ---- traces (trace_generator) -------------------------------------------------------------------

/**
 * Spans one tick may make at most, counted on the tree with every `repeat` at its largest (the
 * traces a `new_trace` consumer starts included): the generator's batch and the encoders' buffers
 * grow with it.
 */
export const MAX_SPANS_PER_TRACE = 1000;
/**
 * Bytes of attributes one tick's spans may carry, counted on the tree with every `repeat` at its largest: each
 * span's attributes and its service's resource attributes, keys and values as text (a picked one at its longest).
 * Real traces weigh kilobytes to a few megabytes: Grafana Tempo refuses a trace above 5 MB by default
 * (`max_bytes_per_trace`), a collector's gRPC receiver a message above 4 MiB. The generator's batches and the
 * encoders' buffers grow with it.
 */
export const MAX_TRACE_BYTES = 16 * 1024 * 1024;
/** `repeat` of a call: a fixed count, and the largest count a drawn one is clamped to. */
export const MAX_REPEAT = 100;
/** One span's duration (and a producer's `queue_delay`), in seconds: a drawn one is clamped to it. */
export const MAX_SPAN_SECONDS = 3600;
/** Attributes of one span, and of one service's resource. */
export const MAX_SPAN_ATTRIBUTES = 128;
/** `pods.count` of a service. */
export const MAX_PODS = 10_000;
