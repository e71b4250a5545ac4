import type { EncodedBatch } from '../../operators/model/batch.js';
import { SPAN_STATUS, type SpanNode, type SpanResource } from '../../operators/model/span.js';
import { putBytes } from '../protocols/bytes.js';
import { writeInteger } from './shortest.js';
import {
  attributeMembers,
  jsonIds,
  spanTextEncoder,
  writeMembers,
  type AttributeMembers,
  type TraceEncoder,
} from './spans.js';

/** What a node's spans share, as bytes. */
interface NodeText {
  /** From the name to the opening of `timestamp`'s value. */
  readonly head: Buffer;
  /** From the endpoints to the opening brace of `tags`. */
  readonly endpoints: Buffer;
  readonly attributes: AttributeMembers;
  /** The `error` tag of an error raised in the span. */
  readonly error: Buffer;
}

const DURATION = Buffer.from(',"duration":');
const FAILED_CALL = Buffer.from('"error":"true"');
const ANNOTATION = Buffer.from(',"annotations":[{"timestamp":');
const ANNOTATION_END = Buffer.from(',"value":"exception"}]');

// An array ends its line, so a file or stdout holds one array a line.
const [OPEN, COMMA, CLOSE] = ['[', ',', ']\n'].map((text) => Buffer.from(text)) as [Buffer, Buffer, Buffer];

/**
 * Zipkin v2 JSON encoder of spans: each batch is one JSON array (what `POST /api/v2/spans`
 * takes), a span an object: `traceId`, `id`, `parentId` (absent on a root), `name`, `kind`
 * (`SERVER`, `CLIENT`, `PRODUCER`, `CONSUMER`; absent for internal spans), `timestamp` and
 * `duration` in whole microseconds (a duration at least 1), `localEndpoint.serviceName`,
 * `remoteEndpoint.serviceName` for a client or producer span whose callee is known, `tags`:
 * the resource's attributes but `service.name`, then the span's, every value a string, and
 * `error` on a span in error (the exception message where the error was raised, else "true").
 * An error raised in the span adds an `exception` annotation at its end. Zipkin has no links
 * nor a sampled flag: they are left out. Record i of the frames is span i with the comma or
 * bracket and line feed after it (the first also holds the opening bracket): {@link zipkinBody} joins chunks.
 */
export function zipkinJson(): TraceEncoder {
  const ids = jsonIds('traceId', 'id', 'parentId');
  return spanTextEncoder<NodeText, Buffer>({
    open: '[',
    separator: ',',
    close: CLOSE.toString(),
    node: (node: SpanNode) => ({
      head: Buffer.from(
        `","name":${JSON.stringify(node.name)}${node.kind === 'internal' ? '' : `,"kind":"${node.kind.toUpperCase()}"`},"timestamp":`,
      ),
      endpoints: Buffer.from(
        `,"localEndpoint":{"serviceName":${JSON.stringify(node.service)}}${
          node.peer !== undefined && (node.kind === 'client' || node.kind === 'producer')
            ? `,"remoteEndpoint":{"serviceName":${JSON.stringify(node.peer)}}`
            : ''
        },"tags":{`,
      ),
      attributes: attributeMembers(node, (value) => JSON.stringify(String(value))),
      error: Buffer.from(`"error":${JSON.stringify(node.exception.message)}`),
    }),
    resource: (resource: SpanResource) =>
      Buffer.from(
        Object.entries(resource.attributes)
          .filter(([key]) => key !== 'service.name')
          .map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(String(value))}`)
          .join(','),
      ),
    room: (node, resource) =>
      node.head.length +
      node.endpoints.length +
      node.attributes.fixed.length +
      node.attributes.pickedRoom +
      resource.length +
      node.error.length,
    write(out, at, node, resource, spans, s, times) {
      const { start, end, status } = spans;
      at = putBytes(out, node.head, ids(out, at, spans, s));
      const timestamp = times.micros(start[s]!);
      at = writeInteger(out, timestamp, at);
      at = putBytes(out, DURATION, at);
      const endMicros = times.micros(end[s]!);
      at = writeInteger(out, Math.max(1, endMicros - timestamp), at);
      at = putBytes(out, node.endpoints, at);
      if (resource.length > 0) at = putBytes(out, resource, at);
      const before = at;
      at = writeMembers(out, at, node.attributes, spans, s, resource.length === 0);
      if (status[s] !== SPAN_STATUS.unset) {
        if (resource.length > 0 || at > before) out[at++] = 0x2c;
        at = putBytes(out, status[s] === SPAN_STATUS.error ? node.error : FAILED_CALL, at);
      }
      out[at++] = 0x7d; // }
      if (status[s] === SPAN_STATUS.error) {
        at = putBytes(out, ANNOTATION, at);
        at = writeInteger(out, endMicros, at);
        at = putBytes(out, ANNOTATION_END, at);
      }
      out[at] = 0x7d;
      return at + 1;
    },
  });
}

/**
 * One Zipkin JSON array of the spans of several encoded chunks (what an HTTP sink sends as one
 * request): each chunk's array, its brackets dropped, joined by commas.
 */
export function zipkinBody(chunks: readonly EncodedBatch[]): Buffer {
  const arrays = chunks.filter((chunk) => chunk.bytes > 0).map((chunk) => Buffer.from(chunk.data));
  const parts = arrays.flatMap((array, i) => [i === 0 ? OPEN : COMMA, array.subarray(1, array.length - CLOSE.length)]);
  return Buffer.concat(parts.length ? [...parts, CLOSE] : [OPEN, CLOSE]);
}
