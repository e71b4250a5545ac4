/**
 * Prometheus remote write 2.0: the wire tags of `io.prometheus.write.v2.Request` and what it holds, as the
 * published definition numbers them (prometheus/prometheus `prompb/io/prometheus/write/v2/types.proto`,
 * spec https://prometheus.io/docs/specs/prw/remote_write_spec_2_0/), and what a remote_write chunk hands the
 * sink so it can write a 2.0 request (its rows) beside the 1.0 records it carries.
 *
 * The sink writes 2.0 requests itself, byte by byte (lib/sinks/framing/remote-write-v2.ts): the references of
 * a request's rows index its symbol table (the sink's, numbered across its requests), which no encoder can know,
 * since a request joins the rows of several chunks.
 */
import type { EncodedBatch, Labelled, SampleBatch } from '../../operators/model/batch.js';
import { familyName, unitOf } from './metric-units.js';

/** The versions of the protocol the remote_write sink speaks. */
export type RemoteWriteProtocol = '1.0' | '2.0';

/** `(field << 3) | wire type`: 0 varint, 1 64-bit, 2 length-delimited. */
const tag = (field: number, wire: 0 | 1 | 2): number => (field << 3) | wire;

/** `Request` */
export const REQUEST = { symbols: tag(4, 2), timeseries: tag(5, 2) } as const;

/**
 * `TimeSeries`. `createdTimestamp` is field 6 of the 2.0 release candidates up to rc.3 (Prometheus 3.0 to
 * 3.7), reserved since rc.4 (Prometheus 3.8), which moved the start time into `Sample` and `Histogram`.
 */
export const TIME_SERIES = {
  labelsRefs: tag(1, 2),
  samples: tag(2, 2),
  histograms: tag(3, 2),
  exemplars: tag(4, 2),
  metadata: tag(5, 2),
  createdTimestamp: tag(6, 0),
} as const;

/** `Sample` */
export const SAMPLE = { value: tag(1, 1), timestamp: tag(2, 0), startTimestamp: tag(3, 0) } as const;

/** `Exemplar` */
export const EXEMPLAR = { labelsRefs: tag(1, 2), value: tag(2, 1), timestamp: tag(3, 0) } as const;

/** `Metadata` */
export const METADATA = { type: tag(1, 0), helpRef: tag(3, 0), unitRef: tag(4, 0) } as const;

/** `Histogram` (the integer form: `count_int`, `zero_count_int`, bucket deltas). */
export const HISTOGRAM = {
  countInt: tag(1, 0),
  sum: tag(3, 1),
  schema: tag(4, 0),
  zeroThreshold: tag(5, 1),
  zeroCountInt: tag(6, 0),
  negativeSpans: tag(8, 2),
  negativeDeltas: tag(9, 2),
  positiveSpans: tag(11, 2),
  positiveDeltas: tag(12, 2),
  timestamp: tag(15, 0),
  startTimestamp: tag(17, 0),
} as const;

/** `BucketSpan` */
export const BUCKET_SPAN = { offset: tag(1, 0), length: tag(2, 0) } as const;

/** `Metadata.MetricType` of each metric_type (the scenario language's words). */
export const METRIC_TYPE = {
  untyped: 0,
  counter: 1,
  gauge: 2,
  histogram: 3,
  summary: 5,
} as const;

/** What every row of one metric shares in a 2.0 request. */
export interface RemoteWriteMetric {
  /** The metric family name, `__name__` of its rows before their suffix. */
  readonly name: string;
  /** `Metadata.type` */
  readonly type: number;
  readonly help: string;
  /** The base unit the family's name ends with (`seconds`), `''` for none: `Metadata.unit_ref`. */
  readonly unit: string;
  /** Counters, histograms and summaries carry the time they started counting (the entry start). */
  readonly startTimestamps: boolean;
}

/** The metric of `name`, `metricType` and `help` (its unit read off the name), as 2.0 rows carry it. */
export function remoteWriteMetric(
  name: string,
  metricType: keyof typeof METRIC_TYPE = 'untyped',
  help = '',
): RemoteWriteMetric {
  const startTimestamps = metricType === 'counter' || metricType === 'histogram' || metricType === 'summary';
  const unit = unitOf(familyName(name, metricType)) ?? '';
  return { name, type: METRIC_TYPE[metricType], help, unit, startTimestamps };
}

/**
 * The columns of a batch a 2.0 request is written from, and the 1.0 records of a fallback: what the rows say, not
 * the batch's other columns (its slot `index`), which a chunk would otherwise hold as long as a sink holds it.
 */
export type RemoteWriteColumns = Pick<
  Labelled<SampleBatch>,
  'anchor' | 'offset' | 'value' | 'series' | 'exemplars' | 'native'
>;

/** What a chunk made for a 2.0 sink writes its requests from. */
export interface RemoteWriteRows {
  /** Row `i` is record `i` of the chunk. */
  readonly batch: RemoteWriteColumns;
  readonly metric: RemoteWriteMetric;
  /** The 1.0 records of rows `[from, to)`, as `frames.ends` measures them, written now (a fallback to 1.0). */
  readonly records: (from: number, to: number) => Uint8Array;
}

/**
 * A remote_write chunk: its 1.0 `TimeSeries` records, or for a 2.0 sink the rows they are written from. A chunk for
 * a 2.0 sink leaves the records out of `data` (empty) until a 415 makes the sink fall back to 1.0: `bytes` and
 * `frames.ends` still measure them, so requests are cut and held memory bounded as for 1.0. A chunk for a 1.0 sink
 * carries no rows: nothing ever writes it as 2.0 (a sink only falls back from 2.0), and a held-back sink holds
 * thousands of chunks.
 */
export interface RemoteWriteChunk extends EncodedBatch<Uint8Array> {
  /** On a chunk made for a 2.0 sink only. */
  readonly rows?: RemoteWriteRows;
}

/** The 1.0 records of rows `[from, to)` of a remote_write chunk: a view of its data, or written from its rows. */
export function v1Records(chunk: EncodedBatch, from: number, to: number): Uint8Array {
  const { rows, data, frames } = remoteWriteChunk(chunk);
  if (rows) return rows.records(from, to);
  return data.subarray(from === 0 ? 0 : frames.ends[from - 1]!, frames.ends[to - 1]!);
}

/** The rows of `chunk`, which a 2.0 request is written from; throws for a chunk made for a 1.0 sink. */
export function v2Rows(chunk: EncodedBatch): RemoteWriteRows {
  const { rows } = remoteWriteChunk(chunk);
  if (!rows) throw new Error('a chunk made for a remote write 1.0 sink cannot be sent as 2.0');
  return rows;
}

/** `chunk` as a remote_write chunk; throws when another encoder made it (the remote_write sink takes no other). */
function remoteWriteChunk(chunk: EncodedBatch): RemoteWriteChunk {
  if (typeof chunk.data === 'string' || chunk.preamble === undefined)
    throw new Error('the remote_write sink takes the chunks of the remote_write encoder');
  return chunk as RemoteWriteChunk;
}
