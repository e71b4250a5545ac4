import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { Request } from '../core/batching-sink.js';

/** One request of a binary protocol: its body, the events it carries and their encoded bytes. */
export interface RecordRequest extends Request {
  readonly body: Uint8Array;
}

/** Records `[from, to)` of one chunk. */
export interface RecordRun {
  readonly chunk: EncodedBatch;
  readonly from: number;
  readonly to: number;
}

/** The records of one request, as runs of its chunks' records in order, and the events and bytes they make. */
export interface RecordCut extends Request {
  readonly runs: readonly RecordRun[];
}

/**
 * Cuts buffered chunks of binary records into requests of at most `limit` records and `maxBytes` bytes of
 * records, at event boundaries (at least one event each: a histogram's series set is never split), and makes
 * each request's body from its runs of records, in order ({@link recordBytes}: views of the chunks'
 * data, never copies, until `body` joins them).
 */
export function recordRequests(
  limit: number,
  body: (runs: readonly RecordRun[]) => Uint8Array,
  maxBytes = Infinity,
): (chunks: readonly EncodedBatch[]) => RecordRequest[] {
  return (chunks) =>
    cutRecords(limit, chunks, maxBytes).map(({ size, bytes, runs }) => ({ size, bytes, body: body(runs) }));
}

/**
 * Cuts buffered chunks into the records of requests of at most `limit` records and `maxBytes` bytes of records
 * (at least one event each), at event boundaries. A record that holds several events (`frames.events`: an OTLP
 * `ResourceSpans`) counts as its events, and is never split.
 */
export function cutRecords(limit: number, chunks: readonly EncodedBatch[], maxBytes = Infinity): RecordCut[] {
  const cuts: RecordCut[] = [];
  let runs: RecordRun[] = [];
  let records = 0;
  let events = 0;
  let bytes = 0;
  const close = () => {
    cuts.push({ size: events, bytes, runs });
    runs = [];
    records = events = bytes = 0;
  };
  for (const chunk of chunks) {
    const { ends, perEvent, events: held } = chunk.frames;
    for (let row = 0; row < ends.length; ) {
      // A record holding several events goes alone and counts as its events; other records go
      // in whole events, as many as the limits leave room for.
      const start = row === 0 ? 0 : ends[row - 1]!;
      const first = held ? held[row]! : perEvent;
      const firstBytes = ends[row + (held ? 1 : perEvent) - 1]! - start;
      if (records > 0 && (records + first > limit || bytes + firstBytes > maxBytes)) close();
      const take = held
        ? 1
        : eventsWithin(
            ends,
            row,
            start,
            Math.min(ends.length - row, Math.max(perEvent, Math.floor((limit - records) / perEvent) * perEvent)),
            perEvent,
            maxBytes - bytes,
          );
      runs.push({ chunk, from: row, to: row + take });
      records += held ? first : take;
      events += held ? first : take / perEvent;
      bytes += ends[row + take - 1]! - start;
      row += take;
    }
  }
  if (records > 0) close();
  return cuts;
}

/**
 * Of the `rows` records from `row` (whole events of `perEvent`, from byte `start`), the most that fit in `room` bytes:
 * at least one event.
 */
function eventsWithin(
  ends: ArrayLike<number>,
  row: number,
  start: number,
  rows: number,
  perEvent: number,
  room: number,
): number {
  // Most often all fit (no byte cap, or small records): no search.
  if (ends[row + rows - 1]! - start <= room) return rows;
  let fits = 1;
  let over = rows / perEvent + 1;
  // Ends grow with the row: a binary search for the last event that ends within the room.
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (ends[row + mid * perEvent - 1]! - start <= room) fits = mid;
    else over = mid;
  }
  return fits * perEvent;
}

/** The distinct preambles of the chunks of `runs`, in order. */
export function preamblesOf(runs: readonly RecordRun[]): Uint8Array[] {
  const preambles = new Set<Uint8Array>();
  for (const { chunk } of runs) if (chunk.preamble) preambles.add(chunk.preamble as Uint8Array);
  return [...preambles];
}

/** The bytes of a run's records: a view of its chunk's data. */
export function recordBytes({ chunk, from, to }: RecordRun): Uint8Array {
  const { ends } = chunk.frames;
  return (chunk.data as Uint8Array).subarray(from === 0 ? 0 : ends[from - 1]!, ends[to - 1]!);
}
