import type { EncodedBatch } from '../../operators/model/batch.js';
import { SPAN_STATUS, type AttributeValue, type SpanNode, type SpanResource } from '../../operators/model/span.js';
import { putBytes } from '../protocols/bytes.js';
import { writeInteger } from './shortest.js';
import {
  ERROR_TYPE,
  attributeMembers,
  errorMembers,
  jsonIds,
  spanTextEncoder,
  writeErrorMember,
  writeMembers,
  type AttributeMembers,
  type ErrorMembers,
  type TraceEncoder,
} from './spans.js';

/** What a node's spans share, as bytes. */
interface NodeText {
  /** From the name to the opening of `timestamp`'s value. */
  readonly head: Buffer;
  /** From the endpoints to the opening brace of `tags`. */
  readonly endpoints: Buffer;
  readonly attributes: AttributeMembers;
  /** The attributes of a span in error or a failed call: an `error` attribute left out, the `error` tag in its place. */
  readonly failing: AttributeMembers;
  readonly errorType: ErrorMembers;
  /** The keys of its attributes: a resource attribute of one of them is left out of its spans' tags. */
  readonly keys: ReadonlySet<string>;
  /** The `error` tag of an error raised in the span. */
  readonly error: Buffer;
  /** Its spans' resource tags of each resource, the last one's at hand (a node's spans mostly share one). */
  readonly tags: WeakMap<SpanResource, ResourceTags>;
  lastResource?: SpanResource;
  lastTags?: ResourceTags;
}

/** A resource's tags on a node's spans: `"k":"v",…` (no braces), without the keys the span sets. */
interface ResourceTags {
  readonly tags: Buffer;
  /** On a span in error or a failed call: without an `error` nor `error.type` key too. */
  readonly failing: Buffer;
}

/** A resource's attributes as tags (`service.name` aside: it is the local endpoint), with the bytes they take. */
interface ResourceText {
  readonly resource: SpanResource;
  readonly members: readonly (readonly [key: string, member: string])[];
  /** Most bytes its tags take. */
  readonly room: number;
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
 * `error.type` and `error` on a span in error (`error`: the exception message where the error was raised, else
 * "true"); each key once (a JSON object), the value Zipkin keeps of repeated tags, the last: a resource
 * attribute the span also sets is left out, and so are `error` attributes and an `error.type` resource attribute
 * of a span in error.
 * An error raised in the span adds an `exception` annotation at its end. Zipkin has no links
 * nor a sampled flag: they are left out. Record i of the frames is span i with the comma or
 * bracket and line feed after it (the first also holds the opening bracket): {@link zipkinBody} joins chunks, {@link zipkinBodyOfRuns}
 * runs of records.
 */
export function zipkinJson(): TraceEncoder {
  const ids = jsonIds('traceId', 'id', 'parentId');
  const tag = (value: AttributeValue) => JSON.stringify(String(value));
  return spanTextEncoder<NodeText, ResourceText>({
    open: '[',
    separator: ',',
    close: CLOSE.toString(),
    node: (node: SpanNode) => {
      const attributes = attributeMembers(node, tag);
      const keys = new Set([...Object.keys(node.attributes), ...node.picked.map((attribute) => attribute.key)]);
      return {
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
        attributes,
        // Without an attribute of its own named error, a failing span's members are the same.
        failing: keys.has(ERROR) ? attributeMembers(node, tag, ERROR) : attributes,
        errorType: errorMembers(node, tag),
        keys,
        error: Buffer.from(`"error":${JSON.stringify(node.exception.message)}`),
        tags: new WeakMap(),
      };
    },
    resource: (resource: SpanResource): ResourceText => {
      const members = Object.entries(resource.attributes)
        .filter(([key]) => key !== 'service.name')
        .map(([key, value]) => [key, `${JSON.stringify(key)}:${tag(value)}`] as const);
      return { resource, members, room: Buffer.byteLength(members.map(([, member]) => member).join(',')) };
    },
    room: (node, resource) =>
      node.head.length +
      node.endpoints.length +
      node.attributes.fixed.length +
      node.attributes.pickedRoom +
      node.errorType.room +
      resource.room +
      node.error.length,
    write(out, at, node, resourceText, spans, s, times) {
      const { start, end, status } = spans;
      const failing = status[s] !== SPAN_STATUS.unset;
      const pair = resourceTagsOf(node, resourceText);
      const resource = failing ? pair.failing : pair.tags;
      at = putBytes(out, node.head, ids(out, at, spans, s));
      const timestamp = times.micros(start[s]!);
      at = writeInteger(out, timestamp, at);
      at = putBytes(out, DURATION, at);
      const endMicros = times.micros(end[s]!);
      at = writeInteger(out, Math.max(1, endMicros - timestamp), at);
      at = putBytes(out, node.endpoints, at);
      if (resource.length > 0) at = putBytes(out, resource, at);
      const before = at;
      at = writeMembers(out, at, failing ? node.failing : node.attributes, spans, s, resource.length === 0);
      at = writeErrorMember(out, at, node.errorType, spans, s, resource.length === 0 && at === before);
      if (failing) {
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

/** The `error` tag: a span's failure, where Zipkin looks for it. */
const ERROR = 'error';

/** The resource's tags on `node`'s spans, made once per node and resource. */
function resourceTagsOf(node: NodeText, { resource, members }: ResourceText): ResourceTags {
  if (node.lastResource === resource) return node.lastTags!;
  let found = node.tags.get(resource);
  if (!found) {
    const kept = members.filter(([key]) => !node.keys.has(key));
    const tags = Buffer.from(kept.map(([, member]) => member).join(','));
    const withoutError = kept.filter(([key]) => key !== ERROR && key !== ERROR_TYPE);
    const failing =
      withoutError.length === kept.length ? tags : Buffer.from(withoutError.map(([, member]) => member).join(','));
    node.tags.set(resource, (found = { tags, failing }));
  }
  node.lastResource = resource;
  return (node.lastTags = found);
}

/**
 * One Zipkin JSON array of the spans of several encoded chunks (what an HTTP sink sends as one
 * request): each chunk's array, its brackets dropped, joined by commas.
 */
export function zipkinBody(chunks: readonly EncodedBatch[]): Buffer {
  return zipkinBodyOfRuns(chunks.map((chunk) => Buffer.from(chunk.data)));
}

/**
 * One Zipkin JSON array of the spans of several runs of records (what an HTTP sink sends as one request), each
 * run whole records of one chunk: a whole chunk's array, or a part of it that an HTTP sink cut between spans to
 * keep a request within its size. Each run's spans, without the brackets and commas around them, joined by commas.
 */
export function zipkinBodyOfRuns(runs: readonly Uint8Array[]): Buffer {
  const parts = runs.filter((run) => run.length > 0).flatMap((run, i) => [i === 0 ? OPEN : COMMA, spansOf(run)]);
  return Buffer.concat(parts.length ? [...parts, CLOSE] : [OPEN, CLOSE]);
}

/** A run's spans: records from the first's `{` to the last's `}` (a chunk's `[`, and the `,` or `]\n` after a span, left out). */
function spansOf(run: Uint8Array): Uint8Array {
  const start = run[0] === OPEN[0] ? 1 : 0;
  const end = run.at(-1) === COMMA[0] ? run.length - 1 : run.length - (run.at(-2) === CLOSE[0] ? CLOSE.length : 0);
  return run.subarray(start, end);
}
