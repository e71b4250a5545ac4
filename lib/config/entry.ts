/** One entry: decode its fields, apply the rules that relate them, normalise it into an `Entry`. */
import * as t from 'io-ts';
import { decodeFields, type DecodedBefore } from '../language/combinators.js';
import {
  REQUIRED_ENTRY_FIELDS,
  entryFields,
  isEntryId,
  type EntryField,
  type EntryFields,
  type SpanMetricsConfig,
} from './entry-fields.js';
import { featureRefusal } from '../features.js';
import { familyOf, METRIC_TYPES_OF, SIGNAL_TYPES } from '../language/fields.js';
import { encoderKindOf, encodingRefusal, nativeRefusal, startTimeRefusal } from '../encoders/kinds/index.js';
import { sinkKindOf, type SinkIssue } from '../sinks/kinds/index.js';
import {
  MAX_DURATION_DAYS,
  MAX_DURATION_MS,
  MAX_NATIVE_BUCKET_STATE,
  MAX_OBSERVATIONS_PER_SECOND,
  MAX_RATE,
  MAX_SERIES,
  MAX_SERIES_WITH_STATE,
  samplesExplained,
  samplesPerEvent,
} from '../language/limits.js';
import { isMapping, issuesOf, show, type Issue } from '../language/problems.js';
import type { NativeConfig, ReferenceDelay, While } from '../language/fields.js';
import { desugarAlias } from '../language/aliases.js';
import { maxSpansPerTrace, type TraceGeneratorConfig } from '../language/traces.js';
import { isPackPath, packPathId } from './pack.js';
import { lowestValue } from '../generators/value.js';
import { EXPONENTIAL_REACH, NORMAL_REACH, observationReach } from '../generators/distribution.js';
import type { EncoderType, Entry, SinkConfig } from './types.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import type { DynamicLabel, MetricType, SignalType, StartTime } from '../language/types.js';
import { DEFAULT_BUCKETS, DEFAULT_NATIVE } from '../../operators/histogram.js';
import { DEFAULT_QUANTILES } from '../../operators/summary.js';
import { COUNTED_LABEL_SETS, labelSetCount, type LabelOptions } from '../../operators/labels.js';

/** A trace's spans carry attributes and their services' resources (trace_generator), not labels nor metric fields. */
const WITHOUT_TRACES = SIGNAL_TYPES.filter((signal) => signal !== 'traces');

/** Fields only some signal types take: other entries reject them and `defaults` skips them there. */
export const FIELD_SIGNALS: Partial<Record<EntryField, readonly SignalType[]>> = {
  generator: ['metrics'],
  log_generator: ['logs'],
  trace_generator: ['traces'],
  distribution: ['histogram', 'summary'],
  buckets: ['histogram'],
  native: ['histogram'],
  quantiles: ['summary'],
  observations_per_tick: ['histogram', 'summary'],
  seed: ['histogram', 'summary'],
  pack: ['metrics'],
  overrides: ['metrics'],
  labels: WITHOUT_TRACES,
  dynamic_labels: WITHOUT_TRACES,
  cardinality_spikes: WITHOUT_TRACES,
  jitter: ['metrics'],
  jitter_seed: ['metrics'],
  metric_type: WITHOUT_TRACES,
  help: WITHOUT_TRACES,
  exemplars: ['histogram', 'summary', 'metrics'],
  trace_context: ['logs'],
  span_metrics: ['traces'],
};

/**
 * The signal type of a flat YAML entry that gives none (the spec requires `signal_type` in v2 files and JSON
 * bodies only): the first of {@link SIGNAL_TYPES} that takes every field the entry gives, so `log_generator`
 * makes logs, `distribution` a histogram and with `quantiles` a summary, anything else metrics; undefined
 * when no type takes them all (the entry is then refused for its missing `signal_type`).
 */
export function impliedSignal(fields: Readonly<Record<string, unknown>>): SignalType | undefined {
  return SIGNAL_TYPES.find((signal) =>
    Object.keys(fields).every((key) => FIELD_SIGNALS[key as EntryField]?.includes(signal) ?? true),
  );
}

/** What produces the values of each signal type (a metrics entry's generator may come from a pack instead). */
export const SOURCE_FIELD: Record<SignalType, EntryField> = {
  metrics: 'generator',
  logs: 'log_generator',
  histogram: 'distribution',
  summary: 'distribution',
  traces: 'trace_generator',
};

