import type { EncodedBatch } from '../../operators/model/batch.js';
import type { Series } from '../../operators/model/series.js';
import {
  SPAN_STATUS,
  spansIn,
  type SpanColumns,
  type SpanNode,
  type SpanResource,
} from '../../operators/model/span.js';
import {
  OTLP_SPAN_KIND,
  OTLP_STATUS_ERROR,
  OTLP_TAG,
  SPAN_TAG,
  otlpMessages,
  resourceField,
  typedAttributes,
} from '../protocols/otlp.js';
import { VERSION } from '../version.js';
import { varintBytes, writeVarint } from '../protocols/varint.js';
import { writeInteger } from './shortest.js';
import { putBytes, putUInt32LE, wellFormed } from '../protocols/bytes.js';
import { writeIdBytes } from './id-words.js';
import { ERROR_TYPE, errorTypesOf, seriesOfResource, spanFrames, type ErrorTypes, type TraceEncoder } from './spans.js';
import { perObject } from '../per-object.js';

/** What every span of a node writes alike, as Span fields. */
interface NodeBytes {
  /** `name`, `kind` and the fixed attributes. */
  readonly fixed: Buffer;
  /** Per picked attribute: a list's `attributes` fields, one per value; or a counter's KeyValue up to its value's length. */
  readonly picked: readonly (readonly Buffer[] | CounterBytes)[];
  /** The `events` field of an error raised in the span: its tag and length, then (after the event's time) its name and attributes. */
  readonly eventHead: Buffer;
  readonly eventBody: Buffer;
  /** The `status` field of an error raised in the span. */
  readonly error: Buffer;
  readonly errorTypes: ErrorTypes;
  /** The `attributes` field of each of `errorTypes.values`. */
  readonly errorType: readonly Buffer[];
}

/** A counted attribute's bytes: the KeyValue's key field and value tag; the value is AnyValue{string_value: prefix + n}. */
interface CounterBytes {
  readonly key: Buffer;
  readonly prefix: Buffer;
}

/** Bytes of the fields every span has: ids (18 + 10), times (9 + 9), flags (2 + 4). */
const SPAN_FIXED_BYTES = 18 + 10 + 9 + 9 + 6;
const PARENT_BYTES = 10;
/** A link: its field's tag and length, then a trace id, a span id and flags. */
const LINK_BODY = 18 + 10 + 5;
const LINK_BYTES = 2 + LINK_BODY;
/** `status` of a span that saw a call fail: the error code, no message. */
const FAILED_CALL = Buffer.from([SPAN_TAG.status, 2, (3 << 3) | 0, OTLP_STATUS_ERROR]);
const TWO_32 = 0x1_0000_0000;
/**
 * Most spans and bytes of spans in one `ResourceSpans` record: a resource's spans of a batch (up to about 4,096, in
 * a backfill or at high rates) go in several, as the OTLP sinks never split a record. So their requests keep to
 * `batch_size` (1,000 by default; one of fewer than 64 may be exceeded by a record) and to the 4 MiB a collector's
 * gRPC receiver takes: 4,096 spans with a 1.5 KB attribute each made one 6.5 MB request it refused.
 */
const MAX_RECORD_SPANS = 64;
const MAX_RECORD_BYTES = 1 << 20;

/** Digits of `n`, a non-negative integer below 10^16. */
function digits(n: number): number {
  let count = 1;
  while (n >= 10 ** count) count++;
  return count;
}

/**
 * OTLP traces encoder: each batch is one `ExportTraceServiceRequest` (TracesData): one
 * `ResourceSpans` per resource met in the batch (a service; with pods, a service's pod; several for one of more
 * than {@link MAX_RECORD_SPANS} spans or {@link MAX_RECORD_BYTES} bytes), its
 * attributes the service's resource, holding one `ScopeSpans` (scope `svc` and its version) with
 * that resource's spans in batch order. A span carries its ids, parent, name, kind, times in
 * nanoseconds, typed attributes (int, double, bool, string; a span in error's `error.type` last),
 * W3C trace flags, a link (a `new_trace` consumer's producer), and for an error raised in it an `exception` event at its
 * end and status error with the exception message (status error alone when it saw a call fail).
 *
 * Records of the frames are the `ResourceSpans` fields, each stamped at its first span and
 * named by its resource: any run of them, concatenated, is itself an ExportTraceServiceRequest.
 * `size` counts spans. A node's name, kind, fixed attributes, event and status are encoded by
 * protobufjs once; per span only ids, times, picks and flags are written.
 */
