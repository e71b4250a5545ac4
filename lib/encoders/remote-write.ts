import {
  ExemplarCursor,
  exemplarLabels,
  timestampAt,
  type Exemplar,
  type Labelled,
  type SampleBatch,
} from '../../operators/model/batch.js';
import { countDeltas, type NativeHistogram } from '../../operators/model/native-histogram.js';
import type { Series } from '../../operators/model/series.js';
import type { Encoder, MetricMeta } from './encoder.js';
import { fitted, grownToFit } from './grow.js';
import { ownBytes, perSeriesOf } from '../per-object.js';
import { putBytes, putDoubleLE, wellFormed } from '../protocols/bytes.js';
import { TAG, writeRequestMessages } from '../protocols/remote-write.js';
import {
  remoteWriteMetric,
  type RemoteWriteChunk,
  type RemoteWriteColumns,
  type RemoteWriteRows,
} from '../protocols/remote-write-v2.js';

/** A metric encoder whose chunks are remote-write protobuf. */
export type RemoteWriteEncoder = Encoder<Labelled<SampleBatch>, Uint8Array>;

/** The cached bytes of one series: a plain row's head (everything before its value), and its label fields alone. */
interface Head {
  readonly bytes: Buffer;
  readonly labels: Uint8Array;
  /** Bytes of a plain row, kept beside `bytes` so that measuring rows reads no buffer. */
  readonly rowLength: number;
}

/**
 * Prometheus remote-write encoder: each row of a batch becomes one `TimeSeries` (its labels,
 * `__name__` among them, sorted by name as the protocol requires; one sample with the row's
 * value and millisecond timestamp), written as a `WriteRequest.timeseries` field. Such fields
 * concatenate into one `WriteRequest`, so each row is a record of the chunk's frames and a sink
 * cuts requests at any row. The chunk's `preamble` is the metric's `metadata` field (type from
 * `metric_type`, `help`, the unit its name ends with), which a request carries once.
 *
 * Precomputed bytes on the hot path, all of them encoded by protobufjs: per series the row's
 * head (field tag and length, the label messages, the sample's tags), weakly cached as the text
 * encoders cache their prefixes (not a transient series': it comes once); per millisecond the timestamp field. A row is its head, the
 * value as the little-endian double protobuf's `double` is, and the timestamp field, copied into
 * one buffer per batch.
 *
 * A row holding a native histogram (its `native` column) writes it as the series' `histograms`
 * (integer counts, delta-encoded as the protocol wants) instead of a sample; a row holding an
 * exemplar adds it as the series' `exemplars` (labels `trace_id` and `span_id`). protobufjs writes
 * those rows' fields after the series' cached label bytes.
 *
 * For a 2.0 sink (`remoteWriteProtocol`) the chunk carries the batch's columns instead (`rows`): a remote write
 * 2.0 request needs one symbol table for all its rows, so the sink writes it from them
 * (lib/sinks/framing/remote-write-v2.ts). Its records are only measured, not written: the sink has them written
 * from the rows (`rows.records`) only if the receiver refuses 2.0. A chunk for a 1.0 sink keeps nothing of the
 * batch but the columns its frames share (series, offsets): a held-back sink holds thousands of chunks.
 */