export { DEFAULT_BUCKETS, DEFAULT_QUANTILES };
export const DEFAULT_OBSERVATIONS_PER_TICK = 100;

/** Why a counter may not go below 0 (a generator's lowest value, a replayed CSV's cell), and what to give instead. */
export const NEGATIVE_COUNTER =
  'on a counter (metric_type: counter): OpenMetrics forbids negative counter values, and Prometheus reads every fall as a reset; give metric_type: gauge';

export interface DecodedEntry {
  /** Every field that decoded, even when others did not: file-level checks look at them. */
  readonly fields: EntryFields;
  /** Present when there are no issues. */
  readonly entry?: Entry;
  readonly issues: readonly Issue[];
}

/**
 * Rows one event writes at most: a histogram's or summary's series set, a trace's spans (every
 * `repeat` at its largest), else 1. What rates and batches are bounded by.
 */
export function rowsPerEvent(
  entry: Parameters<typeof samplesPerEvent>[0] & { readonly trace_generator?: TraceGeneratorConfig },
): number {
  return entry.trace_generator ? maxSpansPerTrace(entry.trace_generator) : samplesPerEvent(entry);
}

/**
 * The series an entry may write: its label sets (rotating labels and spikes) × the rows of one event. The one count
 * of the series limit (validation) and of `svc run --dry-run`.
 */
export function seriesCount(
  entry: Parameters<typeof rowsPerEvent>[0] & {
    readonly dynamic_labels?: LabelOptions['dynamic'];
    readonly cardinality_spikes?: LabelOptions['spikes'];
  },
): { sets: number; samples: number; series: number } {
  const sets = labelSetCount({ dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes });
  const samples = rowsPerEvent(entry);
  return { sets, samples, series: sets * samples };
}

/**
 * When each tick of `entry` is due: its rate with its burst window, as the runtime's chain makes it with the `bursts`
 * operator (lib/runtime/chain/schedule.ts); what the compile-time reckonings of its ticks (crossings, warnings) read.
 */
export function rateScheduleOf(entry: Pick<Entry, 'rate' | 'bursts'>): RateSchedule {
  const schedule = RateSchedule.constant(entry.rate);
  return entry.bursts ? schedule.withBurst(entry.bursts, 'bursts') : schedule;
}

/** `id`, else `name`, else `pack` (a pack file: its name without extension). */
export function entryId(fields: EntryFields): string | undefined {
  return (
    fields.id ??
    fields.name ??
    (fields.pack !== undefined && isPackPath(fields.pack) ? packPathId(fields.pack) : fields.pack)
  );
}

export function decodeEntry(written: Record<string, unknown>, before?: DecodedBefore): DecodedEntry {
  const desugared = desugarAlias(written);
  const raw = desugared.fields;
  const context = [{ key: '', type: t.unknown, actual: raw }];
  const { value: fields, errors } = decodeFields(entryFields, REQUIRED_ENTRY_FIELDS, raw, context, undefined, before);
  // An alias that failed is still the generator: its problems replace the generator codec's.
  const issues = [
    ...desugared.issues,
    ...issuesOf(errors).filter((issue) => !(desugared.issues.length && issue.path[0] === 'generator')),
    ...crossFieldIssues(fields, raw),
  ];
  return issues.length ? { fields, issues } : { fields, issues, entry: normalise(fields) };
}