export function otlpTraces(): TraceEncoder {
  const { protobuf, type } = otlpMessages();
  const field = (tag: number, bytes: Uint8Array) =>
    Buffer.from(protobuf.Writer.create().uint32(tag).bytes(bytes).finish());
  const scope = field(OTLP_TAG.first, type('InstrumentationScope').encode({ name: 'svc', version: VERSION }).finish());
  const nodeOf = perObject((node: SpanNode): NodeBytes => {
    const Span = type('Span');
    const event = Buffer.from(
      Span.lookupType('Event')
        .encode({
          name: 'exception',
          attributes: typedAttributes({
            'exception.type': node.exception.type,
            'exception.message': node.exception.message,
          }),
        })
        .finish(),
    );
    // The event's time (9 bytes) is written first, per span.
    const eventLength = 9 + event.length;
    const eventHead = Buffer.alloc(1 + varintBytes(eventLength));
    eventHead[0] = SPAN_TAG.events;
    writeVarint(eventHead, eventLength, 1);
    const errorTypes = errorTypesOf(node);
    return {
      fixed: Buffer.from(
        Span.encode({
          name: wellFormed(node.name),
          kind: OTLP_SPAN_KIND[node.kind],
          attributes: typedAttributes(node.attributes),
        }).finish(),
      ),
      picked: node.picked.map((attribute) =>
        'values' in attribute
          ? attribute.values.map((value) =>
              Buffer.from(Span.encode({ attributes: typedAttributes({ [attribute.key]: value }) }).finish()),
            )
          : {
              key: Buffer.from(
                protobuf.Writer.create().uint32(SPAN_TAG.key).string(wellFormed(attribute.key)).finish(),
              ),
              prefix: Buffer.from(attribute.prefix),
            },
      ),
      eventHead,
      eventBody: event,
      error: Buffer.from(
        Span.encode({ status: { message: wellFormed(node.exception.message), code: OTLP_STATUS_ERROR } }).finish(),
      ),
      errorTypes,
      errorType: errorTypes.values.map((value) =>
        Buffer.from(Span.encode({ attributes: typedAttributes({ [ERROR_TYPE]: value }) }).finish()),
      ),
    };
  });
  const resourceOf = perObject((resource: SpanResource) =>
    Buffer.from(resourceField(typedAttributes(resource.attributes))),
  );

  /** Bytes of span `s`'s Span message (its `spans` field's tag and length aside). */
  const spanLength = (spans: SpanColumns, s: number, node: NodeBytes): number => {
    let length = SPAN_FIXED_BYTES + node.fixed.length;
    if (spans.parent[s]! >= 0) length += PARENT_BYTES;
    const from = spans.pickAt[s]!;
    for (let j = 0; j < node.picked.length; j++) {
      const pieces = node.picked[j]!;
      const pick = spans.picks[from + j]!;
      length += Array.isArray(pieces) ? pieces[pick]!.length : counterLength(pieces as CounterBytes, pick);
    }
    const type = node.errorTypes.at(spans, s);
    if (type >= 0) length += node.errorType[type]!.length;
    const status = spans.status[s]!;
    if (status === SPAN_STATUS.error) length += node.eventHead.length + 9 + node.eventBody.length + node.error.length;
    else if (status === SPAN_STATUS.failedCall) length += FAILED_CALL.length;
    if (spans.link[s]! >= 0) length += LINK_BYTES;
    return length;
  };

  // Scratch of one batch, kept between batches: the spans in order, their lengths and groups.
  let rows = new Int32Array(0);
  let lengths = new Int32Array(0);
  let groupOfRow = new Int32Array(0);

  return {
    encode(batch): EncodedBatch<Uint8Array> {
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size: ticks, anchor, spans, firstSpan, spanCount } = batch;
      const size = spansIn(batch);
      if (rows.length < size)
        [rows, lengths, groupOfRow] = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
      // Pass 1: each span's length and group (one per resource in order of first appearance, a new one when it is full).
      const groups = new Map<SpanResource, number>();
      const groupResources: SpanResource[] = [];
      const groupBytes: number[] = [];
      const groupSpans: number[] = [];
      const groupStart: number[] = [];
      let r = 0;
      for (let i = 0; i < ticks; i++) {
        const last = firstSpan[i]! + spanCount[i]!;
        for (let s = firstSpan[i]!; s < last; s++, r++) {
          const resource = spans.resource[s]!;
          const length = spanLength(spans, s, nodeOf(spans.nodes[spans.node[s]!]!));
          const field = 1 + varintBytes(length) + length;
          let group = groups.get(resource);
          if (
            group === undefined ||
            groupSpans[group]! >= MAX_RECORD_SPANS ||
            groupBytes[group]! + field > MAX_RECORD_BYTES
          ) {
            groups.set(resource, (group = groupResources.push(resource) - 1));
            groupBytes.push(0);
            groupSpans.push(0);
            groupStart.push(spans.start[s]! / 1e6);
          }
          rows[r] = s;
          lengths[r] = length;
          groupOfRow[r] = group;
          groupBytes[group]! += field;
          groupSpans[group]!++;
        }
      }
      // The layout: per group, its ResourceSpans header, then its spans.
      const cursors = new Array<number>(groupResources.length);
      const ends = new Array<number>(groupResources.length);
      const resourceSpans = new Array<number>(groupResources.length);
      const series = new Array<Series>(groupResources.length);
      let total = 0;
      for (let g = 0; g < groupResources.length; g++) {
        const scopeSpans = scope.length + groupBytes[g]!;
        resourceSpans[g] = resourceOf(groupResources[g]!).length + 1 + varintBytes(scopeSpans) + scopeSpans;
        total += 1 + varintBytes(resourceSpans[g]!) + resourceSpans[g]!;
        ends[g] = total;
        series[g] = seriesOfResource(groupResources[g]!);
      }
      const out = Buffer.allocUnsafe(total);
      let at = 0;
      for (let g = 0; g < groupResources.length; g++) {
        const resource = resourceOf(groupResources[g]!);
        const scopeSpans = scope.length + groupBytes[g]!;
        out[at] = OTLP_TAG.first;
        at = writeVarint(out, resourceSpans[g]!, at + 1);
        at = putBytes(out, resource, at);
        out[at] = OTLP_TAG.second;
        at = writeVarint(out, scopeSpans, at + 1);
        cursors[g] = putBytes(out, scope, at);
        at = ends[g]!;
      }
      // Pass 2: each span at its group's cursor.
      const base = anchorNanos(anchor);
      for (let k = 0; k < size; k++) {
        const g = groupOfRow[k]!;
        cursors[g] = writeSpan(
          out,
          cursors[g]!,
          spans,
          rows[k]!,
          lengths[k]!,
          nodeOf(spans.nodes[spans.node[rows[k]!]!]!),
          base,
        );
      }
      return {
        size,
        data: out,
        bytes: total,
        frames: spanFrames(batch, ends, 0, series, Float64Array.from(groupStart), groupSpans),
      };
    },
  };
}

