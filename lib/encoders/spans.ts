/**
 * What the trace encoders share: the loop over a batch's kept spans into one buffer, the frames
 * of span records, and the text pieces of the JSON formats (ids in hex, RFC 3339 times with
 * nanoseconds, attributes as JSON members prepared once per node).
 */
import type { EncodedBatch, Frames } from '../../operators/model/batch.js';
import type { Series } from '../../operators/model/series.js';
import {
  SPAN_STATUS,
  spansIn,
  type AttributeValue,
  type SpanBatch,
  type SpanColumns,
  type SpanNode,
  type SpanResource,
} from '../../operators/model/span.js';
import { seriesOf } from '../../operators/model/series.js';
import type { Encoder } from './encoder.js';
import { grown } from './grow.js';
import { putBytes } from '../protocols/bytes.js';
import { writeInteger } from './shortest.js';
import { perObject } from '../per-object.js';
import { writeHexWords } from './id-words.js';

/** Encoder of spans (a traces entry). */
export type TraceEncoder = Encoder<SpanBatch, Uint8Array>;

/** A resource as a label set (attribute values as text): what frames name as a record's series. */
export const seriesOfResource = perObject(
  (resource: SpanResource): Series =>
    seriesOf(Object.fromEntries(Object.entries(resource.attributes).map(([k, v]) => [k, String(v)]))),
);

/**
 * Frames of `ends.length` records of a span batch, each stamped at its first span's start; `events`:
 * the spans of each record when a record holds several.
 */
export function spanFrames(
  batch: SpanBatch,
  ends: number[],
  separator: number,
  series: Series[],
  offset: Float64Array,
  events?: readonly number[],
): Frames {
  return { ends, separator, perEvent: 1, series, anchor: batch.anchor, offset, ...(events && { events }) };
}

/** Bytes a text span takes beyond its node's and resource's prepared pieces: ids, times, status, an event, a link. */
const SPAN_TEXT_BYTES = 640;

/** How one format writes a span as text, its node's and resource's pieces prepared once. */
export interface SpanText<N, R> {
  /** The bytes before the first record, between records, and after the last (a JSON array's brackets and commas; lines: none, LF, LF). */
  readonly open: string;
  readonly separator: string;
  readonly close: string;
  node(node: SpanNode): N;
  resource(resource: SpanResource): R;
  /** Most bytes span `s` takes, its pieces aside. */
  room(node: N, resource: R, spans: SpanColumns, s: number): number;
  write(out: Buffer, at: number, node: N, resource: R, spans: SpanColumns, s: number, times: SpanTimes): number;
}

/** Span times of one batch, in the units the text formats write: epoch ms and the nanoseconds after it. */
export interface SpanTimes {
  /** Epoch ms of span time `ns` (ns after the batch anchor), and the ns within that ms. */
  msOf(ns: number): number;
  nsIn(ns: number, ms: number): number;
  /** Epoch microseconds of span time `ns`, whole. */
  micros(ns: number): number;
}

/**
 * An encoder writing each kept span of a batch as one text record into one buffer: `open`, the
 * records separated by `separator`, `close`; record i ends after the separator (or `close`) that
 * follows it, so frames cut records at their separator byte. A node's and a resource's pieces
 * are prepared once per object (weakly). An empty batch is no bytes at all.
 */
export function spanTextEncoder<N, R>(format: SpanText<N, R>): TraceEncoder {
  const nodeOf = perObject(format.node);
  const resourceOf = perObject(format.resource);
  const open = Buffer.from(format.open);
  const separator = Buffer.from(format.separator);
  const close = Buffer.from(format.close);
  let spanGuess = SPAN_TEXT_BYTES;
  return {
    encode(batch): EncodedBatch<Buffer> {
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size: ticks, anchor, spans, firstSpan, spanCount } = batch;
      const records = spansIn(batch);
      const ends = new Array<number>(records);
      const series = new Array<Series>(records);
      const offset = new Float64Array(records);
      if (records === 0)
        return { size: 0, data: Buffer.alloc(0), bytes: 0, frames: spanFrames(batch, [], 0, [], offset) };
      const anchorMs = Math.floor(anchor);
      const anchorNs = Math.round((anchor - anchorMs) * 1e6);
      const times: SpanTimes = {
        msOf: (ns) => anchorMs + Math.floor((ns + anchorNs) / 1e6),
        nsIn: (ns, ms) => ns + anchorNs - (ms - anchorMs) * 1e6,
        micros: (ns) => anchorMs * 1000 + Math.floor((ns + anchorNs) / 1000),
      };
      let out: Buffer = Buffer.allocUnsafe(records * spanGuess);
      let at = putBytes(out, open, 0);
      let r = 0;
      let lastNode: SpanNode | undefined;
      let node: N | undefined;
      let lastResource: SpanResource | undefined;
      let resource: R | undefined;
      for (let i = 0; i < ticks; i++) {
        const last = firstSpan[i]! + spanCount[i]!;
        for (let s = firstSpan[i]!; s < last; s++) {
          // Consecutive spans often share a node or resource: no lookup then.
          const spanNode = spans.nodes[spans.node[s]!]!;
          if (spanNode !== lastNode) node = nodeOf((lastNode = spanNode));
          const spanResource = spans.resource[s]!;
          if (spanResource !== lastResource) resource = resourceOf((lastResource = spanResource));
          const room = format.room(node!, resource!, spans, s) + SPAN_TEXT_BYTES;
          if (at + room > out.length) out = grown(out, at, room + (records - r) * spanGuess);
          at = format.write(out, at, node!, resource!, spans, s, times);
          at = putBytes(out, r === records - 1 ? close : separator, at);
          ends[r] = at;
          series[r] = seriesOfResource(spanResource);
          offset[r] = spans.start[s]! / 1e6;
          r++;
        }
      }
      spanGuess = Math.ceil(at / records) + 16;
      return {
        size: records,
        data: out.subarray(0, at),
        bytes: at,
        frames: spanFrames(batch, ends, 1, series, offset),
      };
    },
  };
}