/** Rules between fields; a field that failed to decode is left out of the rules that need its value. */
function crossFieldIssues(fields: EntryFields, raw: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const has = (key: EntryField): boolean => Object.hasOwn(raw, key);
  // Reported already: a rule that would take its default in its place is left out.
  const failed = (...keys: EntryField[]): boolean => keys.some((key) => has(key) && fields[key] === undefined);
  const add = (path: Issue['path'], message: string, code?: Issue['code']): void =>
    void issues.push({ path, message, ...(code && { code }) });

  // lib/config/schema.ts says these to editors too (packRule).
  if (has('pack')) {
    if (has('name')) add(['name'], 'not allowed with pack (the pack names its metrics)');
    if (has('generator')) add(['generator'], 'not allowed with pack (the pack supplies the generators)');
    if (has('metric_type')) add(['metric_type'], 'not allowed with pack (the pack sets the type of each metric)');
    if (has('help')) add(['help'], 'not allowed with pack (the pack sets the help of each metric)');
    // A pack file's name becomes the id when none is given: it must be fit for one, as an explicit id is.
    const fileId = fields.pack !== undefined && isPackPath(fields.pack) ? packPathId(fields.pack) : undefined;
    if (fileId !== undefined && !has('id') && !isEntryId(fileId))
      add(
        ['pack'],
        `the file name ${show(fileId)}, the default id of the entry, holds a control character (such as a line break or tab), which an id cannot: give the entry an id, or rename the file`,
      );
  } else {
    if (!has('name')) add(['name'], 'missing required field');
    if (has('overrides')) add(['overrides'], 'only allowed with pack (it changes metrics of the pack)');
  }
  const snapTo =
    fields.while?.snap_to !== undefined
      ? ['while', 'snap_to']
      : fields.delay?.close?.snap_to !== undefined
        ? ['delay', 'close', 'snap_to']
        : undefined;
  if (fields.delay !== undefined) {
    const close = fields.delay.close;
    if (!has('while')) add(['delay'], 'only allowed with while (the reference tool writes while.delay here)');
    else if (fields.while?.delay !== undefined) add(['delay'], 'the same as while.delay: give one of them');
    if (close?.snap_to !== undefined && fields.while?.snap_to !== undefined)
      add(['delay', 'close', 'snap_to'], 'the same as while.snap_to: give one of them');
    if (close?.stale_marker === true && close.snap_to === undefined)
      add(
        ['delay', 'close', 'stale_marker'],
        'the Prometheus staleness marker on close is not built: give snap_to (a last sample) instead, or stale_marker: false',
      );
  }
  if (snapTo && fields.signal_type !== undefined && fields.signal_type !== 'metrics') {
    add(snapTo, `not allowed on a ${fields.signal_type} entry (only metrics entries have a value to snap to)`);
  }
  if (
    has('exemplars') &&
    fields.signal_type === 'metrics' &&
    !failed('metric_type', 'generator') &&
    defaultMetricType(fields, 'metrics') !== 'counter'
  )
    add(['exemplars'], 'a metrics entry carries exemplars only as a counter (metric_type: counter)');
  if (fields.jitter && fields.metric_type === 'counter')
    add(
      ['jitter'],
      'not allowed on a counter: the noise makes its samples go down, which Prometheus reads as resets (rate() and increase() jump by the whole value); give metric_type: gauge, or leave out jitter',
    );
  const lowest =
    fields.metric_type === 'counter' && fields.generator !== undefined ? lowestValue(fields.generator) : undefined;
  if (lowest !== undefined && lowest < 0)
    add(
      ['generator'],
      `${Number.isFinite(lowest) ? `goes down to ${lowest}` : 'goes down without end (a negative step_size and no max)'} ${NEGATIVE_COUNTER}, or a generator that stays at 0 or above`,
    );
  // Observations of both infinities would make _sum NaN, which rate() and every reader of the sum then carries.
  if (
    fields.distribution !== undefined &&
    !(observationReach(fields.distribution, fields.duration ?? MAX_DURATION_MS) <= Number.MAX_VALUE)
  )
    add(
      ['distribution'],
      `observations would go beyond ±1.8e308, the largest finite number, ${fields.duration === undefined ? `within ${MAX_DURATION_DAYS} days (no duration)` : 'within the duration'} (they reach |mean| + ${NORMAL_REACH.toFixed(1)} × stddev, or ${EXPONENTIAL_REACH.toFixed(1)} / rate, plus |mean_shift_per_sec| × the time): written as ±Inf, they would make _sum NaN; give parameters of a smaller magnitude`,
    );
  if (has('phase_offset') && has('after'))
    add(['after'], 'not allowed together with phase_offset (an entry starts after a delay or on a trigger, not both)');

  const signal = fields.signal_type;
  if (!signal) return issues;
  const types = signal === 'logs' || signal === 'traces' ? undefined : METRIC_TYPES_OF[signal];
  if (fields.metric_type && types && !types.includes(fields.metric_type))
    add(
      ['metric_type'],
      `${fields.metric_type} does not fit a ${signal} entry, whose samples ${signal === 'metrics' ? 'are single values' : `are its ${signal}'s series set`}: give ${types.join(' or ')} (or leave it out)`,
    );
  for (const [field, signals] of Object.entries(FIELD_SIGNALS)) {
    if (has(field as EntryField) && !signals.includes(signal))
      add([field], `not allowed on a ${signal} entry (only on ${signals.join(' and ')} entries)`);
  }
  const source = SOURCE_FIELD[signal];
  if (!has(source) && !(source === 'generator' && has('pack')))
    add([source], `missing required field (a ${signal} entry needs it)`);
  // Pairing, and the series an entry may keep state for, need both types.
  const sink = failed('encoder', 'sink') ? undefined : (fields.sink ?? { type: 'stdout' as const });
  const encoder = sink && (fields.encoder?.type ?? defaultEncoder(signal, sink.type));
  issues.push(...costIssues(fields, signal, encoder), ...ownLabelIssues(fields, signal));

  // Where a run would fail first: validation refuses what this build cannot run (whatever else
  // is wrong with the sink), so --dry-run, run and the server all stop here with the same message.
  for (const field of ['encoder', 'sink'] as const) {
    const refusal = unbuiltRefusal(field, isMapping(raw[field]) ? raw[field].type : undefined);
    if (refusal) add([field, 'type'], refusal, 'feature_not_built');
  }

  // Span metrics without a sink of their own go to the entry's.
  if (signal === 'traces' && fields.span_metrics && (fields.span_metrics.sink || !failed('sink')))
    issues.push(...spanMetricsIssues(fields.span_metrics, fields.sink, fields.start_time, encoder));

  if (!sink || !encoder) return issues;
  for (const problem of pairing(signal, encoder, sink).problems) add(problem.path, problem.message);
  issues.push(...encoderLabelIssues(fields, encoder));
  const before1970 =
    fields.start_time && startTimeRefusal(encoder, fields.start_time, Date.now(), pairsWith(signal, sink));
  if (before1970) add(['start_time'], before1970);
  // Metric lines go in streams of their labels too (a histogram's _sum and _count have no le); a pack's metrics and a
  // CSV's columns may bring labels of their own, checked once they are known (lib/compile).
  if (
    signal !== 'traces' &&
    !has('pack') &&
    fields.generator?.type !== 'csv_replay' &&
    !failed('labels', 'dynamic_labels')
  ) {
    const refusal = unlabelledStreamRefusal(sink.type, fields.labels ?? {}, fields.dynamic_labels);
    if (refusal) add(['labels'], refusal);
  }
  const nativeOnly = signal === 'histogram' && has('native') && !has('buckets') && nativeRefusal(encoder);
  if (nativeOnly) add(['native'], nativeOnly);
  return issues;
}

