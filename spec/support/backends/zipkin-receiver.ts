import { createServer, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface ZipkinEndpoint {
  readonly serviceName?: string;
  readonly ipv4?: string;
  readonly ipv6?: string;
  readonly port?: number;
}

/** A span of the Zipkin v2 API (zipkin-api's zipkin2-api.yaml), as the receiver accepted it. */
export interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name?: string;
  readonly kind?: 'CLIENT' | 'SERVER' | 'PRODUCER' | 'CONSUMER';
  /** Epoch microseconds. */
  readonly timestamp?: number;
  /** Microseconds. */
  readonly duration?: number;
  readonly localEndpoint: ZipkinEndpoint & { readonly serviceName: string };
  readonly remoteEndpoint?: ZipkinEndpoint;
  readonly annotations?: readonly { readonly timestamp: number; readonly value: string }[];
  readonly tags?: Readonly<Record<string, string>>;
  readonly debug?: boolean;
  /** The server half of a span whose id the client half also reports (B3 "join"). */
  readonly shared?: boolean;
}

/** One POST the receiver answered. */
export interface ZipkinPost {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Bytes of the body as sent. */
  readonly bytes: number;
  /** The refusal's text. */
  readonly error?: string;
}

export interface ZipkinReceiver {
  /** `http://127.0.0.1:<port>/api/v2/spans`, the collector endpoint a Zipkin client posts to. */
  readonly endpoint: string;
  /** Every accepted span, in arrival order. */
  readonly spans: ZipkinSpan[];
  /** Every POST to the endpoint, accepted or not. */
  readonly posts: ZipkinPost[];
  /** Resolves once `count` spans have been accepted in all. */
  arrived(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** Zipkin's default limit of a request body (Armeria's `maxRequestLength`). */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
const TRACE_ID = /^(?:[0-9a-f]{16}|[0-9a-f]{32})$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;
const KINDS = new Set(['CLIENT', 'SERVER', 'PRODUCER', 'CONSUMER']);

/**
 * A Zipkin collector's HTTP endpoint (none installs here): `POST /api/v2/spans` with a JSON array
 * of v2 spans (`Content-Type: application/json`, optionally `Content-Encoding: gzip`), 202 when
 * every span has the shape the v2 API defines; otherwise 400 naming the first malformed span, and
 * none of the request's spans is kept (Zipkin decodes a request whole); 413 for a body over 10 MiB, Zipkin's
 * default (Armeria's `maxRequestLength`), as it answers `ContentTooLargeException`. Thrift and protobuf
 * bodies get 415: this receiver reads the JSON form only. spec/sinks/zipkin-receiver.spec.ts
 * proves it with zipkin-js's own HTTP transport.
 */
export async function startZipkinReceiver(): Promise<ZipkinReceiver> {
  const spans: ZipkinSpan[] = [];
  const posts: ZipkinPost[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/api/v2/spans') return res.writeHead(404).end();
    const raw = Buffer.concat(parts);
    const answer = (status: number, error?: string) => {
      posts.push({ status, headers: req.headers, bytes: raw.length, ...(error ? { error } : {}) });
      res.writeHead(status, error ? { 'Content-Type': 'text/plain; charset=utf-8' } : {}).end(error);
    };
    const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim();
    if (type !== 'application/json') return answer(415, `Content-Type ${type}: this receiver reads JSON v2 only`);
    if (raw.length > MAX_REQUEST_BYTES)
      return answer(
        413,
        `ContentTooLargeException: maxContentLength: ${MAX_REQUEST_BYTES}, contentLength: ${raw.length}`,
      );
    let body: unknown;
    try {
      body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
    } catch (error) {
      return answer(400, `Cannot decode spans: ${(error as Error).message}`);
    }
    if (!Array.isArray(body)) return answer(400, 'Cannot decode spans: expected a JSON array of spans');
    for (const [index, span] of body.entries()) {
      const problem = spanProblem(span);
      if (problem) return answer(400, `span ${index} ${JSON.stringify(span)}: ${problem}`);
    }
    spans.push(...(body as ZipkinSpan[]));
    answer(202);
    for (const waiter of waiting.filter((w) => spans.length >= w.count)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}/api/v2/spans`,
    spans,
    posts,
    arrived: (count) =>
      spans.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve })),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Epoch or elapsed microseconds: Zipkin's int64, which JSON carries as a number. */
const isMicros = (value: unknown, least: number) => Number.isSafeInteger(value) && (value as number) >= least;

/** What breaks the v2 API's definition of a span, or undefined. */
function spanProblem(span: unknown): string | undefined {
  if (!isObject(span)) return 'a span must be an object';
  const { traceId, id, parentId, name, kind, timestamp, duration, localEndpoint, remoteEndpoint } = span;
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId) || ZERO.test(traceId))
    return 'traceId must be 16 or 32 lower-hex characters, not all zeros';
  if (typeof id !== 'string' || !SPAN_ID.test(id) || ZERO.test(id))
    return 'id must be 16 lower-hex characters, not all zeros';
  if (parentId !== undefined && (typeof parentId !== 'string' || !SPAN_ID.test(parentId) || ZERO.test(parentId)))
    return 'parentId, when present, must be 16 lower-hex characters, not all zeros';
  if (name !== undefined && typeof name !== 'string') return 'name must be a string';
  if (kind !== undefined && !KINDS.has(kind as string)) return 'kind must be CLIENT, SERVER, PRODUCER or CONSUMER';
  if (timestamp !== undefined && !isMicros(timestamp, 1)) return 'timestamp must be a positive integer of epoch µs';
  if (duration !== undefined && !isMicros(duration, 1)) return 'duration must be a positive integer of µs';
  if (!isObject(localEndpoint) || typeof localEndpoint.serviceName !== 'string' || localEndpoint.serviceName === '')
    return 'localEndpoint.serviceName is required';
  const endpointProblem = [localEndpoint, remoteEndpoint].map(endpointShape).find(Boolean);
  if (endpointProblem) return endpointProblem;
  if (span.annotations !== undefined && !annotationsShape(span.annotations))
    return 'annotations must be an array of {timestamp: epoch µs, value: string}';
  if (span.tags !== undefined && !(isObject(span.tags) && Object.values(span.tags).every((v) => typeof v === 'string')))
    return 'tags must be an object of string values';
  for (const flag of ['debug', 'shared'] as const)
    if (span[flag] !== undefined && typeof span[flag] !== 'boolean') return `${flag} must be a boolean`;
  return undefined;
}

function endpointShape(endpoint: unknown): string | undefined {
  if (endpoint === undefined) return undefined;
  if (!isObject(endpoint)) return 'an endpoint must be an object';
  for (const field of ['serviceName', 'ipv4', 'ipv6'] as const)
    if (endpoint[field] !== undefined && typeof endpoint[field] !== 'string')
      return `endpoint ${field} must be a string`;
  const { port } = endpoint;
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535))
    return 'endpoint port must be an integer from 0 to 65535';
  return undefined;
}

function annotationsShape(annotations: unknown): boolean {
  return (
    Array.isArray(annotations) &&
    annotations.every((a) => isObject(a) && isMicros(a.timestamp, 1) && typeof a.value === 'string')
  );
}
