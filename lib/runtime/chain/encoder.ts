import type { Encoder } from '../../../operators/encode.js';
import { classicRows, type Labelled, type LogBatch, type SampleBatch } from '../../../operators/model/batch.js';
import type { SpanBatch } from '../../../operators/model/span.js';
import type { Entry, SinkConfig, SpanMetricsSource } from '../../config/types.js';
import type { MetricMeta } from '../../encoders/encoder.js';
import { createLogEncoder, createMetricEncoder, createTraceEncoder } from '../../encoders/index.js';
import { encoderKindOf } from '../../encoders/kinds/index.js';
import { meanReachesZero } from '../../generators/distribution.js';
import { required } from './unsupported.js';

/** What the signal stage of an entry emits: labelled samples (metrics, histogram, summary rows), log records, or spans. */
export type SignalBatch = Labelled<SampleBatch> | Labelled<LogBatch> | SpanBatch;

/**
 * The encoder an entry's `encoder` configuration names, for the batches its signal type makes
 * (the signal stage, signal.ts, emits those). Throws when the encoder cannot encode them. An encoder
 * that does not write native histograms gets a histogram's classic rows only (validation refused it a
 * native-only histogram). The remote_write encoder is told the protocol of a remote_write sink (a 2.0 sink
 * needs no 1.0 records unless it falls back).
 */
export function entryEncoder(entry: Entry): Encoder<SignalBatch> {
  if (entry.signal_type === 'logs') return createLogEncoder(entry.encoder);
  if (entry.signal_type === 'traces') return createTraceEncoder(entry.encoder);
  const name = required(entry, 'name', entry.name);
  const encoder = createMetricEncoder(entry.encoder, {
    name,
    metricType: entry.metric_type,
    help: entry.help,
    withoutSum: withoutSum(entry),
    ...spanMetricsMeta(entry.span_metrics_of),
    remoteWriteProtocol: remoteWriteProtocolOf(entry.sink),
  });
  if (!entry.native || encoderKindOf(entry.encoder.type)!.nativeHistograms) return encoder;
  return { encode: (batch) => encoder.encode(classicRows(batch as Labelled<SampleBatch>)) };
}

/**
 * The remote write protocol a metric encoder writes for `sink`: a 2.0 sink writes its requests from the chunk's rows,
 * which an encoder makes only when told the protocol.
 */
export function remoteWriteProtocolOf(sink: SinkConfig): MetricMeta['remoteWriteProtocol'] {
  return sink.type === 'remote_write' ? sink.protocol : undefined;
}

/** Whether a histogram entry's sum is one OpenMetrics forbids: beside a negative bucket bound, or below 0. */
function withoutSum(entry: Entry): boolean {
  if (entry.signal_type !== 'histogram') return false;
  if (entry.buckets?.some((bound) => bound < 0)) return true;
  return entry.distribution !== undefined && meanReachesZero(entry.distribution, entry.duration);
}

/**
 * What the span metrics connector says of its metrics beyond their names, for the encoders that send it (OTLP): the
 * duration's unit, and the calls as whole counts (integer points).
 */
function spanMetricsMeta(source: SpanMetricsSource | undefined): Pick<MetricMeta, 'unit' | 'integer'> {
  if (!source) return {};
  return source.family === 'duration' ? { unit: source.unit } : { integer: true };
}
