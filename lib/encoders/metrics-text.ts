import type { Series } from '../../operators/model/series.js';
import { checkMetricOptions, type TextMetricEncoder } from './encoder.js';
import { millisecondsText } from '../protocols/epoch-text.js';
import { textValueFormat } from './number.js';
import { sampleLines } from './sample-lines.js';

export interface MetricsTextOptions {
  /** Metric name, written as is (validated upstream). */
  readonly name: string;
  /** Exact number of decimals; absent means the shortest round-trip form. */
  readonly precision?: number;
}

/**
 * Text exposition encoder: one line `name{k="v",…} value timestamp_ms` per sample, no braces
 * when the series has no labels. Label text comes from `Series.key` (sorted and escaped).
 */
export function metricsText(options: MetricsTextOptions): TextMetricEncoder {
  checkMetricOptions('metricsText', options);
  const { name, precision } = options;
  const millis = millisecondsText();
  return sampleLines({
    lead: (series) => `${sampleName(name, series)} `,
    middle: () => '',
    stamp: (ms) => ` ${millis(ms)}\n`,
    value: textValueFormat(precision),
  });
}

/** `name{k="v",…}` of a series of metric `name` (its suffix appended, no braces without labels). */
export function sampleName(name: string, series: Series): string {
  const metric = name + (series.suffix ?? '');
  return series.key === '' ? metric : `${metric}{${series.key}}`;
}
