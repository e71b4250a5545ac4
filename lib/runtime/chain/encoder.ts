import type { Encoder } from '../../../operators/encode.js';
import type { Labelled, LogBatch, SampleBatch } from '../../../operators/model/batch.js';
import type { SpanBatch } from '../../../operators/model/span.js';
import type { Entry } from '../../config/types.js';
import { createLogEncoder, createMetricEncoder, createTraceEncoder } from '../../encoders/index.js';
import { required } from './unsupported.js';

/** What the signal stage of an entry emits: labelled samples (metrics, histogram, summary rows), log records, or spans. */
export type SignalBatch = Labelled<SampleBatch> | Labelled<LogBatch> | SpanBatch;

/**
 * The encoder an entry's `encoder` configuration names, for the batches its signal type makes
 * (the signal stage, signal.ts, emits those). Throws when the encoder cannot encode them.
 */
export function entryEncoder(entry: Entry): Encoder<SignalBatch> {
  if (entry.signal_type === 'logs') return createLogEncoder(entry.encoder);
  if (entry.signal_type === 'traces') return createTraceEncoder(entry.encoder);
  const name = required(entry, 'name', entry.name);
  return createMetricEncoder(entry.encoder, { name, metricType: entry.metric_type, help: entry.help });
}
