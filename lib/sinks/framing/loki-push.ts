import { nanosecondsWithin, recordOf, timestampAt, type EncodedBatch } from '../../../operators/model/batch.js';
import type { Series } from '../../../operators/model/series.js';
import { perSeries } from '../../per-object.js';
import { nanosecondsText } from '../../protocols/epoch-text.js';

/** One push request of the Loki push API (JSON form). */
export interface LokiPush {
  /** `{"streams":[{"stream":{…labels},"values":[["<ns>","<line>"],…]},…]}` */
  readonly body: string;
  /** Streams in the push (≤ the limit it was built with). */
  readonly streams: number;
  /** Events whose records the push carries (fractional when the rows of one event span pushes). */
  readonly size: number;
  readonly bytes: number;
}

interface Stream {
  /** `{"stream":{…},"values":[` */
  readonly head: string;
  readonly values: string[];
  size: number;
}

const EMPTY_LABELS = Object.freeze({ labels: Object.freeze({}), key: '' }) as Series;

/**
 * Builds Loki push bodies from encoded chunks: every record (see {@link Frames}) goes into the
 * stream of its label set (static, dynamic and spike labels: `frames.series[i].labels`),
 * stamped `[<epoch ns as a string>, <record>]` with its tick's time (to the nanosecond), its separator left out; a record
 * naming a span (`trace_context`) carries its ids as structured metadata (Loki 3:
 * `[<ns>, <record>, {"trace_id": …, "span_id": …}]`), not as labels, which would make a stream
 * per span. A flush
 * with more than `maxStreams` streams becomes several pushes, none above the limit.
 *
 * Fragments are precomputed: a stream's `{"stream":{…}` head once per label set, a timestamp
 * string once per tick time.
 */
export function lokiPushes(maxStreams: number): (chunks: readonly EncodedBatch[]) => LokiPush[] {
  const head = perSeries((series: Series): string => `{"stream":${JSON.stringify(series.labels)},"values":[`);
  const nanosecondsOf = nanosecondsText();
  let lastMs = NaN;
  let lastNanos = NaN;
  let lastNs = '';
  // The tick's own time, below the millisecond too: Loki drops an entry with the time and line of one it has, so
  // identical records in one millisecond (above 1000 events/s) would be lost at millisecond precision.
  const ns = (anchor: number, offset: Float64Array, i: number): string => {
    const ms = timestampAt(anchor, offset, i);
    const nanos = nanosecondsWithin(anchor, offset, i, ms);
    if (ms !== lastMs || nanos !== lastNanos) {
      lastMs = ms;
      lastNanos = nanos;
      lastNs = nanosecondsOf(ms, nanos);
    }
    return lastNs;
  };

  return (chunks) => {
    const streams = new Map<string, Stream>();
    for (const chunk of chunks) {
      // Read once a chunk, not a record: frames differ in shape with the encoder that made them.
      const { ends, perEvent, series: seriesOfRecord, context: contexts, anchor, offset } = chunk.frames;
      const weight = 1 / perEvent;
      for (let i = 0; i < ends.length; i++) {
        const series = seriesOfRecord[i] ?? EMPTY_LABELS;
        let stream = streams.get(series.key);
        if (!stream) streams.set(series.key, (stream = { head: head(series), values: [], size: 0 }));
        const context = contexts?.[i];
        const metadata = context ? `,{"trace_id":"${context.traceId}","span_id":"${context.spanId}"}` : '';
        stream.values.push(`["${ns(anchor, offset, i)}",${JSON.stringify(text(recordOf(chunk, i)))}${metadata}]`);
        stream.size += weight;
      }
    }
    const all = [...streams.values()];
    const pushes: LokiPush[] = [];
    for (let i = 0; i < all.length; i += maxStreams) {
      const group = all.slice(i, i + maxStreams);
      const body = `{"streams":[${group.map((s) => `${s.head}${s.values.join(',')}]}`).join(',')}]}`;
      pushes.push({
        body,
        streams: group.length,
        size: group.reduce((n, s) => n + s.size, 0),
        bytes: Buffer.byteLength(body),
      });
    }
    return pushes;
  };
}

/** A record as text: binary records are read as UTF-8. */
function text(record: string | Uint8Array): string {
  return typeof record === 'string'
    ? record
    : Buffer.from(record.buffer, record.byteOffset, record.byteLength).toString('utf8');
}
