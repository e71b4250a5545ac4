/**
 * `svc new --from URL`: a scenario that reproduces a Prometheus exposition read once. Each metric
 * family becomes one entry of its type, with its help, its labels (static when the family has one
 * value, rotating through the values read when it has several) and values in the ranges read.
 * The rules, and why: docs/new.md.
 */
import { basename, extname } from 'node:path';
import { unlabelledStreamRefusal } from '../config/entry.js';
import { loadScenario } from '../config/load.js';
import {
  LOCAL_YAML_BUDGET,
  MAX_BUCKETS,
  MAX_DYNAMIC_LABELS,
  MAX_OBSERVATIONS_PER_TICK,
  MAX_QUANTILES,
  MAX_SERIES_WITH_STATE,
} from '../language/limits.js';
import type { SignalType } from '../language/types.js';
import type { YAMLMap } from 'yaml';
import { CommentedDocument, withCommentBefore, type Item } from './commented.js';
import { parseExposition, type MetricFamily, type Sample } from './exposition.js';
import { placeholderSink } from './sink-placeholders.js';

/** Most families written (a scenario file takes 500 entries); those after are named in the header. */
export const MAX_PROFILED_FAMILIES = 200;
/** Most values of a rotating label written as a list; a label with more rotates through as many counter values. */
export const MAX_LISTED_VALUES = 20;
/** Most label sets an entry writes; past it, the labels with the most values are held at their first value. */
export const MAX_LABEL_SETS = 10_000;
/** Highest rate written: one sample per label set a second, up to this. */
const MAX_PROFILE_RATE = 1000;
/** Distinct values counted per label: the cardinality written is at most this. */
const MAX_COUNTED_VALUES = 100_000;
/** The age assumed for a counter whose exposition says nothing of when it started. */
const ASSUMED_COUNTER_AGE_S = 3600;
/** z of the 90th percentile of a normal distribution: (q0.9 − median) / 1.2816 estimates its stddev. */
const Z_90 = 1.2816;
/** An exponential's median is ln 2 ≈ 0.69 of its mean; a median below this share of the mean reads as right-skewed. */
const SKEWED_MEDIAN_SHARE = 0.85;
/**
 * Fewest observations a summary's tick draws: its quantiles are those of one tick's observations, so
 * fewer would make them jump from tick to tick (svc's default).
 */
const MIN_SUMMARY_OBSERVATIONS = 100;

export interface ExpositionOptions {
  /** Where the text came from, credentials masked: written in the header. */
  readonly origin: string;
  /** When it was read: counters' ages are measured against it. */
  readonly readAt: Date;
  /** Sink and encoder types of every entry (`defaults`); absent: stdout and the default encoder. */
  readonly sink?: string;
  readonly encoder?: string;
}

/** One entry of the scenario: its fields, and what was found, for the comment above it. */
interface Profiled {
  readonly items: Item[];
  readonly found: string[];
}

/**
 * The scenario text reproducing the exposition `text`; validated as svc run would (a ConfigError when the
 * sink and encoder do not go together).
 */
