import type { LabelOptions, Shard } from '../../../operators/labels.js';
import type { Entry } from '../../config/types.js';

/** The labels operator's options for an entry, emitting `shard`'s series only when given one. */
export function labelOptions(entry: Entry, shard?: Shard): LabelOptions {
  return { static: entry.labels, dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes, shard };
}