/** The epoch nanoseconds of a batch's anchor as two 32-bit halves (0 before 1970, which OTLP's unsigned times cannot hold). */
function anchorNanos(anchor: number): { readonly high: number; readonly low: number } {
  const whole = Math.floor(anchor);
  const ns = anchor > 0 ? BigInt(whole) * 1_000_000n + BigInt(Math.round((anchor - whole) * 1e6)) : 0n;
  return { high: Number(ns >> 32n), low: Number(ns & 0xffff_ffffn) };
}

/** Writes the fixed64 epoch nanoseconds of span time `ns` (after the anchor `base`). */
function writeTime(out: Buffer, tag: number, base: { high: number; low: number }, ns: number, at: number): number {
  const high = Math.floor(ns / TWO_32);
  let low = base.low + (ns - high * TWO_32);
  let carry = 0;
  if (low >= TWO_32) [low, carry] = [low - TWO_32, 1];
  out[at] = tag;
  putUInt32LE(out, low, at + 1);
  putUInt32LE(out, base.high + high + carry, at + 5);
  return at + 9;
}

/** Length of a counted attribute's field whose number is `n`. */
function counterLength({ key, prefix }: CounterBytes, n: number): number {
  const text = prefix.length + digits(n);
  const anyValue = 1 + varintBytes(text) + text;
  const keyValue = key.length + 1 + varintBytes(anyValue) + anyValue;
  return 1 + varintBytes(keyValue) + keyValue;
}

