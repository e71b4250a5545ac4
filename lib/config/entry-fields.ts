/**
 * The fields of an entry: the scenario language's field codecs (lib/language/fields.ts) with the
 * sink and encoder unions of the kind registries, which build on the same field codecs.
 */
import { atLeast, atMost, integer, list, nonEmptyString, nonNegative, oneOf, positive, string, type Decoded } from '../language/combinators.js';
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
  overrides,
  quantiles,
  SIGNAL_TYPES,
  startTime,
  whileGate,
} from '../language/fields.js';

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