/**
 * The opening of a JSON span up to its ids, named by the format: `{"<trace>":"<hex>","<span>":"<hex>`
 * and, for a child, `","<parent>":"<hex>`; the last string is left open for the node's text.
 */
export function jsonIds(
  trace: string,
  span: string,
  parent: string,
): (out: Buffer, at: number, spans: SpanColumns, s: number) => number {
  const [traceKey, spanKey, parentKey] = [`{"${trace}":"`, `","${span}":"`, `","${parent}":"`].map((text) =>
    Buffer.from(text),
  ) as [Buffer, Buffer, Buffer];
  return (out, at, spans, s) => {
    at = writeHexWords(out, spans.traceId, 4 * s, 4, putBytes(out, traceKey, at));
    at = writeHexWords(out, spans.spanId, 2 * s, 2, putBytes(out, spanKey, at));
    const p = spans.parent[s]!;
    return p < 0 ? at : writeHexWords(out, spans.spanId, 2 * p, 2, putBytes(out, parentKey, at));
  };
}

const ZERO = 0x30;

/**
 * RFC 3339 UTC with nanoseconds (`2024-01-01T00:00:00.123456789Z`), from epoch ms and the ns
 * within it; the text up to the second is made once per second.
 */
export function rfc3339Nanos(): (out: Buffer, at: number, ms: number, ns: number) => number {
  let second = Number.NaN;
  let head = Buffer.alloc(0);
  return (out, at, ms, ns) => {
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      second = s;
      // `YYYY-MM-DDTHH:MM:SS.`: the ISO string up to its fraction.
      const iso = new Date(s * 1000).toISOString();
      head = Buffer.from(iso.slice(0, iso.lastIndexOf('.') + 1));
    }
    at = putBytes(out, head, at);
    let fraction = (ms - s * 1000) * 1e6 + ns;
    for (let p = at + 8; p >= at; p--) {
      const next = Math.floor(fraction / 10);
      out[p] = ZERO + fraction - next * 10;
      fraction = next;
    }
    out[at + 9] = 0x5a; // Z
    return at + 10;
  };
}

/** The OpenTelemetry attribute naming the class of a failed span's error. */
export const ERROR_TYPE = 'error.type';
/** `error.type` when no type is known: the semantic conventions' fallback. */
const OTHER_ERROR_TYPE = '_OTHER';
const HTTP_STATUS_CODE = 'http.response.status_code';

/** The `error.type` values of a node's failed spans, and which one a span carries. */
export interface ErrorTypes {
  /** The values its failed spans carry, each once; empty when the node sets `error.type` itself. */
  readonly values: readonly string[];
  /** The index in `values` of span `s`'s `error.type`; -1 when it carries none (not in error). */
  at(spans: SpanColumns, s: number): number;
}

/**
 * The `error.type` of a node's spans in error (docs/traces.md): the status code as a string when its
 * `http.response.status_code` (a number: fixed, or each value of a list) is 400 or more, else its exception's
 * type, which is also the type of a failure it sees from a call (svc raises one type in every span); `_OTHER`
 * when there is none. A node whose attributes name `error.type` keeps its own.
 */
