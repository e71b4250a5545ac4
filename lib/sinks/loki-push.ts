import { timestampOf, type EncodedBatch, type Series } from '../../operators/batch.js';
import { splitLines } from './lines.js';

/** One push request of the Loki push API (JSON form). */
export interface LokiPush {
  /** `{"streams":[{"stream":{…labels},"values":[["<ns>","<line>"],…]},…]}` */
  readonly body: string;
  /** Streams in the push (≤ the limit it was built with). */
  readonly streams: number;
  /** Events whose lines the push carries (fractional when a multi-line event spans pushes). */
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
 * Builds Loki push bodies from encoded chunks: every line goes into the stream of its event's
 * label set (static, dynamic and spike labels, i.e. `source.series[i].labels`), stamped
 * `[<epoch ns as a string>, <line>]` with the event's time. Lines are mapped to events by
 * position: encoders write the same number of lines for every row of a batch. A flush with more
 * than `maxStreams` streams becomes several pushes, none above the limit.
 *
 * Fragments are precomputed: a stream's `{"stream":{…}` head once per label set, a timestamp
 * string once per millisecond.
 */
export function lokiPushes(maxStreams: number): (chunks: readonly EncodedBatch[]) => LokiPush[] {
  const heads = new WeakMap<Series, string>();
  let lastMs = NaN;
  let lastNs = '';
  const head = (series: Series): string => {
    let text = heads.get(series);
    if (text === undefined) {
      text = `{"stream":${JSON.stringify(series.labels)},"values":[`;
      heads.set(series, text);
    }
    return text;
  };
  const ns = (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastNs = `${ms}000000`;
    }
    return lastNs;
  };

  return (chunks) => {
    const streams = new Map<string, Stream>();
    for (const chunk of chunks) {
      const lines = splitLines(chunk.data);
      if (lines.length === 0) continue;
      const { source } = chunk;
      if (source.size === 0 || lines.length % source.size !== 0) {
        throw new Error(`${lines.length} lines cannot be split evenly among the ${source.size} events they were encoded from`);
      }
      const perRow = lines.length / source.size;
      const eventsPerLine = chunk.size / lines.length;
      for (let row = 0, j = 0; row < source.size; row++) {
        const series = source.series?.[row] ?? EMPTY_LABELS;
        let stream = streams.get(series.key);
        if (!stream) streams.set(series.key, (stream = { head: head(series), values: [], size: 0 }));
        const stamp = ns(timestampOf(source, row));
        for (let k = 0; k < perRow; k++, j++) stream.values.push(`["${stamp}",${JSON.stringify(lines[j])}]`);
        stream.size += perRow * eventsPerLine;
      }
    }
    const all = [...streams.values()];
    const pushes: LokiPush[] = [];
    for (let i = 0; i < all.length; i += maxStreams) {
      const group = all.slice(i, i + maxStreams);
      const body = `{"streams":[${group.map((s) => `${s.head}${s.values.join(',')}]}`).join(',')}]}`;
      pushes.push({ body, streams: group.length, size: group.reduce((n, s) => n + s.size, 0), bytes: Buffer.byteLength(body) });
    }
    return pushes;
  };
}
