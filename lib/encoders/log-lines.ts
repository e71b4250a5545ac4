import { timestampOf, type Labelled, type LogBatch, type Series } from '../../operators/model/batch.js';
import { encodedLines, type Encoder } from './encoder.js';

/** Encoder of log records (a `logs` entry). */
export type LogEncoder = Encoder<Labelled<LogBatch>>;

/** A log encoder that writes text lines. */
export type TextLogEncoder = Encoder<Labelled<LogBatch>, string>;

/** How one log line is put together from fragments built once per series and per millisecond. */
export interface LogLineFormat {
  /** The label part, once per series. */
  series(series: Series): string;
  /** The timestamp part, once per millisecond. */
  stamp(ms: number): string;
  line(stamp: string, series: string, severity: string, message: string, fields: Readonly<Record<string, string>>): string;
}

/**
 * A line-per-record encoder whose label and timestamp fragments are cached (per Series object,
 * weakly, and while the millisecond is unchanged), as `sampleLines` does for metrics.
 */
export function logLines(format: LogLineFormat): TextLogEncoder {
  const fragments = new WeakMap<Series, string>();
  let lastSeries: Series | undefined;
  let labels = '';
  let lastMs = NaN;
  let stamp = '';
  return {
    encode(batch) {
      let out = '';
      const ends = new Array<number>(batch.size);
      for (let i = 0; i < batch.size; i++) {
        const s = batch.series[i]!;
        if (s !== lastSeries) {
          lastSeries = s;
          labels = fragments.get(s) ?? format.series(s);
          fragments.set(s, labels);
        }
        const ms = timestampOf(batch, i);
        if (ms !== lastMs) {
          lastMs = ms;
          stamp = format.stamp(ms);
        }
        out += format.line(stamp, labels, batch.severity[i]!, batch.message[i]!, batch.fields[i]!);
        ends[i] = out.length;
      }
      return encodedLines(batch, out, ends);
    },
  };
}
