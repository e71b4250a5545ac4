import type { Writer } from 'protobufjs';
import { timestampOf, type EncodedBatch, type Labelled, type SampleBatch, type Series } from '../../operators/model/batch.js';
import type { MetricType } from '../language/types.js';
import type { Encoder, MetricMeta } from './encoder.js';
import { TAG, writeRequestMessages } from './write-request.js';

/** A metric encoder whose chunks are remote-write protobuf. */
export type RemoteWriteEncoder = Encoder<Labelled<SampleBatch>, Uint8Array>;

/** `MetricMetadata.type` of each metric_type. */
const METADATA_TYPE: Readonly<Record<MetricType, number>> = { untyped: 0, counter: 1, gauge: 2, histogram: 3, summary: 5 };

/**
 * Prometheus remote-write encoder: each row of a batch becomes one `TimeSeries` (its labels,
 * `__name__` among them, sorted by name as the protocol requires; one sample with the row's
 * value and millisecond timestamp), written as a `WriteRequest.timeseries` field. Such fields
 * concatenate into one `WriteRequest`, so each row is a record of the chunk's frames and a sink
 * cuts requests at any row. The chunk's `preamble` is the metric's `metadata` field (type from
 * `metric_type`, `help`), which a request carries once.
 *
 * Label messages are encoded once per series (weakly cached, as the text encoders cache their
 * prefixes); a row costs its sample and the length prefixes.
 */
export function remoteWrite({ name, metricType = 'untyped', help }: MetricMeta): RemoteWriteEncoder {
  const { protobuf, WriteRequest, Label } = writeRequestMessages();
  const preamble = WriteRequest.encode({ metadata: [{ type: METADATA_TYPE[metricType], metricFamilyName: name, help: help ?? '' }] }).finish();
  const labelMessages = new WeakMap<Series, readonly Uint8Array[]>();
  const labelsOf = (series: Series): readonly Uint8Array[] => {
    let found = labelMessages.get(series);
    if (!found) {
      const labels = Object.entries({ ...series.labels, __name__: name + (series.suffix ?? '') }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      found = labels.map(([key, value]) => Label.encode({ name: key, value }).finish());
      labelMessages.set(series, found);
    }
    return found;
  };

  return {
    encode(batch): EncodedBatch<Uint8Array> {
      const { size, value, series } = batch;
      const writer: Writer = protobuf.Writer.create();
      const ends = new Array<number>(size);
      for (let i = 0; i < size; i++) {
        writer.uint32(TAG.first).fork();
        for (const label of labelsOf(series[i]!)) writer.uint32(TAG.first).bytes(label);
        writer.uint32(TAG.samples).fork().uint32(TAG.value).double(value[i]!).uint32(TAG.timestamp).int64(timestampOf(batch, i)).ldelim();
        writer.ldelim();
        ends[i] = writer.len;
      }
      const perEvent = batch.events ? size / batch.events : 1;
      const frames = { ends, separator: 0, perEvent, series, anchor: batch.anchor, offset: batch.offset };
      return { size: batch.events ?? size, data: writer.finish(), frames, preamble };
    },
  };
}
