/**
 * The fields of an entry: the scenario language's field codecs (lib/language/fields.ts) with the
 * sink and encoder unions of the kind registries, which build on the same field codecs.
 */
import * as t from 'io-ts';
import { andThen, atLeast, atMost, integer, list, matching, nonEmptyString, nonNegative, oneOf, positive, record, strict, string, type Decoded } from '../language/combinators.js';
import { overrideGenerator } from '../language/aliases.js';
import type { MetricOverride } from './types.js';
import * as limits from '../language/limits.js';
import { encoderCodec } from '../encoders/kinds/index.js';
import { sinkCodec } from '../sinks/kinds/index.js';
import {
  after,
  buckets,
  cardinalitySpike,
  distribution,
  duration,
  dynamicLabels,
  gaps,
  bursts,
  countUpTo,
  generator,
  labels,
  logGenerator,
  metricName,
  metricType,
  NAME_PATTERN,
  quantiles,
  SIGNAL_TYPES,
  startTime,
  whileGate,
} from '../language/fields.js';

/**
 * `overrides` of a pack entry: per metric name, a generator (an operational alias allowed, its
 * noise becoming the metric's jitter) and labels replacing or joining the pack's.
 */
const overrides = record(
  matching(NAME_PATTERN, 'a metric name'),
  andThen(strict('metric override', {}, { generator: overrideGenerator, labels }), (o) => {
    const noise = o.generator?.noise;
    const override: MetricOverride = {
      ...(o.generator && { generator: o.generator.generator }),
      ...(o.labels && { labels: o.labels }),
      ...(noise && { jitter: noise.amount, ...(noise.seed !== undefined && { jitter_seed: noise.seed }) }),
    };
    return t.success(override);
  }),
);

/** Every field an entry may carry; which ones are required depends on the others (entry.ts). */
export const entryFields = {
  id: nonEmptyString,
  signal_type: oneOf(SIGNAL_TYPES),
  name: metricName,
  rate: atMost(atLeast(positive, limits.MIN_RATE, ' events per second'), limits.MAX_RATE, ' events per second'),
  duration,
  start_time: startTime,
  generator,
  log_generator: logGenerator,
  distribution,
  buckets,
  quantiles,
  observations_per_tick: countUpTo(limits.MAX_OBSERVATIONS_PER_TICK),
  seed: integer,
  encoder: encoderCodec,
  sink: sinkCodec,
  labels,
  dynamic_labels: dynamicLabels,
  jitter: nonNegative,
  jitter_seed: integer,
  on_sink_error: oneOf(['warn', 'fail']),
  metric_type: metricType,
  help: string,
  gaps,
  bursts,
  cardinality_spikes: list(cardinalitySpike, { max: limits.MAX_CARDINALITY_SPIKES }),
  phase_offset: duration,
  clock_group: nonEmptyString,
  after,
  while: whileGate,
  pack: nonEmptyString,
  overrides,
};

export type EntryField = keyof typeof entryFields;
export type EntryFields = Partial<Decoded<typeof entryFields>>;

/** Fields that name one entry and therefore cannot be shared through `defaults`. */
export const ENTRY_ONLY_FIELDS: readonly EntryField[] = ['id', 'name', 'pack'];

export const defaultsFields = Object.fromEntries(
  Object.entries(entryFields).filter(([key]) => !(ENTRY_ONLY_FIELDS as readonly string[]).includes(key)),
) as Omit<typeof entryFields, 'id' | 'name' | 'pack'>;

