import type { MetricType } from '../language/types.js';
import type { EncodedBatch, Labelled, SampleBatch } from '../../operators/model/batch.js';
import { escapeLabelValue } from '../../operators/model/series.js';
import type { MetricMeta, TextMetricEncoder } from './encoder.js';
import { sampleName } from './metrics-text.js';
import { textValueFormat } from './number.js';
import { sampleLines } from './sample-lines.js';

export interface OpenMetricsOptions extends MetricMeta {
  /** Exact number of decimals; absent means the shortest round-trip form. */
  readonly precision?: number;
}

/** The end of an OpenMetrics exposition: once, after every family (see the kind's `trailer`). */
export const OPENMETRICS_EOF = '# EOF\n';

/** `# TYPE` of each metric_type. */
const FAMILY_TYPE: Record<MetricType, string> = {
  gauge: 'gauge',
  counter: 'counter',
  histogram: 'histogram',
  summary: 'summary',
  untyped: 'unknown',
};

/** Base units a family name may end with (`_seconds`): its `# UNIT`. */
const UNITS = [
  'seconds',
  'bytes',
  'ratio',
  'meters',
  'grams',
  'celsius',
  'kelvin',
  'volts',
  'amperes',
  'joules',
  'watts',
  'hertz',
];

/**
 * OpenMetrics text: the family's `# TYPE`, `# HELP` (when the entry has `help`) and `# UNIT`
 * (when its name ends with a base unit, `_seconds`) before its first sample, then one line
 * `name{labels} value timestamp` per sample, timestamps in seconds (`1704067200.25`). A
 * counter's family is its name without `_total` and its samples are `<family>_total`. The
 * header rides at the start of the first chunk (in its first record); `# EOF` is not written
 * here but once per stream by the stream sinks (the kind's `trailer`), because a stream holds
 * many chunks and often several entries.
 */
export function openMetrics({ name, metricType, help, precision }: OpenMetricsOptions): TextMetricEncoder {
  const counter = metricType === 'counter';
  const family = counter ? name.replace(/(?<=.)_total$/, '') : name;
  const lines = sampleLines({
    lead: (series) => `${sampleName(counter ? `${family}_total` : name, series)} `,
    middle: () => '',
    // Whole milliseconds (timestampOf): their quotient prints as the exact decimal.
    stamp: (ms) => ` ${ms / 1000}\n`,
    value: textValueFormat(precision),
  });
  let header: string | undefined = familyHeader(family, metricType, help);
  return {
    encode(batch: Labelled<SampleBatch>) {
      const chunk = lines.encode(batch);
      if (header === undefined || batch.size === 0) return chunk;
      const prefixed = withPrefix(chunk, header);
      header = undefined;
      return prefixed;
    },
  };
}

/** The family's metadata lines; HELP escaped as OpenMetrics escapes it, as a label value. */
function familyHeader(family: string, metricType: MetricType = 'untyped', help: string | undefined): string {
  const unit = UNITS.find((u) => family.endsWith(`_${u}`));
  return (
    `# TYPE ${family} ${FAMILY_TYPE[metricType]}\n` +
    (help === undefined ? '' : `# HELP ${family} ${escapeLabelValue(help)}\n`) +
    (unit === undefined ? '' : `# UNIT ${family} ${unit}\n`)
  );
}

/** `chunk` with `text` before its first record. */
function withPrefix(chunk: EncodedBatch<Buffer>, text: string): EncodedBatch<Buffer> {
  const data = Buffer.concat([Buffer.from(text), chunk.data]);
  const added = data.length - chunk.data.length;
  const ends = chunk.frames.ends.map((end) => end + added);
  return { ...chunk, data, bytes: data.length, frames: { ...chunk.frames, ends } };
}
