import type { EncodedBatch, Labelled, LogBatch, LogTemplate, SampleBatch, Series } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';

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

/**
 * An encoded chunk of `data` as a line encoder hands it to a sink: one record per line (binary
 * data: one record), `size` events of as many lines each; labels and times default to none and 0.
 */
export function chunk(data: string | Uint8Array, size = 1, frames: { series?: readonly Series[]; times?: readonly number[] } = {}): EncodedBatch {
  const ends: number[] = [];
  if (typeof data !== 'string') ends.push(data.byteLength);
  else for (let at = data.indexOf('\n'); at >= 0; at = data.indexOf('\n', at + 1)) ends.push(at + 1);
  const records = ends.length;
  return {
    size,
    data,
    bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength,
    frames: {
      ends,
      separator: typeof data === 'string' ? 1 : 0,
      perEvent: size > 0 ? records / size : 1,
      series: frames.series ?? new Array<Series>(records).fill(seriesOf({})),
      anchor: 0,
      offset: Float64Array.from(frames.times ?? new Array<number>(records).fill(0)),
    },
  };
}

/** A `Labelled<LogBatch>` of the given records, one tick per record, offsets 0, 1, 2, … ms; a `template` column when some record has one. */
export function logBatch(
  records: readonly { severity: string; message: string; fields?: Readonly<Record<string, string>>; labels?: Record<string, string>; template?: LogTemplate }[],
  anchor = 0,
): Labelled<LogBatch> {
  const size = records.length;
  return {
    ...(records.some((r) => r.template) && { template: records.map((r) => r.template) }),
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

/** The text of an encoded chunk or record, whether the encoder wrote a string or UTF-8 bytes. */
export function textOf(data: string | Uint8Array | EncodedBatch): string {
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) return textOf(data.data);
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
}