/**
 * Why events of `labels` and `dynamic` cannot go to a sink of `sinkType`: a log store refuses a stream without labels
 * (400), so every push would fail; said before the run (a file's entry) or the request (`POST /events`) instead. A
 * label whose value is empty is no label (`seriesOf` leaves it out), a rotating list's `""` included. An event whose
 * every label is empty is refused with its whole push, the labelled events beside it too: so a list that can be
 * `""` is refused as well unless another label always has a value (a static one no rotating label of its key
 * overrides, a counter, a list without `""`).
 */
export function unlabelledStreamRefusal(
  sinkType: string,
  labels: Readonly<Record<string, string>>,
  dynamic: readonly DynamicLabel[] = [],
): string | undefined {
  if (sinkType !== 'logstore') return undefined;
  // A rotating label overrides a static one of its key, so that static value is not always written.
  const rotating = new Set(dynamic.map(({ key }) => key));
  if (Object.entries(labels).some(([key, value]) => value !== '' && !rotating.has(key))) return undefined;
  if (dynamic.some((label) => label.form === 'counter' || !label.values.includes(''))) return undefined;
  const fix = 'add one that always has a value, e.g. labels: {job: <name>}';
  const sometimes = dynamic.filter((label) => label.form === 'list' && !isEmptyLabel(label)).map(({ key }) => key);
  if (sometimes.length)
    return `the logstore sink needs a label on every event (the log store refuses a stream without labels, and the whole push it is in): ${sometimes.join(', ')} can be empty, and an empty value is no label; ${fix}`;
  const empty = [...new Set([...Object.keys(labels), ...rotating])];
  const why = empty.length
    ? `; an empty value, as ${empty.join(', ')} ${empty.length === 1 ? 'has' : 'have'}, is no label`
    : '';
  return `the logstore sink needs at least one label (the log store refuses a stream without labels${why}): add one, e.g. labels: {job: <name>}`;
}

