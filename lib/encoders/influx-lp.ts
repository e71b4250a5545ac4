import type { Series } from '../../operators/model/series.js';
import type { TextMetricEncoder } from './encoder.js';
import { nanosecondsText } from '../protocols/epoch-text.js';
import { textValueFormat } from './number.js';
import { sampleLines } from './sample-lines.js';

export interface InfluxLpOptions {
  /** Metric name: the measurement (with a histogram or summary row's suffix). */
  readonly name: string;
  /** The one field of every line; default `value`. */
  readonly fieldKey?: string;
  /** Exact number of decimals of the field value; absent means the shortest round-trip form. */
  readonly precision?: number;
}

/**
 * InfluxDB line protocol: one line `measurement,tag=v,… field_key=value timestamp_ns` per
 * sample. The measurement is the metric name (with its row's suffix: `_bucket`, `_sum`,
 * `_count`), the tags are the labels, sorted by key, the value is a float field, the timestamp
 * nanoseconds since the epoch (the precision InfluxDB and VictoriaMetrics assume when the
 * request names none) of the tick's scheduled time, its fraction of a millisecond included:
 * ticks of one series in one millisecond (above 1000 a second) stay distinct points, of which
 * InfluxDB would keep only the last. A label with an empty value, which line protocol could not carry as a tag,
 * never reaches it: a label set leaves it out (`seriesOf`), as an empty label means no label in Prometheus terms.
 */
export function influxLp({ name, fieldKey = 'value', precision }: InfluxLpOptions): TextMetricEncoder {
  const field = ` ${escapeKey(fieldKey)}=`;
  const nanoseconds = nanosecondsText();
  return sampleLines({
    lead: (series) => measurement(name, series) + field,
    middle: () => '',
    exactTimes: true,
    stamp: (ms, nanos) => ` ${nanoseconds(ms, nanos)}\n`,
    value: textValueFormat(precision),
  });
}

function measurement(name: string, series: Series): string {
  // Metric names are validated ([a-zA-Z_:][a-zA-Z0-9_:]*): nothing to escape.
  let out = name + (series.suffix ?? '');
  for (const [key, value] of Object.entries(series.labels)) out += `,${escapeKey(key)}=${escapeKey(value)}`;
  return out;
}

/**
 * Escapes a tag key, tag value or field key: commas, equals signs and spaces; a backslash only where
 * it comes before one of those, another backslash or the end, where a reader would take it for an
 * escape. InfluxDB 1.x reads `\\` as two backslashes (VictoriaMetrics as one, and InfluxDB 2.x by its documentation), so
 * `C:\logs` written as it is arrives as it is in all three. A line feed, which line protocol
 * cannot carry, becomes the two characters `\n`.
 */
function escapeKey(text: string): string {
  return text
    .replace(/\\(?=[\\,= \n]|$)/g, '\\\\')
    .replace(/[,= ]/g, '\\$&')
    .replace(/\n/g, '\\n');
}
