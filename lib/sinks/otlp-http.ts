import { statusMessage } from '../protocols/otlp.js';
import { gzippedBodies, httpBatchingSink, type HttpSinkOptions } from './http/batching-sink.js';
import { MAX_ANSWER_BYTES } from './http/endpoint.js';
import {
  OTLP_BATCH_LIMITS,
  OTLP_DEFAULTS,
  otlpRequests,
  isOtlpJson,
  OTLP_SIGNALS,
  exportReceipt,
  tooLargeAdvice,
  type OtlpSignal,
  type ReceiverLimit,
} from './framing/otlp-requests.js';
import type { RecordRequest } from './framing/record-requests.js';
import type { Sink } from '../../operators/deliver.js';
import { SinkError } from './core/errors.js';

export interface OtlpHttpSinkOptions extends HttpSinkOptions {
  /** The collector's base address; the sink appends `/v1/metrics` or `/v1/logs`. */
  readonly url: string;
  readonly signal: OtlpSignal;
  readonly compression?: 'none' | 'gzip';
  readonly resource?: Readonly<Record<string, string>>;
}

/** The export URL of a base address; a URL that already ends with the signal's path is kept. */
export function exportUrl(base: string, signal: OtlpSignal): URL {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  const wanted = OTLP_SIGNALS[signal].path;
  url.pathname = path.endsWith(wanted) ? path : `${path}${wanted}`;
  return url;
}

/** The collector's OTLP/HTTP receiver: request bodies of at most 20 MiB (confighttp's default), decompressed. */
const HTTP_LIMIT: ReceiverLimit = { bytes: 20 * 1024 * 1024, setting: 'max_request_body_size' };

/** The statuses OTLP/HTTP calls retryable; "all other 4xx or 5xx response status codes MUST NOT be retried". */
const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * Sink for OTLP over HTTP with protobuf bodies (the collector's port 4318; Prometheus,
 * VictoriaMetrics, Loki and Grafana Cloud accept only this form): the requests of the gRPC sink
 * POSTed to `<url>/v1/metrics`, `/v1/logs` or `/v1/traces`, `Content-Type: application/x-protobuf`,
 * gzip-compressed when asked. Retries 429, 502, 503, 504 (after their Retry-After) and network errors;
 * a refusal says the message of the google.rpc.Status it carries; a partial success in the answer fails
 * the refused records only; one refusing none warns, once (exportReceipt).
 */
export function otlpHttpSink(options: OtlpHttpSinkOptions): Sink {
  const { signal } = options;
  const gzip = options.compression === 'gzip';
  const batchSize = options.batchSize ?? OTLP_DEFAULTS.batchSize;
  const requests = otlpRequests(batchSize, options.resource, signal);
  const gzipped = gzippedBodies();
  return httpBatchingSink<RecordRequest>(
    {
      ...options,
      batchSize,
      batchUnit: 'records',
      maxAge: options.maxAge ?? OTLP_DEFAULTS.maxAge,
      ...OTLP_BATCH_LIMITS,
    },
    {
      sink: 'otlp_http',
      url: exportUrl(options.url, signal),
      headers: {
        ...options.headers,
        'Content-Type': 'application/x-protobuf',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      },
      hint: (status) => refusalHint(status, signal),
      retryable: (status) => RETRYABLE.has(status),
      refusalText,
      answerBytes,
    },
    requests,
    async (request, http) => {
      const answer = await http.post(gzip ? await gzipped(request) : request.body).catch(tooLarge(request));
      return exportReceipt('otlp_http', signal, answer.body, request, http.redact, answer.headers['content-type']);
    },
  );

  /** A 413 says what to change, which depends on the request: one record cannot be split by a lower batch_size. */
  function tooLarge(request: RecordRequest): (error: unknown) => never {
    return (error) => {
      if (!(error instanceof SinkError) || error.status !== 413) throw error;
      throw new SinkError('otlp_http', `${error.detail}; ${tooLargeAdvice(request, signal, HTTP_LIMIT)}`, {
        cause: error.cause,
        status: error.status,
      });
    };
  }
}

/**
 * How much of a 2xx answer svc reads: a protobuf ExportResponse from its head (the count precedes the message), an
 * OTLP/JSON one whole, as JSON cannot be read from its head, up to 4 MiB (a partial success whose message is longer
 * is past reason).
 */
function answerBytes(contentType: string | undefined): number {
  return isOtlpJson(contentType) ? MAX_JSON_ANSWER_BYTES : MAX_ANSWER_BYTES;
}

const MAX_JSON_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * What a refusal says: OTLP/HTTP servers answer a failed protobuf request with a protobuf google.rpc.Status
 * ("MUST"), whose `message` is the reason (its start, when the body is longer than svc reads of a refusal);
 * bytes that are not one are shown as text.
 */
function refusalText(body: Buffer, contentType: string | undefined): string {
  if (!contentType?.toLowerCase().startsWith('application/x-protobuf')) return body.toString('utf8');
  return statusMessage(body) ?? body.toString('utf8');
}

function refusalHint(status: number, signal: OtlpSignal): string | undefined {
  switch (status) {
    case 400:
      return `the collector refused the data as invalid: check that the sink's signal_type (${signal}) matches the entry`;
    case 401:
    case 403:
      return 'set the credentials or the tenant in headers';
    case 404:
    case 405:
      return `url must be the collector's base address (the sink appends ${OTLP_SIGNALS[signal].path}; OTLP/HTTP is usually port 4318)`;
    case 415:
      return 'the endpoint does not take OTLP protobuf bodies';
    default:
      return undefined;
  }
}
