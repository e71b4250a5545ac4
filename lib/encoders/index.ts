import type { EncoderConfig } from '../config/types.js';
import type { MetricEncoder } from './encoder.js';
import { jsonLines } from './json-lines.js';
import { metricsText } from './metrics-text.js';

export type { Encoder, MetricEncoder } from './encoder.js';
export { jsonLines, type JsonLinesOptions } from './json-lines.js';
export { metricsText, type MetricsTextOptions } from './metrics-text.js';

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
    case 'syslog':
    case 'remote_write':
    case 'otlp':
      throw new Error(`encoder "${config.type}" is not available in this build yet`);
  }
}
