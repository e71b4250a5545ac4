import { timestampAt, type EncodedBatch } from '../../../operators/model/batch.js';
import type { Request } from '../core/batching-sink.js';

/** A Kafka message as the producer takes it. */
export interface BrokerMessage {
  /** The value of the key label; null: no key (the producer spreads such messages over the partitions). */
  readonly key: string | null;
  readonly value: Buffer;
  /** Epoch ms from the entry's clock (Kafka's CreateTime), as a string. */
  readonly timestamp: string;
  /** Events the message carries: 1, or a batch's events of its key value. */
  readonly events: number;
}

/** One send of the producer. */
export interface ProduceRequest extends Request {
  readonly messages: BrokerMessage[];
}

export interface MessageOptions {
  /** One message per event, or one per batch (per key value when there is a key label). */
  readonly messagePer: 'event' | 'batch';
  /** The label whose value keys each message, so that one series stays in one partition. */
  readonly keyLabel?: string;
  /** Events in one send at most. */
  readonly batchSize: number;
  /** Bytes of records in one send at most, as Kafka frames them (at least one event goes). */
  readonly maxBytes: number;
}

/**
 * The most bytes Kafka's record format adds to a record's key and value: its length (varint, 5), attributes (1),
 * timestamp delta (varlong, 10), offset delta (5), key and value lengths (5 each) and header count (1). Counted
 * against `maxBytes` so that a send of many small messages stays within the brokers' `message.max.bytes` too.
 */
export const RECORD_FRAMING_BYTES = 32;

/** Where one event lies in a chunk's data. */
interface EventSpan {
  readonly chunk: EncodedBatch;
  readonly start: number;
  readonly end: number;
}

/** Gathers the events of one send into its messages. */
interface SendBuilder {
  readonly events: number;
  /** Bytes of the send's records as Kafka frames them, at most. */
  readonly recordBytes: number;
  /** What an event of `bytes` bytes keyed `key` would add to {@link recordBytes}. */
  growth(key: string | null, bytes: number): number;
  add(span: EventSpan, key: string | null, timestamp: string, bytes: number): void;
  close(): ProduceRequest;
}

/**
 * Cuts buffered chunks into producer sends of at most `batchSize` events and `maxBytes` bytes of
 * records (values, keys, {@link RECORD_FRAMING_BYTES} each), at event boundaries (a histogram's series set is one event). Records come from the
 * encoder's frames: an event spans its rows, and is stamped with its first row's time.
 *
 * - `event`: each event is one message, its rows without the final line feed (a histogram
 *   event's rows stay together, separated by line feeds).
 * - `batch`: the events of one send become one message per key value (one in all without a key
 *   label), their rows exactly as the encoder wrote them, line feeds included; the message is
 *   stamped with its first event's time.
 */
export function produceRequests(options: MessageOptions): (chunks: readonly EncodedBatch[]) => ProduceRequest[] {
  const { keyLabel, batchSize, maxBytes } = options;
  const builder = options.messagePer === 'event' ? perEvent : perBatch;
  let lastMs = NaN;
  let lastStamp = '';
  const stamp = (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastStamp = String(ms);
    }
    return lastStamp;
  };

  return (chunks) => {
    const requests: ProduceRequest[] = [];
    let send = builder();
    for (const chunk of chunks) {
      const { data, frames } = chunk;
      // Read once a chunk, not a row: frames differ in shape with the encoder that made them.
      const { ends, perEvent: rows, series, anchor, offset } = frames;
      // Ends count UTF-16 code units of text: the chunk's bytes per unit turn them into bytes.
      const bytesPerUnit = typeof data === 'string' && data.length > 0 ? chunk.bytes / data.length : 1;
      for (let row = 0; row < ends.length; row += rows) {
        const start = row === 0 ? 0 : ends[row - 1]!;
        const end = ends[row + rows - 1]!;
        const bytes = (end - start) * bytesPerUnit;
        const key = keyLabel === undefined ? null : (series[row]?.labels[keyLabel] ?? null);
        if (send.events > 0 && (send.events >= batchSize || send.recordBytes + send.growth(key, bytes) > maxBytes)) {
          requests.push(send.close());
          send = builder();
        }
        send.add({ chunk, start, end }, key, stamp(timestampAt(anchor, offset, row)), bytes);
      }
    }
    if (send.events > 0) requests.push(send.close());
    return requests;
  };
}

/** A message per event. */
function perEvent(): SendBuilder {
  const messages: BrokerMessage[] = [];
  let bytes = 0;
  let recordBytes = 0;
  const growth = (key: string | null, size: number) => RECORD_FRAMING_BYTES + keyBytes(key) + size;
  return {
    get events() {
      return messages.length;
    },
    get recordBytes() {
      return recordBytes;
    },
    growth,
    add({ chunk, start, end }, key, timestamp, size) {
      const value = slice(chunk.data, start, end - chunk.frames.separator);
      bytes += value.byteLength;
      recordBytes += growth(key, size);
      messages.push({ key, value, timestamp, events: 1 });
    },
    close: () => ({ size: messages.length, bytes, messages }),
  };
}

/** A message per key value: its events' spans, adjacent ones merged. */
function perBatch(): SendBuilder {
  const groups = new Map<
    string | null,
    { spans: { data: string | Uint8Array; start: number; end: number }[]; timestamp: string; events: number }
  >();
  let events = 0;
  let recordBytes = 0;
  // An event adds its bytes to its key's message; the first of a key adds that message's record.
  const growth = (key: string | null, size: number) =>
    size + (groups.has(key) ? 0 : RECORD_FRAMING_BYTES + keyBytes(key));
  return {
    get events() {
      return events;
    },
    get recordBytes() {
      return recordBytes;
    },
    growth,
    add({ chunk, start, end }, key, timestamp, size) {
      recordBytes += growth(key, size);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { spans: [], timestamp, events: 0 }));
      const last = group.spans.at(-1);
      if (last && last.data === chunk.data && last.end === start) last.end = end;
      else group.spans.push({ data: chunk.data, start, end });
      group.events++;
      events++;
    },
    close() {
      const messages = [...groups].map(([key, { spans, timestamp, events }]) => ({
        key,
        timestamp,
        value: joined(spans),
        events,
      }));
      return { size: events, bytes: messages.reduce((n, m) => n + m.value.byteLength, 0), messages };
    },
  };
}

function keyBytes(key: string | null): number {
  return key === null ? 0 : Buffer.byteLength(key);
}

function slice(data: string | Uint8Array, start: number, end: number): Buffer {
  return typeof data === 'string'
    ? Buffer.from(data.slice(start, end))
    : Buffer.from(data.buffer, data.byteOffset + start, end - start);
}

function joined(spans: readonly { data: string | Uint8Array; start: number; end: number }[]): Buffer {
  if (spans.every((s) => typeof s.data === 'string'))
    return Buffer.from(spans.map((s) => (s.data as string).slice(s.start, s.end)).join(''));
  return Buffer.concat(spans.map((s) => slice(s.data, s.start, s.end)));
}
