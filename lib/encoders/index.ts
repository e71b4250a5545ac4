import type { EncoderConfig } from '../config/types.js';
import type { MetricEncoder } from './encoder.js';
import { jsonLines } from './json-lines.js';
import { metricsText } from './metrics-text.js';
import { jsonLinesLogs } from './json-lines-logs.js';
import type { LogEncoder } from './log-lines.js';
import { syslog } from './syslog.js';
import { featureOf } from '../features.js';

export type { Encoder, MetricEncoder } from './encoder.js';
export { jsonLines, type JsonLinesOptions } from './json-lines.js';
export { metricsText, type MetricsTextOptions } from './metrics-text.js';
export { jsonLinesLogs } from './json-lines-logs.js';
export { syslog, type SyslogOptions } from './syslog.js';
export type { LogEncoder } from './log-lines.js';

/**
 * The metric encoder an entry's `encoder` configuration names, for the metric `meta.name`.
 * Throws for encoders this build does not provide yet.
 */
export function createMetricEncoder(config: EncoderConfig, meta: { readonly name: string }): MetricEncoder {
  switch (config.type) {
    case 'metrics_text':
      return metricsText({ name: meta.name, precision: config.precision });
    case 'json_lines':
      return jsonLines({ name: meta.name, precision: config.precision });
    case 'remote_write':
    case 'otlp':
      throw new Error(`encoder "${config.type}" ${featureOf(config.type)}`);
    case 'syslog':
      throw new Error('encoder "syslog" encodes log records, not metrics');
  }
}

/** The log encoder an entry's `encoder` configuration names. */
export function createLogEncoder(config: EncoderConfig): LogEncoder {
  switch (config.type) {
    case 'json_lines':
      return jsonLinesLogs();
    case 'syslog':
      return syslog(config);
    default:
      throw new Error(`encoder "${config.type}" cannot encode log records (use json_lines or syslog)`);
  }
}