export function remoteWrite({
  name,
  metricType = 'untyped',
  help,
  remoteWriteProtocol,
}: MetricMeta): RemoteWriteEncoder {
  const v2 = remoteWriteProtocol === '2.0';
  const { protobuf, WriteRequest, TimeSeries } = writeRequestMessages();
  const metric = remoteWriteMetric(name, metricType, help);
  // 1.0's MetricMetadata.type numbers the metric types as 2.0's Metadata.type does.
  const preamble = WriteRequest.encode({
    metadata: [{ type: metric.type, metricFamilyName: name, help: wellFormed(help ?? ''), unit: metric.unit }],
  }).finish();
  /** The bytes of series for a timestamp field of `stampLength` bytes (6 for any time from 1971 to 2109). */
  const headsFor = perSeriesOf((series: Series, stampLength: number): Head => {
    const labels = Object.entries({ ...series.labels, __name__: name + (series.suffix ?? '') })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ name: key, value: wellFormed(value) }));
    const labelBytes = TimeSeries.encode({ labels }).finish();
    const sampleLength = SAMPLE_LENGTH + stampLength;
    const tail = protobuf.Writer.create().uint32(TAG.samples).uint32(sampleLength).uint32(TAG.value).finish();
    const lead = protobuf.Writer.create()
      .uint32(TAG.first)
      .uint32(labelBytes.length + tail.length - 1 + sampleLength)
      .finish();
    const bytes = ownBytes(lead, labelBytes, tail);
    // The label fields are a view of the head's: one allocation a series.
    const own = bytes.subarray(lead.length, lead.length + labelBytes.length);
    return { bytes, labels: own, rowLength: bytes.length + 8 + stampLength };
  });
  /** A row with a native histogram or an exemplar: its whole `WriteRequest.timeseries` field. */
  const richRow = (labels: Uint8Array, ms: number, value: number, native?: NativeHistogram, exemplar?: Exemplar) => {
    const fields = TimeSeries.encode({
      samples: native ? [] : [{ value, timestamp: ms }],
      exemplars: exemplar ? [exemplarMessage(exemplar)] : [],
      histograms: native ? [histogramMessage(native, ms)] : [],
    }).finish();
    const lead = protobuf.Writer.create()
      .uint32(TAG.first)
      .uint32(labels.length + fields.length)
      .finish();
    return [lead, labels, fields];
  };
  let lastMs = NaN;
  let stamp: Uint8Array = new Uint8Array(0);
  let headOf = headsFor(stamp.length);
  /** Bytes of a row as the last batch wrote them, with a margin: a buffer guessed too large is held as long as its chunk. */
  let rowGuess = ROW_ESTIMATE;
  /**
   * The records of rows `[from, to)` of `batch`: where each ends (counted from `from`'s), and their bytes when
   * `write`, else nothing (measured only: one code both sizes and writes them, so sizes and bytes agree).
   */
  const records = (batch: RemoteWriteColumns, from: number, to: number, write: boolean) => {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { anchor, offset, value, series, native } = batch;
    const exemplars = new ExemplarCursor(batch.exemplars);
    let out: Buffer = Buffer.allocUnsafe(write ? (to - from) * rowGuess : 0);
    let at = 0;
    const ends = new Array<number>(to - from);
    for (let i = from; i < to; i++) {
      const ms = timestampAt(anchor, offset, i);
      if (ms !== lastMs) {
        lastMs = ms;
        stamp = protobuf.Writer.create().uint32(TAG.timestamp).int64(ms).finish();
        headOf = headsFor(stamp.length);
      }
      const head = headOf(series[i]!);
      const rowNative = native?.[i];
      const rowExemplar = exemplars.at(i);
      if (rowNative || rowExemplar) {
        const parts = richRow(head.labels, ms, value[i]!, rowNative, rowExemplar);
        const rowLength = parts[0]!.length + parts[1]!.length + parts[2]!.length;
        if (!write) at += rowLength;
        else {
          if (at + rowLength > out.length) out = grownToFit(out, at, rowLength + rowGuess * (to - i));
          for (const part of parts) at = putBytes(out, part, at);
        }
      } else {
        const { rowLength } = head;
        if (!write) at += rowLength;
        else {
          if (at + rowLength > out.length) out = grownToFit(out, at, (rowLength + ROW_MARGIN) * (to - i));
          at = putDoubleLE(out, value[i]!, putBytes(out, head.bytes, at));
          at = putBytes(out, stamp, at);
        }
      }
      ends[i - from] = at;
    }
    if (write && to > from) rowGuess = Math.ceil(at / (to - from)) + ROW_MARGIN;
    return { data: fitted(out, at, 2 * ROW_MARGIN * (to - from)), ends };
  };

  /**
   * What a chunk for a 2.0 sink writes its requests from: the columns of `batch` its rows read, made apart from
   * `encode` so that no closure of a chunk holds the whole batch.
   */
  const rowsOf = ({ anchor, offset, value, series, exemplars, native }: Labelled<SampleBatch>): RemoteWriteRows => {
    const columns: RemoteWriteColumns = { anchor, offset, value, series, exemplars, native };
    return { batch: columns, metric, records: (from, to) => records(columns, from, to, true).data };
  };

  return {
    encode(batch): RemoteWriteChunk {
      const { size } = batch;
      const { data, ends } = records(batch, 0, size, !v2);
      const perEvent = batch.events ? size / batch.events : 1;
      const frames = { ends, separator: 0, perEvent, series: batch.series, anchor: batch.anchor, offset: batch.offset };
      const bytes = size ? ends[size - 1]! : 0;
      const chunk = { size: batch.events ?? size, data, bytes, frames, preamble };
      return v2 ? { ...chunk, rows: rowsOf(batch) } : chunk;
    },
  };
}

/** prompb's `Exemplar`: the trace and span it was observed in, as labels. */
function exemplarMessage(exemplar: Exemplar) {
  return { labels: exemplarLabels(exemplar), value: exemplar.value, timestamp: exemplar.timestamp };
}

/** prompb's integer `Histogram` of a native histogram at `ms`: each bucket's count as the delta to the one before. */
function histogramMessage(h: NativeHistogram, ms: number) {
  return {
    countInt: h.count,
    sum: h.sum,
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    zeroCountInt: h.zeroCount,
    negativeSpans: h.negativeSpans,
    negativeDeltas: countDeltas(h.negativeCounts),
    positiveSpans: h.positiveSpans,
    positiveDeltas: countDeltas(h.positiveCounts),
    timestamp: ms,
  };
}

/** Bytes of a sample message without its timestamp field: the value's tag and 8 bytes. */
const SAMPLE_LENGTH = 9;
/** First guess of a row's bytes; a batch of longer rows grows its buffer. */
const ROW_ESTIMATE = 128;
/** Bytes a row of the next batch is guessed to need beyond the last batch's mean (label values differ in length). */
const ROW_MARGIN = 8;
