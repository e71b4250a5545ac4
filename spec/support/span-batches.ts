import { SAMPLED_FLAG, SPAN_STATUS, SpanWriter, type SpanBatch, type SpanNode } from '../../operators/model/span.js';

export const NODE: SpanNode = {
  service: 'payment',
  name: 'POST /pay',
  kind: 'server',
  attributes: {},
  picked: [],
  exception: { type: 'Error', message: 'failed' },
};

/**
 * A batch of one tick, `offset` ms after 0, holding root spans of `payment`'s `POST /pay` (server) starting then, of
 * these durations (seconds), span k with trace id word 100 + k and span id 200 + k, its trace sampled; `failed` ones
 * raised an error.
 */
export function spanBatch(seconds: readonly number[], failed: readonly number[] = [], offset = 0): SpanBatch {
  const writer = new SpanWriter([NODE]);
  seconds.forEach((duration, k) => {
    const s = writer.add(0, -1, { service: 'payment', attributes: {} });
    writer.traceId.set([0, 0, 0, 100 + k], 4 * s);
    writer.spanId.set([0, 200 + k], 2 * s);
    writer.start[s] = offset * 1e6;
    writer.end[s] = offset * 1e6 + duration * 1e9;
    writer.flags[s] = SAMPLED_FLAG;
    if (failed.includes(k)) writer.status[s] = SPAN_STATUS.error;
  });
  const spans = writer.finish();
  return {
    size: 1,
    anchor: 0,
    index: Float64Array.of(0),
    offset: Float64Array.of(offset),
    spans,
    firstSpan: Float64Array.of(0),
    spanCount: Float64Array.of(spans.size),
  };
}

/** `batch` with the id of its first span ending in the byte `id` (the rest zero), to tell spans apart by it. */
export function withSpanId(batch: SpanBatch, id: number): SpanBatch {
  batch.spans.spanId.set([0, id], 0);
  return batch;
}
