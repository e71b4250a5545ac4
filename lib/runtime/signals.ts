import { identity, of, tap, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { EncodedBatch, Labelled, SampleBatch, TickBatch } from '../../operators/model/batch.js';
import type { Delivery } from '../../operators/deliver.js';
import { generate } from '../../operators/generate.js';
import { generateLogs } from '../../operators/generate-logs.js';
import { observe } from '../../operators/observe.js';
import { histogram } from '../../operators/histogram.js';
import { summary } from '../../operators/summary.js';
import { jitter } from '../../operators/jitter.js';
import { gaps } from '../../operators/gaps.js';
import { gate, snapTo } from '../../operators/gate.js';
import { labels, rotationPeriod, type LabelOptions, type Shard } from '../../operators/labels.js';
import { encode } from '../../operators/encode.js';
import type { SlotPattern } from '../../operators/ticks.js';
import type { Entry } from '../config/types.js';
import { valueGenerator } from '../generators/value.js';
import { logGenerator } from '../generators/log.js';
import { distributionSampler } from '../generators/distribution.js';
import { createLogEncoder, createMetricEncoder } from '../encoders/index.js';
import { optional } from './schedule.js';

export interface SignalHooks {
  /** Sees every value batch of a metrics entry after jitter, before gaps (for `after` triggers). */
  readonly onValues?: (batch: SampleBatch) => void;
  /** Sees every labelled sample batch of a metrics, histogram or summary entry, as encoded (for scrape buffers). */
  readonly onSamples?: (batch: Labelled<SampleBatch>) => void;
  /** Sees every outcome of the entry's sink after the statistics counted it (for sink health logs). */
  readonly onDelivery?: (delivery: Delivery) => void;
}

/** How an entry's pipeline is built: its hooks, and the shard of its series it emits. */
export interface PipelineOptions extends SignalHooks {
  /** Emit only this shard's series (svc-server --shard); default: all of them. */
  readonly shard?: Shard;
  /** The slots the entry's timer emits when they are only the shard's ({@link shardSlots}): the labels then keep every tick. */
  readonly slots?: SlotPattern;
  /** Whether a `while` entry's condition holds, as the watched entry's values arrive; required with `while`. */
  readonly condition?: Observable<boolean>;
  /** Times the `while` delays. */
  readonly scheduler?: SchedulerLike;
}

/** An entry the runtime cannot run (a configuration the validator let through by mistake). */
export class UnsupportedEntryError extends Error {}

/**
 * The signal-specific middle of an entry's chain, from due ticks to encoded chunks. Every
 * signal type shares the same shape and the same schedule and label operators:
 *
 * - metrics:   generate → jitter → gate → gaps → labels → encode
 * - logs:      generateLogs → gate → gaps → labels → encode
 * - histogram: observe → gate → gaps → labels → histogram (cumulative per label set) → encode
 * - summary:   observe → gate → gaps → labels → summary → encode
 *
 * The gate (`while`) is there only on entries that have one. A sharded entry nothing watches
 * takes its labels first (before generate, generateLogs or observe), dropping the other shards'
 * ticks before any value is made.
 *
 * Histogram and summary state is kept per label set, after the labels are known, and only
 * from ticks that survive the gaps: silence records nothing.
 */
export function signalPipeline(entry: Entry, hooks: PipelineOptions = {}): OperatorFunction<TickBatch, EncodedBatch> {
  const labelled = labelOptions(entry, hooks.slots ? undefined : hooks.shard);
  const silence = <B extends TickBatch>() => optional(entry.gaps && gaps<B>(entry.gaps));
  const gated = <B extends TickBatch>(snap?: (batch: B) => B) =>
    optional(
      entry.while && gate<B>(whileCondition(entry, hooks), { ...entry.while.delay, snap, scheduler: hooks.scheduler }),
    );
  const name = required(entry, 'name', entry.name);
  const meta = { name, metricType: entry.metric_type, help: entry.help };
  const samplesSeen = optional(hooks.onSamples && tap<Labelled<SampleBatch>>(hooks.onSamples));
  // A sharded entry whose values nothing watches (no `after` or `while` on it) takes its labels
  // first, so the other shards' ticks are dropped before their values are made: a shard then
  // generates only its own series. A watched entry makes every value on every shard, which all
  // must see the same values.
  const labelsFirst = hooks.shard !== undefined && !hooks.onValues;
  // (With `slots` the timer emits only this shard's ticks already: see shardSlots.)
  const early = <B extends TickBatch>(): OperatorFunction<B, B> => (labelsFirst ? labels<B>(labelled) : identity);
  // The series were attached by `early` then.
  const late = <B extends TickBatch>(): OperatorFunction<B, Labelled<B>> =>
    labelsFirst ? (identity as OperatorFunction<B, Labelled<B>>) : labels<B>(labelled);

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
          samplesSeen,
          encode(createMetricEncoder(entry.encoder, meta)),
        );
    }
    case 'logs': {
      const generator = logGenerator(required(entry, 'log_generator', entry.log_generator));
      const encoder = createLogEncoder(entry.encoder);
      return (ticks) => ticks.pipe(early(), generateLogs(generator), gated(), silence(), late(), encode(encoder));
    }
    case 'histogram':
    case 'summary': {
      const sample = distributionSampler(required(entry, 'distribution', entry.distribution), entry.seed ?? 0);
      const series = entry.signal_type === 'histogram' ? histogram(entry.buckets) : summary(entry.quantiles);
      const encoder = createMetricEncoder(entry.encoder, meta);
      return (ticks) =>
        ticks.pipe(
          early(),
          observe(sample, entry.observations_per_tick ?? 100),
          gated(),
          silence(),
          late(),
          series,
          samplesSeen,
          encode(encoder),
        );
    }
  }
}

