import { defer, identity, tap, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { Labelled, LogBatch, ObservationBatch, SampleBatch, TickBatch } from '../../../operators/model/batch.js';
import { REQUEST_SPAN_KINDS, type SpanBatch } from '../../../operators/model/span.js';
import type { Delivery } from '../../../operators/deliver.js';
import { generate } from '../../../operators/generate.js';
import { generateLogs } from '../../../operators/generate-logs.js';
import { generateTraces } from '../../../operators/generate-traces.js';
import { observe } from '../../../operators/observe.js';
import { histogram } from '../../../operators/histogram.js';
import { nativeHistogram } from '../../../operators/native-histogram.js';
import { summary } from '../../../operators/summary.js';
import { exemplars } from '../../../operators/exemplars.js';
import { traceContext } from '../../../operators/trace-context.js';
import { spanMetrics } from '../../../operators/span-metrics.js';
import { jitter } from '../../../operators/jitter.js';
import { silences } from '../../../operators/gaps.js';
import { gate, snapTo, type Reading } from '../../../operators/gate.js';
import { labels, type Shard } from '../../../operators/labels.js';
import type { SlotPattern } from '../../../operators/ticks.js';
import type { Entry } from '../../config/types.js';
import { valueGenerator } from '../../generators/value.js';
import { logGenerator } from '../../generators/log.js';
import { traceGenerator } from '../../generators/trace.js';
import { distributionSampler } from '../../generators/distribution.js';
import { timeUnitsPerSecond } from '../../protocols/metric-units.js';
import type { SignalBatch } from './encoder.js';
import { labelOptions } from './labels.js';
import { optional } from './optional.js';
import { required, UnsupportedEntryError } from './unsupported.js';

export interface SignalHooks {
  /** Sees every value batch of a metrics entry after jitter, before gaps (for `after` triggers). */
  readonly onValues?: (batch: SampleBatch) => void;
  /**
   * Sees every labelled sample batch of a metrics, histogram or summary entry, as the encoder gets them (for
   * scrape buffers).
   */
  readonly onSamples?: (batch: Labelled<SampleBatch>) => void;
  /** Sees every outcome of the entry's sink after the statistics counted it (for sink health logs). */
  readonly onDelivery?: (delivery: Delivery) => void;
  /** Sees every span batch of a traces entry (for the exemplars and log records of entries naming its spans). */
  readonly onSpans?: (batch: SpanBatch) => void;
  /** Sees every labelled log record batch of a logs entry, as the encoder gets them (for previews). */
  readonly onLogs?: (batch: Labelled<LogBatch>) => void;
  /**
   * Sees every labelled observation batch of a histogram or summary entry, the observations its rows are made
   * of (for previews).
   */
  readonly onObservations?: (batch: Labelled<ObservationBatch>) => void;
  /** Told each time the `while` gate of the entry opens (true) or closes (false), on the entry's scheduler. */
  readonly onGate?: (open: boolean) => void;
}

/** How an entry's pipeline is built: its hooks, and the shard of its series it emits. */
export interface PipelineOptions extends SignalHooks {
  /** Emit only this shard's series (svc-server --shard); default: all of them. */
  readonly shard?: Shard;
  /**
   * The slots the entry's timer emits when they are only the shard's (shardSlots, timer.ts): the labels then
   * keep every tick.
   */
  readonly slots?: SlotPattern;
  /** Whether a `while` entry's condition holds, as the watched entry's values arrive; required with `while`. */
  readonly condition?: Observable<Reading>;
  /** Times the `while` delays. */
  readonly scheduler?: SchedulerLike;
  /**
   * The span batches of the traces entry the entry's `exemplars.from` or `trace_context.from` names; required
   * with either.
   */
  readonly spans?: Observable<SpanBatch>;
}

/**
 * The signal stage of an entry's chain, from due ticks to labelled batches (the encoder of
 * encoder.ts takes them on). Every signal type shares the same shape and the same schedule and
 * label operators:
 *
 * - metrics:   generate → jitter → gate → gaps → labels
 * - logs:      generateLogs → gate → gaps → labels
 * - histogram: observe → gate → gaps → labels → histogram (cumulative per label set; its native
 *              histogram too, or nativeHistogram alone)
 * - summary:   observe → gate → gaps → labels → summary
 * - traces:    gate → gaps → generateTraces (spans carry attributes and resources, not labels; a
 *              trace is made only for a tick the gate and the gaps keep)
 * - the span metrics of a traces entry (lib/compile/span-metrics.ts): spanMetrics, each tick writing
 *              what the traces entry's spans added up to
 *
 * The gate (`while`) is there only on entries that have one. A sharded entry nothing watches
 * takes its labels first (before generate, generateLogs or observe), dropping the other shards'
 * ticks before any value is made.
 *
 * `gaps` is both silences, one stage: the recurring `gaps` and the one-shot `gap_windows`.
 *
 * Histogram and summary state is kept per label set, after the labels are known, and only
 * from ticks that survive the gaps: silence records nothing.
 */
export function signalPipeline(entry: Entry, hooks: PipelineOptions = {}): OperatorFunction<TickBatch, SignalBatch> {
  const labelled = labelOptions(entry, hooks.slots ? undefined : hooks.shard);
  const silence = <B extends TickBatch>(): OperatorFunction<B, B> => silences<B>(entry.gaps, entry.gap_windows);
  const gated = <B extends TickBatch>(snap?: (batch: B) => B) =>
    optional(
      entry.while &&
        gate<B>(whileCondition(entry, hooks), {
          ...entry.while.delay,
          snap,
          scheduler: hooks.scheduler,
          onEdge: hooks.onGate,
        }),
    );
  const samplesSeen = optional(hooks.onSamples && tap<Labelled<SampleBatch>>(hooks.onSamples));
  // A sharded entry whose values nothing watches (no `after` or `while` on it) takes its labels
  // first, so the other shards' ticks are dropped before their values are made: a shard then
  // generates only its own series. A watched entry makes every value on every shard, which all
  // must see the same values.
  const labelsFirst = hooks.shard !== undefined && !hooks.onValues;
  // (With `slots` the timer emits only this shard's ticks already: see shardSlots in timer.ts.)
  const early = <B extends TickBatch>(): OperatorFunction<B, B> => (labelsFirst ? labels<B>(labelled) : identity);
  // The series were attached by `early` then.
  const late = <B extends TickBatch>(): OperatorFunction<B, Labelled<B>> =>
    labelsFirst ? (identity as OperatorFunction<B, Labelled<B>>) : labels<B>(labelled);

  if (entry.span_metrics_of) {
    const { from, ...options } = entry.span_metrics_of;
    const ends = { scheduler: hooks.scheduler, ...(entry.duration !== undefined && { end: entry.duration }) };
    return (ticks) =>
      ticks.pipe(spanMetrics(spansOf(entry, 'span_metrics', hooks), { ...options, ...ends }), samplesSeen);
  }
  switch (entry.signal_type) {
    case 'metrics': {
      const generator = valueGenerator(required(entry, 'generator', entry.generator));
      return (ticks) =>
        ticks.pipe(
          early(),
          generate(generator),
          optional(entry.jitter !== undefined && jitter<SampleBatch>(entry.jitter, entry.jitter_seed)),
          optional(hooks.onValues && tap<SampleBatch>(hooks.onValues)),
          gated<SampleBatch>(entry.while?.snap_to === undefined ? undefined : snapTo(entry.while.snap_to)),
          silence<SampleBatch>(),
          late<SampleBatch>(),
          withExemplars(entry, hooks),
          samplesSeen,
        );
    }
    case 'logs': {
      const generator = logGenerator(required(entry, 'log_generator', entry.log_generator));
      const context = entry.trace_context;
      return (ticks) =>
        ticks.pipe(
          early(),
          generateLogs(generator),
          gated(),
          silence(),
          late(),
          optional(
            context &&
              traceContext<Labelled<LogBatch>>(spansOf(entry, 'trace_context', hooks), {
                ...context,
                ...(context.service !== undefined && { choice: { service: context.service } }),
              }),
          ),
          optional(hooks.onLogs && tap<Labelled<LogBatch>>(hooks.onLogs)),
        );
    }
    case 'traces': {
      const generator = traceGenerator(required(entry, 'trace_generator', entry.trace_generator), entry.id);
      return (ticks) =>
        ticks.pipe(
          early(),
          gated(),
          silence(),
          generateTraces(generator),
          optional(hooks.onSpans && tap<SpanBatch>(hooks.onSpans)),
        );
    }
    case 'histogram':
    case 'summary': {
      const sample = distributionSampler(required(entry, 'distribution', entry.distribution), entry.seed ?? 0);
      const series = entry.signal_type === 'histogram' ? histogramRows(entry) : summary(entry.quantiles);
      const perTick = entry.observations_per_tick ?? 100;
      return (ticks) =>
        defer(() => {
          // A random exemplar is worth the tick's first observation: the one drawn for the batch its event came from
          // (an event a tick, in order), else drawn again (the same number). Kept per subscription, as the batch's
          // two columns: read through the batch, whose shape differs with the operators before, each exemplar paid
          // two megamorphic property loads (docs/performance.md).
          let observedIndex: ObservationBatch['index'] = NOTHING_OBSERVED.index;
          let observedValues = NOTHING_OBSERVED.observations;
          // Only exemplars worth an observation read it: not those worth their spans' durations.
          const keepsObserved = entry.exemplars !== undefined && spanDurationUnits(entry) === undefined;
          const firstObservation = (index: number, offset: number, event: number) =>
            observedIndex[event] === index && perTick > 0
              ? observedValues[event]![0]!
              : sample(index * perTick, offset);
          return ticks.pipe(
            early(),
            observe(sample, perTick),
            gated(),
            silence(),
            late(),
            optional<Labelled<ObservationBatch>>(
              (hooks.onObservations !== undefined || keepsObserved) &&
                tap((batch) => {
                  if (keepsObserved) {
                    observedIndex = batch.index;
                    observedValues = batch.observations;
                  }
                  hooks.onObservations?.(batch);
                }),
            ),
            series,
            withExemplars(entry, hooks, firstObservation),
            samplesSeen,
          );
        });
    }
  }
}

/** The observations a histogram's or summary's exemplars read before any batch came: none. */
const NOTHING_OBSERVED: Pick<ObservationBatch, 'index' | 'observations'> = {
  index: new Float64Array(0),
  observations: [],
};

/** The exemplars of an entry that has `exemplars`: of the spans of its `from`, else with random ids. */
function withExemplars(
  entry: Entry,
  hooks: PipelineOptions,
  value?: (index: number, offset: number, event: number) => number,
): OperatorFunction<Labelled<SampleBatch>, Labelled<SampleBatch>> {
  const config = entry.exemplars;
  if (!config) return identity;
  const { from, service, ...due } = config;
  const unitsPerSecond = spanDurationUnits(entry);
  return exemplars({
    ...due,
    value,
    ...(unitsPerSecond === undefined ? { spanDurations: false } : { unitsPerSecond }),
    ...(from !== undefined && { spans: spansOf(entry, 'exemplars', hooks) }),
    ...(service !== undefined && { choice: { service, kinds: REQUEST_SPAN_KINDS } }),
  });
}

/**
 * The unit, in units a second, of the span durations an entry's exemplars are worth: the time its name ends with
 * (a `_milliseconds` histogram's in ms; seconds for a name without a unit). Undefined when they are worth the event's
 * observation, as an SDK records one: random exemplars, and a metric whose unit is no time (`_bytes`), whose span
 * gives only the ids.
 */
function spanDurationUnits(entry: Entry): number | undefined {
  return entry.exemplars?.from === undefined ? undefined : timeUnitsPerSecond(entry.name ?? '');
}

/** The spans a `from` names: only the entries run together can feed them (file-run.ts). */
function spansOf(
  entry: Entry,
  field: 'exemplars' | 'trace_context' | 'span_metrics',
  hooks: PipelineOptions,
): Observable<SpanBatch> {
  if (!hooks.spans)
    throw new UnsupportedEntryError(
      `${entry.id}: ${field === 'span_metrics' ? 'span metrics count' : `${field}.from names`} the spans of another entry; run the entries of its file together (startEntries)`,
    );
  return hooks.spans;
}

/** A histogram entry's rows: its classic buckets, its native histogram, or both. */
function histogramRows(entry: Entry): OperatorFunction<Labelled<ObservationBatch>, Labelled<SampleBatch>> {
  const native = entry.native && {
    schema: entry.native.schema,
    zeroThreshold: entry.native.zero_threshold,
    maxBuckets: entry.native.max_buckets,
  };
  if (!native) return histogram(entry.buckets);
  return entry.buckets ? histogram(entry.buckets, { native }) : nativeHistogram(native);
}

/** The condition a `while` entry's gate follows: only the entries run together can feed it (file-run.ts). */
function whileCondition(entry: Entry, hooks: PipelineOptions): Observable<Reading> {
  if (!hooks.condition)
    throw new UnsupportedEntryError(
      `${entry.id}: a while gate watches another entry; run the entries of its file together (startEntries)`,
    );
  return hooks.condition;
}
