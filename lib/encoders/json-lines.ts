import { timestampOf, type Labelled, type SampleBatch, type Series } from '../../operators/batch.js';
import type { MetricEncoder } from './encoder.js';
import { jsonValueFormat } from './number.js';

export interface JsonLinesOptions {
  /** Metric name. */
  readonly name: string;
  /** Exact number of decimals; absent means the shortest round-trip form. */
  readonly precision?: number;
}

/**
 * JSON Lines encoder of metric samples: one object per line,
 * `{"name":…,"value":…,"labels":{…},"timestamp":"2024-01-01T00:00:00.000Z"}`, fields in that
 * order, labels sorted by key, timestamp RFC 3339 UTC with milliseconds.
 *
 * `NaN`, `+Inf` and `-Inf` have no JSON number form: `value` is then the string `"NaN"`,
 * `"+Inf"` or `"-Inf"`.
 */
export function jsonLines({ name, precision }: JsonLinesOptions): MetricEncoder {
  const format = jsonValueFormat(precision);
  const head = `{"name":${JSON.stringify(name)},"value":`;
  // Everything between the value and the timestamp, once per series (weak: see metricsText).
  const middles = new WeakMap<Series, string>();
  const middleOf = (series: Series): string => {
    let middle = middles.get(series);
    if (middle === undefined) {
      middle = `,"labels":${labelsJson(series.labels)},"timestamp":"`;
      middles.set(series, middle);
    }
    return middle;
  };
  let lastSeries: Series | undefined;
  let middle = '';
  let lastMs = NaN;
  let tail = '';

  return {
    encode(batch: Labelled<SampleBatch>): string {
      const { size, value, series } = batch;
      let out = '';
      for (let i = 0; i < size; i++) {
        const s = series[i]!;
        if (s !== lastSeries) {
          lastSeries = s;
          middle = middleOf(s);
        }
        const ms = timestampOf(batch, i);
        if (ms !== lastMs) {
          lastMs = ms;
          tail = `${new Date(ms).toISOString()}"}\n`;
        }
        out += head + format(value[i]!) + middle + tail;
      }
      return out;
    },
  };
}

function labelsJson(labels: Readonly<Record<string, string>>): string {
  // Sorted here too: integer-like keys would not keep insertion order in a plain object.
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`);
  return `{${pairs.join(',')}}`;
}
