import { timestampOf, type Labelled, type SampleBatch, type Series } from '../../operators/model/batch.js';
import { encodedLines, type TextMetricEncoder } from './encoder.js';

/** How one sample line is put together: `lead(series) + value + middle(series) + stamp(ms)`. */
export interface SampleLineFormat {
  /** Text before the value, once per series. */
  lead(series: Series): string;
  /** Text between the value and the timestamp fragment, once per series. */
  middle(series: Series): string;
  /** Text from the timestamp to the end of the line, once per millisecond. */
  stamp(ms: number): string;
  value(v: number): string;
}

/**
 * A line-per-sample encoder whose per-series and per-millisecond fragments are built once:
 * cached per Series object (weakly: a series the label operator dropped costs nothing here),
 * and reused while consecutive samples share their series and millisecond, as they usually do.
 */
export function sampleLines(format: SampleLineFormat): TextMetricEncoder {
  const fragments = new WeakMap<Series, readonly [string, string]>();
  const fragmentsOf = (series: Series) => {
    let found = fragments.get(series);
    if (!found) fragments.set(series, (found = [format.lead(series), format.middle(series)]));
    return found;
  };
  let lastSeries: Series | undefined;
  let lead = '';
  let middle = '';
  let lastMs = NaN;
  let stamp = '';

  return {
    encode(batch: Labelled<SampleBatch>) {
      const { size, value, series } = batch;
      let out = '';
      const ends = new Array<number>(size);
      for (let i = 0; i < size; i++) {
        const s = series[i]!;
        if (s !== lastSeries) {
          lastSeries = s;
          [lead, middle] = fragmentsOf(s);
        }
        const ms = timestampOf(batch, i);
        if (ms !== lastMs) {
          lastMs = ms;
          stamp = format.stamp(ms);
        }
        out += lead + format.value(value[i]!) + middle + stamp;
        ends[i] = out.length;
      }
      return encodedLines(batch, out, ends);
    },
  };
}