/** A rotating label that is never written: a list whose every value is empty (an empty value is no label). */
export function isEmptyLabel(label: DynamicLabel): boolean {
  return label.form === 'list' && label.values.every((value) => value === '');
}

/**
 * The label a signal type writes on its own samples, and what it holds there: a histogram's buckets carry `le`, a
 * summary's quantiles `quantile`. Prometheus' client libraries refuse it as a user label: a histogram's `_bucket`
 * samples would lose it and its `_sum` and `_count` keep it (`le="x"`, which no parser reads as a bound).
 */
export const OWN_LABEL: Partial<Record<SignalType, readonly [label: string, samples: string]>> = {
  histogram: ['le', 'bucket samples carry le, their bound'],
  summary: ['quantile', 'quantile samples carry quantile'],
};

/** Where an entry names the label its signal type writes itself, static, rotating or spiking. */
function ownLabelIssues(fields: EntryFields, signal: SignalType): Issue[] {
  const own = OWN_LABEL[signal];
  if (own === undefined) return [];
  const [label, samples] = own;
  return labelIssues(fields, label, `not allowed on a ${signal} entry (its ${samples}): give the label another name`);
}

/**
 * Where an entry (or a `POST /events` event, its static `labels` only) names a label its encoder cannot write
 * (influx_lp: `time`).
 */
export function encoderLabelIssues(
  fields: Pick<EntryFields, 'labels' | 'dynamic_labels' | 'cardinality_spikes'>,
  encoder: EncoderType,
): Issue[] {
  const reserved = encoderKindOf(encoder)?.reservedLabels ?? {};
  return Object.entries(reserved).flatMap(([label, why]) =>
    labelIssues(fields, label, `not allowed with the ${encoder} encoder (${why}): give the label another name`),
  );
}

/**
 * Every place an entry names `label`: static, rotating or spiking. A static label of an empty value and a list whose
 * values are all empty are no label (no encoder writes them), so they name nothing (`--label time=`).
 */
function labelIssues(
  fields: Pick<EntryFields, 'labels' | 'dynamic_labels' | 'cardinality_spikes'>,
  label: string,
  message: string,
): Issue[] {
  return [
    ...(fields.labels && Object.hasOwn(fields.labels, label) && fields.labels[label] !== ''
      ? [{ path: ['labels', label], message }]
      : []),
    ...(fields.dynamic_labels ?? []).flatMap((dynamic, i) =>
      dynamic.key === label && !isEmptyLabel(dynamic) ? [{ path: ['dynamic_labels', i, 'key'], message }] : [],
    ),
    ...(fields.cardinality_spikes ?? []).flatMap((spike, i) =>
      spike.label === label ? [{ path: ['cardinality_spikes', i, 'label'], message }] : [],
    ),
  ];
}

/** A histogram's classic buckets: its own, the default ones, or none when it asks for a native histogram only. */
function classicBuckets(fields: EntryFields): readonly number[] | undefined {
  return fields.buckets ?? (fields.native ? undefined : DEFAULT_BUCKETS);
}

/**
 * An encoder and a sink on an entry (or event) of `signal`: what is wrong with them together
 * (an encoder of one protocol on another sink and the reverse, a signal the encoder or the sink
 * does not carry, a sink field the signal decides), and the sink fitted to the signal. Validation
 * and POST /events both ask this.
 */
export function pairing(
  signal: SignalType,
  encoderType: EncoderType,
  config: SinkConfig,
): { problems: { path: string[]; message: string }[]; sink: SinkConfig } {
  const problems = encoderSinkProblems(signal, encoderType, config);
  const fitted = fitSink(signal, config);
  if ('message' in fitted) problems.push({ path: ['sink', ...fitted.path], message: fitted.message });
  return { problems, sink: 'message' in fitted ? config : fitted };
}

/** Whether encoder `other` pairs with sink `config` on an entry of `signal`: the encoders {@link startTimeRefusal} may advise. */
function pairsWith(signal: SignalType, config: SinkConfig): (other: EncoderType) => boolean {
  return (other) => encoderSinkProblems(signal, other, config).length === 0;
}