export function scenarioFromExposition(text: string, options: ExpositionOptions): string {
  const exposition = parseExposition(text);
  const ages = counterAges(exposition.families, options.readAt);
  const signals = exposition.families.filter((family) => !ages.creationFamilies.has(family.name));
  const kept = signals.slice(0, MAX_PROFILED_FAMILIES);
  const notes: string[] = [];
  const doc = new CommentedDocument();
  const entries = kept.flatMap((family) => {
    const profiled = profileFamily(family, ages.ageOf(family.name));
    if (typeof profiled === 'string') {
      notes.push(`Left out ${family.name}: ${profiled}.`);
      return [];
    }
    return [withCommentBefore(doc.mapping(profiled.items), profiled.found)];
  });
  if (entries.length === 0)
    throw new Error(
      `--from: ${options.origin}: no metric family with a finite value to reproduce${exposition.firstSkipped ? ` (${exposition.skipped} lines not in the text format; ${exposition.firstSkipped})` : ''}`,
    );

  const dropped = signals.slice(MAX_PROFILED_FAMILIES).map((family) => family.name);
  if (dropped.length)
    notes.push(
      `Left out ${dropped.length} families past the first ${MAX_PROFILED_FAMILIES}: ${dropped.slice(0, 10).join(', ')}${dropped.length > 10 ? ', …' : ''}.`,
    );
  if (ages.creationFamilies.size)
    notes.push(
      `Not reproduced: ${[...ages.creationFamilies].join(', ')} (creation times, which date the counters instead).`,
    );
  if (exposition.skipped)
    notes.push(`Skipped ${exposition.skipped} lines not in the text format (${exposition.firstSkipped}).`);

  const defaults = options.sink || options.encoder ? defaultsOf(doc, options) : undefined;
  const root = doc.mapping([
    { key: 'version', value: 2, comment: 'the scenario file format' },
    { key: 'kind', value: 'runnable' },
    ...(defaults ? [{ key: 'defaults', value: defaults, comment: 'fields of every entry' }] : []),
    { key: 'scenarios', value: doc.list(entries) },
  ]);
  const scenario = doc.write(root, [
    `Reproduces the exposition read from ${options.origin} at ${options.readAt.toISOString()}, written by svc new --from.`,
    `${signals.length} metric families read, ${entries.length} reproduced, one entry each; the comment above each says what was read. Rules: docs/new.md.`,
    'No entry has a duration: they run until stopped (or svc run <this file> --duration 1m).',
    ...notes,
  ]);
  loadScenario(scenario, { origin: 'svc new --from', yamlBudget: LOCAL_YAML_BUDGET });
  return scenario;
}

/**
 * `defaults` with the sink and encoder asked for: the sink's required fields hold placeholders. A sink that refuses
 * unlabelled streams (a log store) gets a `job` label on every entry, named after the source, as Prometheus adds
 * `job` to every series it scrapes: a family without labels would otherwise be refused.
 */
function defaultsOf(doc: CommentedDocument, { sink, encoder, origin }: ExpositionOptions): YAMLMap {
  const labelled = sink !== undefined && unlabelledStreamRefusal(sink, {}) !== undefined;
  return doc.mapping([
    ...(labelled
      ? [
          {
            key: 'labels',
            value: { job: jobOf(origin) },
            flow: true,
            comment: `the ${sink} sink refuses a stream without labels: job names the source, as Prometheus' scrape adds it`,
          },
        ]
      : []),
    ...(encoder ? [{ key: 'encoder', value: { type: encoder }, flow: true }] : []),
    ...(sink
      ? [
          {
            key: 'sink',
            value: placeholderSink('metrics', sink),
            flow: true,
            comment: 'its address is a placeholder to replace (docs/sinks.md)',
          },
        ]
      : []),
  ]);
}