function writeCounter(out: Buffer, { key, prefix }: CounterBytes, n: number, at: number): number {
  const text = prefix.length + digits(n);
  const anyValue = 1 + varintBytes(text) + text;
  out[at] = SPAN_TAG.attributes;
  at = writeVarint(out, key.length + 1 + varintBytes(anyValue) + anyValue, at + 1);
  at = putBytes(out, key, at);
  out[at] = SPAN_TAG.value;
  at = writeVarint(out, anyValue, at + 1);
  out[at] = SPAN_TAG.stringValue;
  at = writeVarint(out, text, at + 1);
  return writeInteger(out, n, putBytes(out, prefix, at));
}

/** Writes span `s` as a ScopeSpans `spans` field of `length` bytes at `at`; returns where it ends. */
function writeSpan(
  out: Buffer,
  at: number,
  spans: SpanColumns,
  s: number,
  length: number,
  node: NodeBytes,
  base: { high: number; low: number },
): number {
  out[at] = OTLP_TAG.second;
  at = writeVarint(out, length, at + 1);
  out[at] = SPAN_TAG.traceId;
  out[at + 1] = 16;
  at = writeIdBytes(out, spans.traceId, 4 * s, 4, at + 2);
  out[at] = SPAN_TAG.spanId;
  out[at + 1] = 8;
  at = writeIdBytes(out, spans.spanId, 2 * s, 2, at + 2);
  const parent = spans.parent[s]!;
  if (parent >= 0) {
    out[at] = SPAN_TAG.parentSpanId;
    out[at + 1] = 8;
    at = writeIdBytes(out, spans.spanId, 2 * parent, 2, at + 2);
  }
  at = putBytes(out, node.fixed, at);
  const from = spans.pickAt[s]!;
  for (let j = 0; j < node.picked.length; j++) {
    const pieces = node.picked[j]!;
    const pick = spans.picks[from + j]!;
    at = Array.isArray(pieces) ? putBytes(out, pieces[pick]!, at) : writeCounter(out, pieces as CounterBytes, pick, at);
  }
  const type = node.errorTypes.at(spans, s);
  if (type >= 0) at = putBytes(out, node.errorType[type]!, at);
  at = writeTime(out, SPAN_TAG.startTime, base, spans.start[s]!, at);
  at = writeTime(out, SPAN_TAG.endTime, base, spans.end[s]!, at);
  const status = spans.status[s]!;
  if (status === SPAN_STATUS.error) {
    at = putBytes(out, node.eventHead, at);
    at = writeTime(out, SPAN_TAG.eventTime, base, spans.end[s]!, at);
    at = putBytes(out, node.eventBody, at);
    at = putBytes(out, node.error, at);
  } else if (status === SPAN_STATUS.failedCall) {
    at = putBytes(out, FAILED_CALL, at);
  }
  const link = spans.link[s]!;
  if (link >= 0) {
    out[at] = SPAN_TAG.links;
    out[at + 1] = LINK_BODY;
    out[at + 2] = SPAN_TAG.traceId;
    out[at + 3] = 16;
    at = writeIdBytes(out, spans.traceId, 4 * link, 4, at + 4);
    out[at] = SPAN_TAG.spanId;
    out[at + 1] = 8;
    at = writeIdBytes(out, spans.spanId, 2 * link, 2, at + 2);
    out[at] = SPAN_TAG.linkFlags;
    at = putUInt32LE(out, spans.flags[link]!, at + 1);
  }
  out[at] = (SPAN_TAG.flags & 0x7f) | 0x80;
  out[at + 1] = SPAN_TAG.flags >> 7;
  return putUInt32LE(out, spans.flags[s]!, at + 2);
}
