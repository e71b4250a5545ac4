import { labelSetPeriod, type LabelOptions, type Shard } from '../../../operators/labels.js';
import type { Entry } from '../../config/types.js';

/** The labels operator's options for an entry, emitting `shard`'s series only when given one. */
export function labelOptions(entry: Entry, shard?: Shard): LabelOptions {
  return { static: entry.labels, dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes, shard };
}

/**
 * How an entry's label sets come and go (what the server's scrape of latest values reads): after how many ticks it
 * has written each of them again, and the labels only its spikes write (a spike's key that a static or rotating
 * label has too is on every event, so it tells no window apart).
 */
export function labelCycle(entry: Entry): { period: number; spikeLabels: string[] } {
  const others = new Set([
    ...Object.keys(entry.labels ?? {}),
    ...(entry.dynamic_labels ?? []).map((label) => label.key),
  ]);
  const spikeLabels = [...new Set((entry.cardinality_spikes ?? []).map((spike) => spike.label))];
  return {
    period: labelSetPeriod(labelOptions(entry)),
    spikeLabels: spikeLabels.filter((label) => !others.has(label)),
  };
}