/** What is wrong with an encoder and a sink together on an entry of `signal`, leaving out the sink's fields alone. */
function encoderSinkProblems(
  signal: SignalType,
  encoderType: EncoderType,
  config: SinkConfig,
): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const sink = sinkKindOf(config.type)!;
  const encoder = encoderKindOf(encoderType)!;
  if (encoder.sinks && !encoder.sinks.includes(sink.type))
    problems.push({
      path: ['encoder', 'type'],
      message: `the ${encoderType} encoder needs the ${encoder.sinks.join(' or ')} sink, got sink ${sink.type}`,
    });
  if (sink.encoders && !sink.encoders.includes(encoderType))
    problems.push({
      path: ['sink', 'type'],
      message: `the ${sink.type} sink needs the ${sink.encoders.join(' or ')} encoder, got encoder ${encoderType}`,
    });
  const family = familyOf(signal);
  const refusal = encodingRefusal(encoderType, family, `a ${signal} entry`);
  if (refusal) problems.push({ path: ['encoder', 'type'], message: `${encoderType} ${refusal}` });
  // An encoder bound to sinks that carry the signal (zipkin_json on a file) is refused here, not through them.
  else if (!encoder.carries.includes(family) && sink.carries.includes(family))
    problems.push({
      path: ['encoder', 'type'],
      message: `${encoderType} encodes ${encoder.carries.join(' and ')} only, not a ${signal} entry`,
    });
  if (!sink.carries.includes(family))
    problems.push({
      path: ['sink', 'type'],
      message: `${sink.type} carries ${sink.carries.join(' and ')} only, not a ${signal} entry`,
    });
  const sinkIssue = encoder.sinkIssue?.(config);
  if (sinkIssue) problems.push({ path: ['sink', ...sinkIssue.path], message: sinkIssue.message });
  return problems;
}

/**
 * What is wrong with where a traces entry's span metrics go: their own sink, else the entry's, which must then send
 * each signal where it belongs (an OTLP sink); their encoder with that sink and the entry's `start`, said under
 * start_time (the user wrote no span_metrics.encoder) and once only when it is the entry's own `entryEncoder`.
 */
function spanMetricsIssues(
  config: SpanMetricsConfig,
  entrySink: SinkConfig | undefined,
  start: StartTime | undefined,
  entryEncoder: EncoderType | undefined,
): Issue[] {
  const sink = config.sink ?? entrySink ?? { type: 'stdout' as const };
  // Only a sink whose signal decides where it sends (OTLP: /v1/traces, /v1/metrics) takes both.
  if (!config.sink && !sinkKindOf(sink.type)!.fit)
    return [
      {
        path: ['span_metrics'],
        message: `the entry's ${sink.type} sink would mix spans and metrics: give span_metrics a sink (an OTLP sink sends each where it belongs)`,
      },
    ];
  const encoder = config.encoder?.type ?? defaultEncoder('metrics', sink.type);
  const problems = pairing('metrics', encoder, sink).problems;
  // Each service's span metrics go under its resource, as its spans do (the entry's sink has none: traces).
  if (config.sink && 'resource' in config.sink && config.sink.resource !== undefined)
    problems.push({
      path: ['sink', 'resource'],
      message: "not allowed for span metrics: each service's metrics carry its resource from trace_generator.services",
    });
  const issues: Issue[] = problems.map(({ path, message }) => ({ path: ['span_metrics', ...path], message }));
  const before1970 =
    start &&
    encoder !== entryEncoder &&
    startTimeRefusal(encoder, start, Date.now(), pairsWith('metrics', sink), "span metrics'");
  if (before1970) issues.push({ path: ['start_time'], message: before1970 });
  return issues;
}

/**
 * The sink with the fields its kind lets the entry's signal decide (an OTLP sink's signal_type), or why it
 * cannot take them.
 */
export function fitSink(signal: SignalType, config: SinkConfig): SinkConfig | SinkIssue {
  return sinkKindOf(config.type)!.fit?.(config, signal) ?? config;
}

/**
 * What the entry asks of the runtime each second, and the series it keeps in memory, against the
 * limits (lib/language/limits.ts). Fields that failed to decode are left out; absent ones take
 * their defaults.
 */