export const errorTypesOf = perObject((node: SpanNode): ErrorTypes => {
  const failing = (spans: SpanColumns, s: number) => spans.status[s] !== SPAN_STATUS.unset;
  const own = node.exception.type || OTHER_ERROR_TYPE;
  const code = (value: AttributeValue | undefined) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 400 ? String(value) : own;
  if (Object.hasOwn(node.attributes, ERROR_TYPE) || node.picked.some(({ key }) => key === ERROR_TYPE))
    return { values: [], at: () => -1 };
  const j = node.picked.findIndex(({ key }) => key === HTTP_STATUS_CODE);
  const list = node.picked[j];
  if (list === undefined || !('values' in list)) {
    const values = [code(node.attributes[HTTP_STATUS_CODE])];
    return { values, at: (spans, s) => (failing(spans, s) ? 0 : -1) };
  }
  // A picked status code: the value of each pick.
  const types = list.values.map(code);
  const values = [...new Set(types)];
  const byPick = Int32Array.from(types, (type) => values.indexOf(type));
  return { values, at: (spans, s) => (failing(spans, s) ? byPick[spans.picks[spans.pickAt[s]! + j]!]! : -1) };
});

/** The JSON members of a node's attributes as a format writes them: the fixed ones joined, and each picked one's pieces. */
export interface AttributeMembers {
  /** `"k":v,"k2":v2` (no braces), empty without fixed attributes. */
  readonly fixed: Buffer;
  /**
   * Per picked attribute: a list's members (`"k":v`), or a counter's member up to its number (`"k":"prefix`); null:
   * left out (its pick keeps its place).
   */
  readonly picked: readonly (readonly Buffer[] | Buffer | null)[];
  /** Most bytes the picked members take. */
  readonly pickedRoom: number;
}

/**
 * A node's attribute members, each value written by `json` (a JSON value as the format wants it); the attribute named
 * `omit`, if any, left out.
 */
export function attributeMembers(
  node: SpanNode,
  json: (value: AttributeValue) => string,
  omit?: string,
): AttributeMembers {
  const member = (key: string, value: AttributeValue) => `${JSON.stringify(key)}:${json(value)}`;
  const fixed = Buffer.from(
    Object.entries(node.attributes)
      .filter(([key]) => key !== omit)
      .map(([key, value]) => member(key, value))
      .join(','),
  );
  const picked = node.picked.map((attribute) =>
    attribute.key === omit
      ? null
      : 'values' in attribute
        ? attribute.values.map((value) => Buffer.from(member(attribute.key, value)))
        : Buffer.from(`${JSON.stringify(attribute.key)}:${JSON.stringify(attribute.prefix).slice(0, -1)}`),
  );
  // A counter's number has at most 8 digits (cardinality ≤ 10^7), then its closing quote.
  const pickedRoom = picked.reduce(
    (sum, p) => sum + (p === null ? 0 : 1 + (Array.isArray(p) ? Math.max(...p.map((b) => b.length)) : p.length + 9)),
    0,
  );
  return { fixed, picked, pickedRoom };
}

/**
 * Writes span `s`'s attribute members (`members.fixed`, then its picks) into `out` at `at`,
 * each after a comma unless it is the first and `first` is true; returns where they end.
 */
export function writeMembers(
  out: Buffer,
  at: number,
  members: AttributeMembers,
  spans: SpanColumns,
  s: number,
  first: boolean,
): number {
  const { fixed, picked } = members;
  if (fixed.length > 0) {
    if (!first) out[at++] = 0x2c;
    at = putBytes(out, fixed, at);
    first = false;
  }
  const from = spans.pickAt[s]!;
  for (let j = 0; j < picked.length; j++) {
    const pieces = picked[j]!;
    if (pieces === null) continue;
    if (!first) out[at++] = 0x2c;
    first = false;
    const pick = spans.picks[from + j]!;
    if (Array.isArray(pieces)) at = putBytes(out, pieces[pick]!, at);
    else {
      at = writeInteger(out, pick, putBytes(out, pieces as Buffer, at));
      out[at++] = 0x22; // the counter's closing quote
    }
  }
  return at;
}

/** A node's `error.type` as a JSON member, one per value it takes. */
export interface ErrorMembers {
  readonly types: ErrorTypes;
  /** `"error.type":v` of each of `types.values`. */
  readonly members: readonly Buffer[];
  /** Most bytes a member takes, with its comma. */
  readonly room: number;
}

/** A node's `error.type` members, each value written by `json` (as its other attributes are). */
export function errorMembers(node: SpanNode, json: (value: AttributeValue) => string): ErrorMembers {
  const types = errorTypesOf(node);
  const members = types.values.map((value) => Buffer.from(`${JSON.stringify(ERROR_TYPE)}:${json(value)}`));
  return { types, members, room: Math.max(0, ...members.map((member) => 1 + member.length)) };
}

/** Writes span `s`'s `error.type` member if it has one, after a comma unless `first`; returns where it ends. */
export function writeErrorMember(
  out: Buffer,
  at: number,
  { types, members }: ErrorMembers,
  spans: SpanColumns,
  s: number,
  first: boolean,
): number {
  const type = types.at(spans, s);
  if (type < 0) return at;
  if (!first) out[at++] = 0x2c;
  return putBytes(out, members[type]!, at);
}
