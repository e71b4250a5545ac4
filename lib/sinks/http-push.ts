import type { EncodedBatch } from '../../operators/model/batch.js';
import { byteLength } from '../../operators/model/batch.js';
import { defaultRequestBytes, type Request } from './core/batching-sink.js';
import { cutRecords, recordBytes } from './framing/record-requests.js';
import { HTTP_SINK_DEFAULTS, httpBatchingSink, postBody, type HttpSinkOptions } from './http/batching-sink.js';
import type { Sink } from '../../operators/deliver.js';

export interface HttpPushSinkOptions extends HttpSinkOptions {
  /** `Content-Type` of every request; default `text/plain` (see {@link defaultContentType}). */
  readonly contentType?: string;
  /**
   * How runs of whole records (each from one chunk) join into a request body (zipkin_json: one JSON array); given,
   * a batch is cut between records into requests of at most the batch's bytes (1 MiB, or `batchSize` when larger).
   * Absent: a batch is one request, its chunks whole one after another.
   */
  readonly join?: (runs: readonly Uint8Array[]) => Uint8Array;
}

/** The body type an encoder's output is sent as when `content_type` is not given. */
export function defaultContentType(encoder: string | undefined): string {
  if (encoder === 'zipkin_json') return 'application/json';
  return encoder === 'json_lines' ? 'application/x-ndjson' : 'text/plain';
}

interface Body extends Request {
  readonly body: string | Uint8Array;
}

/**
 * Sink that POSTs the encoded bytes to `url` in batches (see {@link batchingSink}): the body of
 * a request is the chunks of one batch, concatenated as the encoder wrote them, or, with `join`, the records of
 * at most a batch's bytes joined by it (a chunk larger than that is cut between records). 2xx is
 * delivered; 408, 429, 5xx and network errors are retried; another 4xx fails the batch with
 * the status, the start of the answer and what to check (`content_type` for a 400).
 */
export function httpPushSink(options: HttpPushSinkOptions): Sink {
  const { headers: extra = {} } = options;
  const contentType = options.contentType ?? headerValue(extra, 'content-type') ?? defaultContentType(undefined);
  const headers: Record<string, string> = { 'Content-Type': contentType };
  for (const [name, value] of Object.entries(extra)) if (name.toLowerCase() !== 'content-type') headers[name] = value;
  return httpBatchingSink<Body>(
    options,
    {
      sink: 'http_push',
      url: new URL(options.url),
      headers,
      hint: (status, body) => refusalHint(status, body, contentType),
    },
    options.join ? joinedRequests(options.join, options.batchSize) : concatenated,
    postBody,
  );
}

/** A batch as one request: its chunks one after another. */
function concatenated(chunks: readonly EncodedBatch[]): Body[] {
  const body = concat(chunks);
  return [{ body, size: chunks.reduce((n, c) => n + c.size, 0), bytes: byteLength(body) }];
}

/**
 * A batch as requests of at most a batch's bytes of records, each joined by `join`: the batching core bounds a
 * batch by whole chunks, and one chunk alone may hold a trace of 16 MiB (Zipkin refuses a body over 10 MiB).
 */
function joinedRequests(
  join: (runs: readonly Uint8Array[]) => Uint8Array,
  batchSize: number = HTTP_SINK_DEFAULTS.batchSize,
): (chunks: readonly EncodedBatch[]) => Body[] {
  const maxBytes = defaultRequestBytes(batchSize);
  return (chunks) =>
    cutRecords(Infinity, chunks, maxBytes).map(({ size, runs }) => {
      const body = join(runs.map(recordBytes));
      return { body, size, bytes: body.length };
    });
}

/** What to check when an endpoint refuses a push with a 4xx (`body`: the start of its answer). */
function refusalHint(status: number, body: string, contentType: string): string | undefined {
  // VictoriaMetrics answers a path it does not serve with 400 "unsupported path requested".
  if (/unsupported path/i.test(body)) return URL_HINT;
  switch (status) {
    case 400:
    case 415:
    case 422:
      return `check that content_type ("${contentType}") is what the endpoint imports (text/plain for the text exposition format) and that the encoder matches the endpoint`;
    case 401:
    case 403:
      return 'check the credentials in headers (Authorization, tenant header)';
    case 404:
    case 405:
      return URL_HINT;
    case 413:
      return 'the request is too large: lower batch_size';
    default:
      return undefined;
  }
}

const URL_HINT = 'check the URL: it must be the import endpoint itself';

/** The value of header `name` (lower case) among `headers`, whatever case they are written in. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** The chunks' bytes as one body: a string when all are text. */
function concat(chunks: readonly EncodedBatch[]): string | Uint8Array {
  if (chunks.every((c) => typeof c.data === 'string')) return chunks.map((c) => c.data).join('');
  return Buffer.concat(chunks.map((c) => (typeof c.data === 'string' ? Buffer.from(c.data) : c.data)));
}