function costIssues(fields: EntryFields, signal: SignalType, encoder: EncoderType | undefined): Issue[] {
  const issues: Issue[] = [];
  if (fields.rate === undefined) return issues;
  const shape = {
    signal_type: signal,
    buckets: classicBuckets(fields),
    quantiles: fields.quantiles ?? DEFAULT_QUANTILES,
    native: signal === 'histogram' ? fields.native : undefined,
  };
  const dynamic = fields.dynamic_labels ?? [];
  const { sets, samples, series } = seriesCount({
    ...shape,
    trace_generator: fields.trace_generator,
    dynamic_labels: dynamic,
    cardinality_spikes: fields.cardinality_spikes,
  });
  const what = signal === 'traces' ? 'spans' : 'samples';
  const multiplier = Math.max(1, fields.bursts?.multiplier ?? 1);
  const peak = fields.rate * multiplier;
  const atPeak = multiplier > 1 ? ' at the burst peak' : '';
  const factors = [`rate ${fields.rate}`, ...(multiplier > 1 ? [`× multiplier ${multiplier}`] : [])];

  if (peak * samples > MAX_RATE) {
    const explained = signal === 'traces' ? 'at most, every repeat at its largest' : samplesExplained(shape);
    const perEvent = samples > 1 ? [`× ${samples} ${what} per event (${explained})`] : [];
    issues.push({
      path: multiplier > 1 && samples === 1 ? ['bursts', 'multiplier'] : ['rate'],
      message: `${[...factors, ...perEvent].join(' ')} is ${peak * samples} ${what} per second${atPeak}; the limit is ${MAX_RATE}`,
    });
  }
  if (signal === 'histogram' || signal === 'summary') {
    const perTick = fields.observations_per_tick ?? DEFAULT_OBSERVATIONS_PER_TICK;
    if (peak * perTick > MAX_OBSERVATIONS_PER_SECOND) {
      issues.push({
        path: ['observations_per_tick'],
        message: `${factors.join(' ')} × ${perTick} observations per tick is ${peak * perTick} observations per second${atPeak}; the limit is ${MAX_OBSERVATIONS_PER_SECOND}`,
      });
    }
  }
  // An OTLP counter (a Sum) keeps each series' last point and start time, as a histogram its running totals.
  const otlpSum = encoder === 'otlp' && fields.metric_type === 'counter';
  const maxSeries = signal === 'histogram' || signal === 'summary' || otlpSum ? MAX_SERIES_WITH_STATE : MAX_SERIES;
  if (series > maxSeries) {
    const [count, shown] =
      sets < COUNTED_LABEL_SETS
        ? [`up to ${sets}`, `${series}`]
        : [`more than ${COUNTED_LABEL_SETS}`, `more than ${COUNTED_LABEL_SETS}`];
    issues.push({
      path: [dynamic.length ? 'dynamic_labels' : 'cardinality_spikes'],
      message:
        `the dynamic labels and cardinality spikes make ${count} label sets × ${samples} sample${samples === 1 ? '' : 's'} per event` +
        ` = ${shown} series; the limit is ${maxSeries}${otlpSum ? ' for a counter the otlp encoder writes (it keeps the last point of each series)' : ''}`,
    });
  }
  const maxBuckets = signal === 'histogram' && fields.native ? nativeOptions(fields.native).max_buckets : 0;
  if (sets * maxBuckets > MAX_NATIVE_BUCKET_STATE) {
    issues.push({
      path: ['native', 'max_buckets'],
      message:
        `${sets < COUNTED_LABEL_SETS ? `up to ${sets}` : `more than ${COUNTED_LABEL_SETS}`} label sets × max_buckets ${maxBuckets}` +
        ` is more than ${MAX_NATIVE_BUCKET_STATE} native buckets to keep; the limit is ${MAX_NATIVE_BUCKET_STATE}`,
    });
  }
  return issues;
}

/** `json_lines` for logs and traces, `metrics_text` otherwise, unless the sink takes only some encoders. */
export function defaultEncoder(signal: SignalType, sinkType: string): EncoderType {
  return (
    (sinkKindOf(sinkType)!.encoders?.[0] as EncoderType | undefined) ??
    (signal === 'logs' || signal === 'traces' ? 'json_lines' : 'metrics_text')
  );
}

/**
 * A step that counts up from 0 or more: a counter's shape. One that counts down or below 0 is a gauge: as a counter
 * it would write negative or falling `_total` samples, which OpenMetrics forbids and Prometheus reads as resets. An
 * entry's jitter makes it a gauge too (a pack metric's counters take none).
 */
export function countsUp(generator: EntryFields['generator']): boolean {
  return generator?.type === 'step' && generator.step_size >= 0 && (generator.start ?? 0) >= 0;
}