/** The `job` of what was read from `origin`: a URL's host and port, a file's name without its extension. */
function jobOf(origin: string): string {
  if (/^https?:\/\//i.test(origin)) return new URL(origin).host;
  return basename(origin, extname(origin)) || 'svc';
}

/** The entry of one family, or why it is left out. */
function profileFamily(family: MetricFamily, age: CounterAge): Profiled | string {
  switch (family.type) {
    case 'histogram':
      return profileHistogram(family, age);
    case 'summary':
      return profileSummary(family, age);
    case 'counter':
      return profileCounter(family, age);
    default:
      return profileGauge(family);
  }
}

/** The value range of samples, over their finite values. */
function rangeOf(samples: readonly Sample[]): { min: number; max: number; mean: number; distinct: number } | undefined {
  const values = samples.map((sample) => sample.value).filter(Number.isFinite);
  if (values.length === 0) return undefined;
  // A loop, not Math.min(...values): a family may hold more series than a call takes arguments.
  const min = values.reduce((a, b) => Math.min(a, b));
  const max = values.reduce((a, b) => Math.max(a, b));
  return { min, max, mean: values.reduce((a, b) => a + b, 0) / values.length, distinct: new Set(values).size };
}

function profileGauge(family: MetricFamily): Profiled | string {
  const range = rangeOf(family.samples);
  if (!range) return 'no finite value (only NaN or ±Inf)';
  const labels = labelFields(family.samples, MAX_LABEL_SETS);
  const generator =
    range.distinct === 1
      ? { type: 'constant', value: range.min }
      : { type: 'uniform', min: range.min, max: range.max, seed: 0 };
  return {
    items: [
      ...head(family, 'metrics', family.name, labels.rate),
      {
        key: 'generator',
        value: generator,
        flow: true,
        comment: range.distinct === 1 ? 'the one value read' : 'uniform over the range read',
      },
      ...labels.items,
    ],
    found: [
      `${family.type} ${family.name}: ${describeSeries(labels)}; values ${range.min} to ${range.max}.`,
      ...labels.notes,
    ],
  };
}

function profileCounter(family: MetricFamily, age: CounterAge): Profiled | string {
  const samples = withoutCreated(family);
  const range = rangeOf(samples);
  if (!range) return 'no finite value (only NaN or ±Inf)';
  const labels = labelFields(samples, MAX_LABEL_SETS);
  // Each series is written rate / label sets times a second and the step generator counts every
  // tick, so a series climbs step_size × rate a second: the mean per-second increase read.
  const perSecond = Math.max(0, range.mean) / age.seconds;
  const stepSize = rounded(perSecond / labels.rate);
  return {
    items: [
      ...head(family, 'metrics', samples[0]!.name, labels.rate),
      {
        key: 'generator',
        value: { type: 'step', start: range.min, step_size: stepSize },
        flow: true,
        comment: `counts up from the lowest value read, about ${rounded(perSecond)}/s a series`,
      },
      ...labels.items,
    ],
    found: [
      `counter ${family.name}: ${describeSeries(labels)}; values ${range.min} to ${range.max}; ${age.source}.`,
      ...labels.notes,
    ],
  };
}

function profileHistogram(family: MetricFamily, age: CounterAge): Profiled {
  const bucketSamples = family.samples.filter(
    (sample) => sample.name === `${family.name}_bucket` && sample.labels.le !== undefined,
  );
  const cumulative = new Map<number, number>();
  for (const { labels, value } of bucketSamples) {
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    if (!Number.isNaN(le) && Number.isFinite(value)) cumulative.set(le, (cumulative.get(le) ?? 0) + value);
  }
  const buckets = [...cumulative.keys()].filter(Number.isFinite).sort((a, b) => a - b);
  const written = buckets.slice(0, MAX_BUCKETS);
  const { count, sum } = totals(family);
  const ladder = [...cumulative.entries()].sort(([a], [b]) => a - b).map(([le, cum]) => ({ le, cum }));
  const quantile = (p: number) => (count > 0 ? bucketQuantile(ladder, p * count) : undefined);
  const fit = fitDistribution(count, sum, quantile) ?? spanOf(written);
  const labels = labelFields(
    withoutCreated(family),
    Math.min(MAX_LABEL_SETS, Math.floor(MAX_SERIES_WITH_STATE / ((written.length || 11) + 3))),
    ['le'],
  );
  const notes = [...labels.notes];
  if (buckets.length > MAX_BUCKETS) notes.push(`Kept the lowest ${MAX_BUCKETS} of ${buckets.length} bucket bounds.`);
  if (written.length === 0) notes.push('No finite bucket bound read: the default buckets.');
  return {
    items: [
      ...head(family, 'histogram', family.name, labels.rate),
      { key: 'distribution', value: fit.distribution, flow: true, comment: fit.why },
      ...(written.length
        ? [{ key: 'buckets', value: written, flow: true, comment: 'the bounds (le) read; +Inf is implicit' }]
        : []),
      ...observationItems(count, labels, age, 1),
      ...labels.items,
    ],
    found: [
      `histogram ${family.name}: ${describeSeries(labels)}; ${written.length} bucket bounds; ${count} observations, sum ${rounded(sum)}; ${age.source}.`,
      ...notes,
    ],
  };
}

function profileSummary(family: MetricFamily, age: CounterAge): Profiled {
  const byQuantile = new Map<number, number[]>();
  for (const { labels, value } of family.samples) {
    const q = labels.quantile === undefined ? NaN : Number(labels.quantile);
    if (!(q > 0 && q < 1 && Number.isFinite(value))) continue;
    const values = byQuantile.get(q);
    if (values) values.push(value);
    else byQuantile.set(q, [value]);
  }
  const points = [...byQuantile.entries()]
    .sort(([a], [b]) => a - b)
    .map(([q, values]) => ({ q, value: values.reduce((a, b) => a + b, 0) / values.length }));
  const quantiles = points.map((point) => point.q).slice(0, MAX_QUANTILES);
  const { count, sum } = totals(family);
  const fit = fitDistribution(count, sum, (p) => pointQuantile(points, p)) ?? {
    distribution: { type: 'exponential', rate: 1 },
    why: 'no observations read: exponential with mean 1',
  };
  const labels = labelFields(
    withoutCreated(family),
    Math.min(MAX_LABEL_SETS, Math.floor(MAX_SERIES_WITH_STATE / ((quantiles.length || 3) + 2))),
    ['quantile'],
  );
  const notes = [...labels.notes];
  const outside = [
    ...new Set(
      family.samples
        .map((sample) => sample.labels.quantile)
        .filter((q) => q !== undefined && !(Number(q) > 0 && Number(q) < 1)),
    ),
  ];
  if (outside.length)
    notes.push(`Not written: quantile ${outside.join(', ')} (svc writes quantiles strictly between 0 and 1).`);
  if (quantiles.length === 0)
    notes.push('No quantile strictly between 0 and 1 with a finite value read: the default quantiles.');
  return {
    items: [
      ...head(family, 'summary', family.name, labels.rate),
      { key: 'distribution', value: fit.distribution, flow: true, comment: fit.why },
      ...(quantiles.length
        ? [{ key: 'quantiles', value: quantiles, flow: true, comment: 'the quantiles read (0 < q < 1)' }]
        : []),
      ...observationItems(count, labels, age, MIN_SUMMARY_OBSERVATIONS),
      ...labels.items,
    ],
    found: [
      `summary ${family.name}: ${describeSeries(labels)}; quantiles ${quantiles.join(', ') || 'none'}; ${count} observations, sum ${rounded(sum)}; ${age.source}.`,
      ...notes,
    ],
  };
}

/** A family's samples but its `_created` ones: those date the family, they are not its series' values. */
function withoutCreated(family: MetricFamily): Sample[] {
  return family.samples.filter((sample) => sample.name !== `${family.name}_created`);
}

/** The fields every entry starts with. */
function head(family: MetricFamily, signal: SignalType, name: string, rate: number): Item[] {
  return [
    { key: 'signal_type', value: signal },
    { key: 'name', value: name },
    { key: 'metric_type', value: family.type },
    ...(family.help ? [{ key: 'help', value: family.help }] : []),
    { key: 'rate', value: rate, comment: rate > 1 ? 'one cycle of the labels a second' : 'one sample a second' },
  ];
}

/**
 * `observations_per_tick` that makes each series' `_count` climb as the one read did: its observations
 * over its age, a series; each series is written rate / label sets times a second. At least `fewest`;
 * none when nothing was observed (svc's default then).
 */
function observationItems(count: number, labels: LabelFields, age: CounterAge, fewest: number): Item[] {
  if (!(count > 0) || labels.series === 0) return [];
  const perSecond = count / labels.series / age.seconds;
  const perTick = Math.round((perSecond * labels.sets) / labels.rate);
  const value = Math.min(MAX_OBSERVATIONS_PER_TICK, Math.max(fewest, perTick));
  const why =
    value === perTick
      ? 'as many a second as were read'
      : value === fewest
        ? `at least ${fewest}${fewest > 1 ? ', for quantiles over one tick' : ''}`
        : `at most ${MAX_OBSERVATIONS_PER_TICK}`;
  return [
    {
      key: 'observations_per_tick',
      value,
      comment: `${why}: about ${rounded(perSecond)}/s a series`,
    },
  ];
}

/** Observations and their sum over the series of a histogram or summary. */
function totals(family: MetricFamily): { count: number; sum: number } {
  const total = (suffix: string) =>
    family.samples
      .filter((s) => s.name === `${family.name}${suffix}` && Number.isFinite(s.value))
      .reduce((a, s) => a + s.value, 0);
  return { count: total('_count'), sum: total('_sum') };
}

interface Fit {
  readonly distribution: Record<string, unknown>;
  readonly why: string;
}

/**
 * A quantile as read: its estimate, and the range the data pins it to (a histogram's bucket; a summary's
 * value itself).
 */
interface Quantile {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

/**
 * A distribution of the observations, from their mean (sum / count) and quantiles: one with the
 * mean read, shaped by where the median falls. Latencies and sizes are right-skewed (the median
 * well below the mean), which an exponential of that mean reproduces with its one parameter,
 * always positive; a median near or above the mean gets a normal with the mean read and the
 * spread of the 90th percentile above the median. When the buckets are too coarse to place the
 * median on either side, the exponential is kept: it cannot go negative.
 */
function fitDistribution(count: number, sum: number, quantile: (p: number) => Quantile | undefined): Fit | undefined {
  if (!(count > 0) || !Number.isFinite(sum)) return undefined;
  const mean = sum / count;
  const median = quantile(0.5);
  const skewedBelow = SKEWED_MEDIAN_SHARE * mean;
  if (mean > 0 && (median === undefined || median.low < skewedBelow)) {
    const shape =
      median === undefined
        ? 'no quantile read'
        : median.high < skewedBelow
          ? `median ${rounded(median.value)} well below it: right-skewed`
          : `the buckets cannot tell the median from ${SKEWED_MEDIAN_SHARE} × the mean`;
    return {
      distribution: { type: 'exponential', rate: rounded(1 / mean) },
      why: `exponential with the mean read, ${rounded(mean)} (${shape})`,
    };
  }
  const spread = median && quantile(0.9);
  const stddev = median && spread ? Math.max(0, rounded((spread.value - median.value) / Z_90)) : 0;
  return {
    distribution: { type: 'normal', mean: rounded(mean), stddev },
    why: `normal with the mean read; stddev from the 90th percentile's distance to the median (${rounded(median?.value ?? mean)})`,
  };
}

/** Without observations, a histogram's values spread over its bounds. */
function spanOf(bounds: readonly number[]): Fit {
  const min = Math.min(0, bounds[0] ?? 0);
  const max = bounds.at(-1) ?? 1;
  return max > min
    ? { distribution: { type: 'uniform', min, max }, why: 'no observations read: uniform over the bucket bounds' }
    : { distribution: { type: 'exponential', rate: 1 }, why: 'no observations read: exponential with mean 1' };
}

/**
 * The value below which `rank` observations fall, interpolated linearly inside the bucket that
 * holds it, as PromQL's histogram_quantile does (a first bucket with a positive bound starts at
 * 0; a rank in the +Inf bucket gives the highest finite bound).
 */
function bucketQuantile(ladder: readonly { le: number; cum: number }[], rank: number): Quantile | undefined {
  let lower = Math.min(0, ladder[0]?.le ?? 0);
  let below = 0;
  for (const { le, cum } of ladder) {
    if (cum >= rank) {
      if (!Number.isFinite(le)) return { value: lower, low: lower, high: Infinity };
      return { value: lower + ((le - lower) * (rank - below)) / (cum - below || 1), low: lower, high: le };
    }
    [lower, below] = [le, cum];
  }
  return undefined;
}

/** The `p` quantile of a summary's quantile points, interpolated linearly between them, the nearest beyond them. */
function pointQuantile(points: readonly { q: number; value: number }[], p: number): Quantile | undefined {
  if (points.length === 0) return undefined;
  const after = points.findIndex((point) => point.q >= p);
  const exact = (value: number) => ({ value, low: value, high: value });
  if (after <= 0) return exact(points[after === 0 ? 0 : points.length - 1]!.value);
  const [a, b] = [points[after - 1]!, points[after]!];
  return exact(a.value + ((b.value - a.value) * (p - a.q)) / (b.q - a.q));
}

interface LabelFields {
  readonly items: Item[];
  readonly notes: string[];
  /** Samples in one cycle of the rotating labels, and the entry's rate. */
  readonly sets: number;
  readonly rate: number;
  /** Series read, and each label's count of values. */
  readonly series: number;
  readonly cardinalities: readonly (readonly [string, number])[];
}

/**
 * `labels` for the labels with one value, `dynamic_labels` for those with several (their values
 * as a list up to {@link MAX_LISTED_VALUES}, else as many counter values), within `maxSets`
 * label sets; `ignored` labels (le, quantile) belong to the signal.
 */
function labelFields(samples: readonly Sample[], maxSets: number, ignored: readonly string[] = []): LabelFields {
  const values = new Map<string, Set<string>>();
  const series = new Set<string>();
  for (const { labels } of samples) {
    const own = Object.entries(labels).filter(([key]) => !ignored.includes(key));
    series.add(JSON.stringify(own.sort(([a], [b]) => (a < b ? -1 : 1))));
    for (const [key, value] of own) {
      const seen = values.get(key) ?? new Set<string>();
      if (seen.size < MAX_COUNTED_VALUES) seen.add(value);
      values.set(key, seen);
    }
  }
  const cardinalities = [...values.entries()]
    .map(([key, seen]) => [key, seen.size] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const notes: string[] = [];
  let rotating: Rotating[] = cycles(cardinalities.filter(([, n]) => n > 1));
  const hold = (why: string, keys: readonly string[]) => {
    if (keys.length) notes.push(`Held ${keys.join(', ')} at its first value: ${why}.`);
    rotating = cycles(rotating.filter(([key]) => !keys.includes(key)));
  };
  hold(
    `at most ${MAX_DYNAMIC_LABELS} labels rotate`,
    [...rotating]
      .sort(([, a], [, b]) => a - b)
      .slice(MAX_DYNAMIC_LABELS)
      .map(([key]) => key),
  );
  const byCardinality = [...rotating].sort(([, a], [, b]) => b - a);
  const held: string[] = [];
  while (rotating.length && labelSets(rotating) > maxSets) {
    held.push(byCardinality[held.length]![0]);
    rotating = cycles(rotating.filter(([key]) => !held.includes(key)));
  }
  hold(`more than ${maxSets} label sets otherwise`, held);
  const first = (key: string) => [...values.get(key)!].sort()[0]!;
  const fixed = cardinalities.filter(([key]) => !rotating.some(([k]) => k === key)).map(([key]) => [key, first(key)]);
  const dynamic = rotating.map(([key, n, cycle]) => {
    if (n > MAX_LISTED_VALUES) return { key, cardinality: n };
    const listed = [...values.get(key)!].sort();
    return { key, values: Array.from({ length: cycle }, (_, i) => listed[i % n]!) };
  });
  const sets = labelSets(rotating);
  const items: Item[] = [
    ...(fixed.length
      ? [{ key: 'labels', value: Object.fromEntries(fixed), flow: true, comment: 'labels with one value' }]
      : []),
    ...(dynamic.length
      ? [
          {
            key: 'dynamic_labels',
            value: dynamic,
            flowChildren: true,
            comment: 'labels with several values, each cycling on its own',
          },
        ]
      : []),
  ];
  if (dynamic.some((label) => label.values && new Set(label.values).size < label.values.length)) {
    notes.push(
      'Some value lists repeat values: lists whose lengths share no factor cycle through every combination of their values.',
    );
  }
  return { items, notes, sets, rate: Math.min(sets, MAX_PROFILE_RATE), series: series.size, cardinalities };
}

/** A rotating label: its key, its count of values, and the length of its cycle. */
type Rotating = readonly [key: string, cardinality: number, cycle: number];

/**
 * The cycle of each rotating label. Rotating labels advance together, one step a tick, so labels
 * of 2 and 2 values would only ever pair their first values and their second ones: a listed
 * label's cycle is lengthened (its values repeated) to the next length sharing no factor with the
 * cycles before it, so that every combination of values comes round. A counter-form label keeps
 * its cardinality as its cycle.
 */
function cycles(rotating: readonly (readonly [string, number, ...number[]])[]): Rotating[] {
  const lengths: number[] = [];
  return rotating.map(([key, n]) => {
    let cycle = n;
    while (n <= MAX_LISTED_VALUES && lengths.some((other) => gcd(other, cycle) > 1)) cycle++;
    lengths.push(cycle);
    return [key, n, cycle] as const;
  });
}

/** Label sets rotating labels make: the least common multiple of their cycles. */
function labelSets(rotating: readonly Rotating[]): number {
  return rotating.reduce(
    (sets, [, , cycle]) => Math.min((sets / gcd(sets, cycle)) * cycle, Number.MAX_SAFE_INTEGER),
    1,
  );
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function describeSeries(labels: LabelFields): string {
  const cardinalities = labels.cardinalities.map(([key, n]) => `${key}: ${n} value${n === 1 ? '' : 's'}`).join(', ');
  return `${labels.series} series${cardinalities ? ` (${cardinalities})` : ''}${labels.sets > 1 ? `; its labels cycle every ${labels.sets} samples` : ''}`;
}

/** A counter's age, and what it was read from. */
interface CounterAge {
  readonly seconds: number;
  readonly source: string;
}

/**
 * How long each counter has counted: from its `_created` samples (OpenMetrics, and client
 * libraries that expose them as a family of their own), else from the process's
 * `process_start_time_seconds`, else {@link ASSUMED_COUNTER_AGE_S}. The families of creation
 * times are not signals: they are named so they can be left out.
 */
function counterAges(
  families: readonly MetricFamily[],
  readAt: Date,
): { ageOf: (family: string) => CounterAge; creationFamilies: ReadonlySet<string> } {
  const names = new Set(families.map((family) => family.name));
  const now = readAt.getTime() / 1000;
  const created = new Map<string, number[]>();
  const creationFamilies = new Set<string>();
  const add = (family: string, samples: readonly Sample[]) =>
    created.set(family, [...(created.get(family) ?? []), ...samples.map((s) => s.value).filter(Number.isFinite)]);
  for (const family of families) {
    add(
      family.name,
      family.samples.filter((sample) => sample.name === `${family.name}_created`),
    );
    if (!family.name.endsWith('_created')) continue;
    const base = family.name.slice(0, -'_created'.length);
    const owner = [base, `${base}_total`].find((name) => names.has(name));
    if (!owner) continue;
    creationFamilies.add(family.name);
    add(owner, family.samples);
  }
  const start = families.find((family) => family.name === 'process_start_time_seconds')?.samples[0]?.value;
  const ageOf = (family: string): CounterAge => {
    const times = created.get(family) ?? [];
    const since = times.length ? times.reduce((a, b) => a + b, 0) / times.length : undefined;
    if (since !== undefined && now - since > 0)
      return { seconds: now - since, source: `counting for ${rounded(now - since)} s (its _created samples)` };
    if (start !== undefined && now - start > 0)
      return { seconds: now - start, source: `counting for ${rounded(now - start)} s (process_start_time_seconds)` };
    return {
      seconds: ASSUMED_COUNTER_AGE_S,
      source: `no start time read: assumed counting for ${ASSUMED_COUNTER_AGE_S} s`,
    };
  };
  return { ageOf, creationFamilies };
}

/** `n` to 4 significant digits, for numbers a person reads. */
function rounded(n: number): number {
  return Number(n.toPrecision(4));
}
