import { timestampOf, type Labelled, type SampleBatch, type Series } from '../../operators/batch.js';
import type { MetricEncoder } from './encoder.js';
import { textValueFormat } from './number.js';

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
export function metricsText({ name, precision }: MetricsTextOptions): MetricEncoder {
  const format = textValueFormat(precision);
  // Weak keys: a series the label operator no longer holds costs nothing here either.
  const prefixes = new WeakMap<Series, string>();
  const prefixOf = (series: Series): string => {
    let prefix = prefixes.get(series);
    if (prefix === undefined) {
      prefix = series.key === '' ? `${name} ` : `${name}{${series.key}} `;
      prefixes.set(series, prefix);
    }
    return prefix;
  };
  // Consecutive samples usually share their series and (above 1,000/s) their millisecond.
  let lastSeries: Series | undefined;
  let prefix = '';
  let lastMs = NaN;
  let stamp = '';

  return {
    encode(batch: Labelled<SampleBatch>): string {
      const { size, value, series } = batch;
      let out = '';
      for (let i = 0; i < size; i++) {
        const s = series[i]!;
        if (s !== lastSeries) {
          lastSeries = s;
          prefix = prefixOf(s);
        }
        const ms = timestampOf(batch, i);
        if (ms !== lastMs) {
          lastMs = ms;
          stamp = ` ${ms}\n`;
        }
        out += prefix + format(value[i]!) + stamp;
      }
      return out;
    },
  };
}
