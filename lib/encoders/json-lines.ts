import { checkMetricOptions, type TextMetricEncoder } from './encoder.js';
import { jsonValueFormat } from './number.js';
import { sampleLines } from './sample-lines.js';

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
export function jsonLines(options: JsonLinesOptions): TextMetricEncoder {
  checkMetricOptions('jsonLines', options);
  const { name, precision } = options;
  return sampleLines({
    lead: (series) => `{"name":${JSON.stringify(name + (series.suffix ?? ''))},"value":`,
    middle: (series) => `,"labels":${labelsJson(series.labels)},"timestamp":"`,
    stamp: (ms) => `${new Date(ms).toISOString()}"}\n`,
    value: jsonValueFormat(precision),
  });
}

/** `{"k":"v",…}` with keys sorted. */
export function labelsJson(labels: Readonly<Record<string, string>>): string {
  // Sorted here too: integer-like keys would not keep insertion order in a plain object.
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`);
  return `{${pairs.join(',')}}`;
}
