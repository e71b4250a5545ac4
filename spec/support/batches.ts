import {
  byteLength,
  type EncodedBatch,
  type Labelled,
  type LogBatch,
  type LogTemplate,
  type SampleBatch,
  type RecordSpan,
} from '../../operators/model/batch.js';
import { seriesOf, type Series } from '../../operators/model/series.js';

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

/** What {@link chunk} adds to its data: the records' labels and times, and whether the data is binary. */
export interface ChunkOptions {
  /** Label set of each record; default: no labels. */
  readonly series?: readonly Series[];
  /** Offset of each record in ms (the anchor is 0); default 0. */
  readonly times?: readonly number[];
  /** `data` is one unframed binary record (a protobuf message), not newline-separated lines. */
  readonly binary?: boolean;
}

/**
 * An encoded chunk of `data` as an encoder hands it to a sink, `size` events of as many records
 * each. Text, a string or UTF-8 bytes, is framed like a line encoder's output: one record per
 * line, its line feed included and counted as the separator (ends in code units of a string,
 * bytes of a byte array). With `binary`, `data` is a single record without separator.
 */
export function chunk(data: string | Uint8Array, size = 1, options: ChunkOptions = {}): EncodedBatch {
  const ends = options.binary ? [data.length] : lineEnds(data);
  const records = ends.length;
  return {
    size,
    data,
    bytes: byteLength(data),
    frames: {
      ends,
      separator: options.binary ? 0 : 1,
      perEvent: size > 0 ? records / size : 1,
      series: options.series ?? new Array<Series>(records).fill(seriesOf({})),
      anchor: 0,
      offset: Float64Array.from(options.times ?? new Array<number>(records).fill(0)),
    },
  };
}

const LINE_FEED = 0x0a;

/** Where each line of `data` ends, just past its line feed. */
function lineEnds(data: string | Uint8Array): number[] {
  const next = (from: number) => (typeof data === 'string' ? data.indexOf('\n', from) : data.indexOf(LINE_FEED, from));
  const ends: number[] = [];
  for (let at = next(0); at >= 0; at = next(at + 1)) ends.push(at + 1);
  return ends;
}

/** A `Labelled<LogBatch>` of the given records, one tick per record, offsets 0, 1, 2, … ms; a `template` column when some record has one. */
export function logBatch(
  records: readonly {
    severity: string;
    message: string;
    fields?: Readonly<Record<string, string>>;
    labels?: Record<string, string>;
    template?: LogTemplate;
    context?: RecordSpan;
  }[],
  anchor = 0,
): Labelled<LogBatch> {
  const size = records.length;
  return {
    ...(records.some((r) => r.template) && { template: records.map((r) => r.template) }),
    ...(records.some((r) => r.context) && { context: records.map((r) => r.context) }),
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
