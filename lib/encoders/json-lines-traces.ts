import { SAMPLED_FLAG, SPAN_STATUS, type SpanNode, type SpanResource } from '../../operators/model/span.js';
import {
  attributeMembers,
  errorMembers,
  jsonIds,
  rfc3339Nanos,
  spanTextEncoder,
  writeErrorMember,
  writeMembers,
  type AttributeMembers,
  type ErrorMembers,
  type TraceEncoder,
} from './spans.js';
import { putBytes } from '../protocols/bytes.js';
import { writeHexWords } from './id-words.js';

/** What a node's spans share, as bytes. */
interface NodeText {
  /** From the service to the opening quote of `start`. */
  readonly head: Buffer;
  readonly attributes: AttributeMembers;
  readonly errorType: ErrorMembers;
  /** The exception event after its time. */
  readonly eventTail: Buffer;
}

const END = Buffer.from('","end":"');
const UNSET = Buffer.from('","status":"unset","attributes":{');
const ERROR = Buffer.from('","status":"error","attributes":{');
const NOT_SAMPLED = Buffer.from(',"sampled":false');
const EVENT = Buffer.from(',"events":[{"name":"exception","time":"');
const LINK_TRACE = Buffer.from(',"links":[{"trace_id":"');
const LINK_SPAN = Buffer.from('","span_id":"');
const LINK_END = Buffer.from('"}]');

/**
 * JSON Lines encoder of spans: one object per line,
 * `{"trace_id","span_id","parent_span_id","service","name","kind","start","end","status","attributes","resource"}`
 * in that order, `parent_span_id` absent on a root; ids in lowercase hex; `start` and `end`
 * RFC 3339 UTC with nanoseconds; `status` `unset` or `error`; attributes with their types
 * (numbers, booleans, strings) in the order written, then a span in error's `error.type`;
 * `resource` the service's resource attributes. Then, when they apply: `"sampled":false` (a
 * trace not marked sampled), `events` (the `exception` event of an error raised in the span, at
 * its end) and `links` (a `new_trace` consumer's producer).
 */
export function jsonLinesTraces(): TraceEncoder {
  const time = rfc3339Nanos();
  const ids = jsonIds('trace_id', 'span_id', 'parent_span_id');
  return spanTextEncoder<NodeText, Buffer>({
    open: '',
    separator: '\n',
    close: '\n',
    node: (node: SpanNode) => ({
      head: Buffer.from(
        `","service":${JSON.stringify(node.service)},"name":${JSON.stringify(node.name)},"kind":"${node.kind}","start":"`,
      ),
      attributes: attributeMembers(node, (value) => JSON.stringify(value)),
      errorType: errorMembers(node, JSON.stringify),
      eventTail: Buffer.from(
        `","attributes":${JSON.stringify({ 'exception.type': node.exception.type, 'exception.message': node.exception.message })}}]`,
      ),
    }),
    resource: (resource: SpanResource) => Buffer.from(`},"resource":${JSON.stringify(resource.attributes)}`),
    room: (node, resource) =>
      node.head.length +
      node.attributes.fixed.length +
      node.attributes.pickedRoom +
      node.errorType.room +
      resource.length +
      node.eventTail.length,
    write(out, at, node, resource, spans, s, times) {
      const { start, end, status } = spans;
      at = putBytes(out, node.head, ids(out, at, spans, s));
      const startMs = times.msOf(start[s]!);
      at = time(out, at, startMs, times.nsIn(start[s]!, startMs));
      at = putBytes(out, END, at);
      const endMs = times.msOf(end[s]!);
      at = time(out, at, endMs, times.nsIn(end[s]!, endMs));
      at = putBytes(out, status[s] === SPAN_STATUS.unset ? UNSET : ERROR, at);
      const before = at;
      at = writeMembers(out, at, node.attributes, spans, s, true);
      at = writeErrorMember(out, at, node.errorType, spans, s, at === before);
      at = putBytes(out, resource, at);
      if ((spans.flags[s]! & SAMPLED_FLAG) === 0) at = putBytes(out, NOT_SAMPLED, at);
      if (status[s] === SPAN_STATUS.error) {
        at = putBytes(out, EVENT, at);
        at = time(out, at, endMs, times.nsIn(end[s]!, endMs));
        at = putBytes(out, node.eventTail, at);
      }
      const link = spans.link[s]!;
      if (link >= 0) {
        at = putBytes(out, LINK_TRACE, at);
        at = writeHexWords(out, spans.traceId, 4 * link, 4, at);
        at = putBytes(out, LINK_SPAN, at);
        at = writeHexWords(out, spans.spanId, 2 * link, 2, at);
        at = putBytes(out, LINK_END, at);
      }
      out[at] = 0x7d; // }
      return at + 1;
    },
  });
}