function defaultMetricType(fields: EntryFields, signal: SignalType): MetricType {
  if (signal === 'logs' || signal === 'traces') return 'untyped';
  if (fields.metric_type) return fields.metric_type;
  if (signal === 'metrics') return countsUp(fields.generator) && !fields.jitter ? 'counter' : 'gauge';
  return signal;
}

/** Only called when every rule passed, so the required fields are present. */
function normalise(fields: EntryFields): Entry {
  const signal = fields.signal_type!;
  const sink = fields.sink ?? { type: 'stdout' as const };
  const histogram = signal === 'histogram';
  const summary = signal === 'summary';
  return withoutUndefined({
    id: entryId(fields)!,
    signal_type: signal,
    name: fields.name,
    rate: fields.rate!,
    duration: fields.duration,
    start_time: fields.start_time ?? { kind: 'now' },
    generator: fields.generator,
    log_generator: fields.log_generator,
    trace_generator: fields.trace_generator,
    distribution: fields.distribution,
    buckets: histogram ? classicBuckets(fields) : undefined,
    native: histogram && fields.native ? nativeOptions(fields.native) : undefined,
    quantiles: summary ? (fields.quantiles ?? DEFAULT_QUANTILES) : undefined,
    observations_per_tick:
      histogram || summary ? (fields.observations_per_tick ?? DEFAULT_OBSERVATIONS_PER_TICK) : undefined,
    seed: histogram || summary ? (fields.seed ?? 0) : undefined,
    encoder: fields.encoder ?? { type: defaultEncoder(signal, sink.type) },
    // Validation passed, so the sink fits.
    sink: fitSink(signal, sink) as SinkConfig,
    labels: fields.labels ?? {},
    dynamic_labels: fields.dynamic_labels ?? [],
    jitter: fields.jitter,
    jitter_seed: fields.jitter_seed ?? 0,
    on_sink_error: fields.on_sink_error ?? 'warn',
    metric_type: defaultMetricType(fields, signal),
    // Log entries ignore annotations (specification).
    help: signal === 'logs' ? undefined : fields.help,
    gaps: fields.gaps,
    gap_windows: fields.gap_windows?.length ? fields.gap_windows : undefined,
    bursts: fields.bursts,
    cardinality_spikes: fields.cardinality_spikes ?? [],
    phase_offset: fields.phase_offset,
    clock_group: fields.clock_group,
    after: fields.after,
    while: fields.while && gateOf(fields.while, fields.delay),
    exemplars: fields.exemplars,
    trace_context: fields.trace_context,
    span_metrics: fields.span_metrics,
    pack: fields.pack,
    overrides: fields.overrides,
  });
}

/** A `native` field with its defaults (client_golang's choices: operators/histogram.ts). */
function nativeOptions(native: NativeConfig): Required<NativeConfig> {
  return {
    schema: native.schema ?? DEFAULT_NATIVE.schema,
    zero_threshold: native.zero_threshold ?? DEFAULT_NATIVE.zeroThreshold,
    max_buckets: native.max_buckets ?? DEFAULT_NATIVE.maxBuckets,
  };
}

/** Drops absent optional fields, so a normalised entry carries no `key: undefined`. */
function withoutUndefined<T extends object>(value: T): T {
  const defined: Partial<T> = {};
  for (const key in value) if (value[key] !== undefined) defined[key] = value[key];
  return defined as T;
}

/**
 * Why an `encoder` or `sink` of `type` cannot run here (its build feature's packages are not installed);
 * undefined when it can.
 */
export function unbuiltRefusal(field: 'encoder' | 'sink', type: unknown): string | undefined {
  const refusal = featureRefusal((field === 'sink' ? sinkKindOf(type) : encoderKindOf(type))?.feature);
  return refusal && `${type} ${refusal}`;
}

/** `while` with the reference tool's `delay` beside it folded in: its `open` and `close`, and `close.snap_to`. */
function gateOf(gate: While, delay: ReferenceDelay | undefined): While {
  if (!delay) return gate;
  const { open, close } = delay;
  const debounce = { ...(open !== undefined && { open }), ...(close && { close: close.duration }) };
  return {
    ...gate,
    ...(Object.keys(debounce).length && { delay: debounce }),
    ...(close?.snap_to !== undefined && { snap_to: close.snap_to }),
  };
}
