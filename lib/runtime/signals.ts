import { tap, type OperatorFunction } from 'rxjs';
import type { EncodedBatch, SampleBatch, TickBatch } from '../../operators/batch.js';
import { generate } from '../../operators/generate.js';
import { jitter } from '../../operators/jitter.js';
import { gaps } from '../../operators/gaps.js';
import { labels } from '../../operators/labels.js';
import { encode } from '../../operators/encode.js';
import type { Entry } from '../config/types.js';
import { valueGenerator } from '../generators/value.js';
import { createMetricEncoder } from '../encoders/index.js';
import { optional } from './schedule.js';

export interface SignalHooks {
  /** Sees every value batch of a metrics entry after jitter, before gaps (for `after` triggers). */
  readonly onValues?: (batch: SampleBatch) => void;
}

/** Unsupported here until the signal's generator exists: said plainly rather than faked. */
export class UnsupportedEntryError extends Error {}

/**
 * The signal-specific middle of an entry's chain, from due ticks to encoded chunks:
 * generator map → jitter → gap filter → label injection → encoder map.
 */
export function signalPipeline(entry: Entry, hooks: SignalHooks = {}): OperatorFunction<TickBatch, EncodedBatch> {
  if (entry.signal_type !== 'metrics' || !entry.generator || !entry.name) {
    throw new UnsupportedEntryError(`${entry.id}: signal_type ${entry.signal_type} is not supported in this version yet`);
  }
  return (ticks) =>
    ticks.pipe(
      generate(valueGenerator(entry.generator!)),
      optional(entry.jitter !== undefined && jitter<SampleBatch>(entry.jitter, entry.jitter_seed)),
      optional(hooks.onValues && tap<SampleBatch>(hooks.onValues)),
      optional(entry.gaps && gaps<SampleBatch>(entry.gaps)),
      labels<SampleBatch>({ static: entry.labels, dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes }),
      encode(createMetricEncoder(entry.encoder, { name: entry.name! })),
    );
}