/** Longest cycle of label sets a shard's slot pattern is worked out for: the pattern holds up to one number per slot of the cycle. */
const MAX_SHARD_PERIOD = 1 << 16;

/**
 * The slots whose ticks a sharded entry's timer emits, so that a shard walks only its own ticks:
 * undefined (every slot) for an entry not sharded, or whose values something watches (every
 * shard makes every value), or with cardinality spikes (their labels follow time, not the slot
 * number), or whose label sets repeat only after more than {@link MAX_SHARD_PERIOD} slots.
 *
 * A rotating label's value on tick n is a function of n modulo its cardinality, so the label sets
 * repeat every `period` slots (the least common multiple of the cardinalities) and so does the
 * set of ticks the labels keep for the shard (series numbered in the order they first appear, or
 * hashed, either way the same in every cycle). The labels operator itself, given the ticks of one
 * cycle, says which they are.
 */
export function shardSlots(entry: Entry, options: PipelineOptions): SlotPattern | undefined {
  if (options.shard === undefined || options.onValues || entry.cardinality_spikes.length > 0) return undefined;
  const period = rotationPeriod(entry.dynamic_labels);
  if (period > MAX_SHARD_PERIOD) return undefined;
  const cycle: TickBatch = {
    size: period,
    anchor: 0,
    index: Float64Array.from({ length: period }, (_, n) => n),
    offset: new Float64Array(period),
  };
  let residues: readonly number[] = [];
  of(cycle)
    .pipe(labels(labelOptions(entry, options.shard)))
    .subscribe((kept) => (residues = Array.from(kept.index)));
  return { period, residues };
}

/** The labels operator's options for an entry, emitting `shard`'s series only when given one. */
export function labelOptions(entry: Entry, shard?: Shard): LabelOptions {
  return { static: entry.labels, dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes, shard };
}

/** The condition a `while` entry's gate follows: only the entries run together can feed it (file-run.ts). */
function whileCondition(entry: Entry, hooks: PipelineOptions): Observable<boolean> {
  if (!hooks.condition)
    throw new UnsupportedEntryError(
      `${entry.id}: a while gate watches another entry; run the entries of its file together (startEntries)`,
    );
  return hooks.condition;
}

function required<T>(entry: Entry, field: string, value: T | undefined): T {
  if (value === undefined)
    throw new UnsupportedEntryError(`${entry.id}: ${field} is required for signal_type ${entry.signal_type}`);
  return value;
}
