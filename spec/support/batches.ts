import type { EncodedBatch, Labelled, LogBatch, SampleBatch, Series } from '../../operators/batch.js';
import { seriesOf } from '../../operators/series.js';

export interface SampleBatchInit {
  /** One value per tick. */
  readonly values: readonly number[];
  /** Scheduled offsets in ms from the entry start; default 0, 1, 2, … */
  readonly offsets?: readonly number[];
  /** Epoch ms of offset 0; default 0. */
  readonly anchor?: number;
  /** First slot number; default 0. */
  readonly firstIndex?: number;
  /** The series of every tick: one shared label set, or one per tick. Default: no labels. */
  readonly series?: Series | readonly Series[];
}

/** A `Labelled<SampleBatch>` built from plain arrays. */
export function sampleBatch(init: SampleBatchInit): Labelled<SampleBatch> {
  const size = init.values.length;
  const offsets = init.offsets ?? init.values.map((_, i) => i);
  const first = init.firstIndex ?? 0;
  const shared = init.series ?? seriesOf({});
  const series = isSeriesList(shared) ? shared : new Array<Series>(size).fill(shared);
  if (offsets.length !== size || series.length !== size) throw new Error('sampleBatch: columns of different lengths');
  return {
    size,
    anchor: init.anchor ?? 0,
    index: Float64Array.from({ length: size }, (_, i) => first + i),
    offset: Float64Array.from(offsets),
    value: Float64Array.from(init.values),
    series,
  };
}

function isSeriesList(s: Series | readonly Series[]): s is readonly Series[] {
  return Array.isArray(s);
}

/** An encoded chunk of `data`, as the encode operator hands it to a sink. */
export function chunk(data: string | Uint8Array, size = 1): EncodedBatch {
  return { size, data, source: { size: 0, anchor: 0, index: new Float64Array(0), offset: new Float64Array(0) } };
}

/** A `Labelled<LogBatch>` of the given records, one tick per record, offsets 0, 1, 2, … ms. */
export function logBatch(
  records: readonly { severity: string; message: string; fields?: Record<string, string>; labels?: Record<string, string> }[],
  anchor = 0,
): Labelled<LogBatch> {
  const size = records.length;
  return {
    size,
    anchor,
    index: Float64Array.from({ length: size }, (_, i) => i),
    offset: Float64Array.from({ length: size }, (_, i) => i),
    severity: records.map((r) => r.severity),
    message: records.map((r) => r.message),
    fields: records.map((r) => r.fields ?? {}),
    series: records.map((r) => seriesOf(r.labels ?? {})),
  };
}
