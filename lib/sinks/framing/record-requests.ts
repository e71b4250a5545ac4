import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { Request } from '../core/batching-sink.js';

/** One request of a binary protocol: its body, the events it carries and their encoded bytes. */
export interface RecordRequest extends Request {
  readonly body: Uint8Array;
}

/**
 * Cuts buffered chunks of binary records into requests of at most `limit` records, at event
 * boundaries (at least one event each: a histogram's series set is never split), and makes each
 * request's body from the distinct preambles of its chunks and its records, in order. Records
 * are views of the chunks' data, never copies, until `body` joins them. A record that holds
 * several events (`frames.events`: an OTLP `ResourceSpans`) counts as its events, and is never split.
 */
export function recordRequests(
  limit: number,
  body: (preambles: readonly Uint8Array[], records: readonly Uint8Array[], bytes: number) => Uint8Array,
): (chunks: readonly EncodedBatch[]) => RecordRequest[] {
  return (chunks) => {
    const requests: RecordRequest[] = [];
    let preambles = new Set<Uint8Array>();
    let parts: Uint8Array[] = [];
    let records = 0;
    let events = 0;
    let bytes = 0;
    const close = () => {
      requests.push({ size: events, bytes, body: body([...preambles], parts, bytes) });
      preambles = new Set();
      parts = [];
      records = events = bytes = 0;
    };
    for (const chunk of chunks) {
      const data = chunk.data as Uint8Array;
      const { ends, perEvent, events: held } = chunk.frames;
      for (let row = 0; row < ends.length; ) {
        // A record holding several events goes alone and counts as its events; other records go
        // in whole events, as many as the limit leaves room for.
        const first = held ? held[row]! : perEvent;
        if (records > 0 && records + first > limit) close();
        const take = held
          ? 1
          : Math.min(ends.length - row, Math.max(perEvent, Math.floor((limit - records) / perEvent) * perEvent));
        const start = row === 0 ? 0 : ends[row - 1]!;
        const end = ends[row + take - 1]!;
        if (chunk.preamble) preambles.add(chunk.preamble as Uint8Array);
        parts.push(data.subarray(start, end));
        records += held ? first : take;
        events += held ? first : take / perEvent;
        bytes += end - start;
        row += take;
      }
    }
    if (records > 0) close();
    return requests;
  };
}
