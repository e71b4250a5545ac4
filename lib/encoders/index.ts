import { encodingRefusal, encoderKindOf, type EncoderConfig, type EncoderKind } from './kinds/index.js';
import type { SignalFamily } from '../language/types.js';
import type { MetricEncoder, MetricMeta } from './encoder.js';
import type { LogEncoder } from './log-lines.js';
import type { TraceEncoder } from './spans.js';
import { featureRefusal } from '../features.js';

export type { Encoder, MetricEncoder, MetricMeta } from './encoder.js';
export { remoteWrite, type RemoteWriteEncoder } from './remote-write.js';
export { influxLp, type InfluxLpOptions } from './influx-lp.js';
export { jsonLines, type JsonLinesOptions } from './json-lines.js';
export { metricsText, type MetricsTextOptions } from './metrics-text.js';
export { openMetrics, type OpenMetricsOptions } from './openmetrics.js';
export { jsonLinesLogs } from './json-lines-logs.js';
export { syslog, type SyslogOptions } from './syslog.js';
export type { LogEncoder } from './log-lines.js';
export type { TraceEncoder } from './spans.js';
export { jsonLinesTraces } from './json-lines-traces.js';
export { zipkinJson, zipkinBody, zipkinBodyOfRuns } from './zipkin-json.js';
export {
  ENCODER_KINDS,
  ENCODER_TYPES,
  encoderCodec,
  encoderKindOf,
  encoderSinkDeps,
  encodingRefusal,
  type EncoderConfig,
  type EncoderKind,
  type EncoderSinkDeps,
  type EncoderType,
} from './kinds/index.js';

/**
 * The metric encoder an entry's `encoder` configuration names, for the metric `meta`.
 * Throws for encoders this build does not provide yet and for log-only encoders.
 */
export function createMetricEncoder(config: EncoderConfig, meta: MetricMeta): MetricEncoder {
  return factoryOf(config, 'metrics', 'metrics')(config, meta);
}

/** The log encoder an entry's `encoder` configuration names. */
export function createLogEncoder(config: EncoderConfig): LogEncoder {
  return factoryOf(config, 'logs', 'log records')(config);
}

/** The span encoder an entry's `encoder` configuration names (a traces entry). */
export function createTraceEncoder(config: EncoderConfig): TraceEncoder {
  return factoryOf(config, 'traces', 'spans')(config);
}

function factoryOf<F extends SignalFamily>(
  config: EncoderConfig,
  family: F,
  what: string,
): NonNullable<EncoderKind<string, EncoderConfig>[F]> {
  const kind = encoderKindOf(config.type)!;
  const factory = kind[family];
  const refusal = encodingRefusal(config.type, family, what) ?? featureRefusal(kind.feature);
  if (refusal) throw new Error(`encoder "${config.type}" ${refusal}`);
  return factory!;
}
