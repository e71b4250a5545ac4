import { LABEL_KEY_PATTERN } from '../language/fields.js';
import { gzippedBodies, httpBatchingSink, postBody, type HttpSinkOptions } from './http/batching-sink.js';
import { lokiPushes, type LokiPush } from './framing/loki-push.js';
import type { Sink } from '../../operators/deliver.js';

export interface LogstoreSinkOptions extends HttpSinkOptions {
  /** Base address of the log store; the sink appends {@link PUSH_PATH}. */
  readonly url: string;
  /** Streams per push request; default 128. */
  readonly maxStreamsPerPush?: number;
  /** `gzip`: each push body gzip-compressed, sent with `Content-Encoding: gzip` (Loki takes it); default none. */
  readonly compression?: 'none' | 'gzip';
}

/** The push endpoint of the Loki API, appended to the sink's base `url`. */
export const PUSH_PATH = '/loki/api/v1/push';
export const DEFAULT_MAX_STREAMS_PER_PUSH = 128;

/** The push URL of a base address; a URL that already ends with the push path is kept. */
export function pushUrl(base: string): URL {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith(PUSH_PATH) ? path : `${path}${PUSH_PATH}`;
  return url;
}

/**
 * Sink for a log store that speaks the Loki push API: batches (as http_push) become JSON
 * pushes with one stream per distinct label set (see {@link lokiPushes}); a flush with more
 * than `maxStreamsPerPush` streams is split into several pushes. A 400 names what the store's answer points at
 * (structured metadata, a line's size, timestamps, else a label name or a missing label); 401 the tenant header.
 * With `compression: gzip` each body is gzip-compressed (about a tenth of the JSON).
 */
export function logstoreSink(options: LogstoreSinkOptions): Sink {
  const gzip = options.compression === 'gzip';
  const pushes = lokiPushes(options.maxStreamsPerPush ?? DEFAULT_MAX_STREAMS_PER_PUSH);
  const gzipped = gzippedBodies();
  return httpBatchingSink<LokiPush>(
    options,
    {
      sink: 'logstore',
      url: pushUrl(options.url),
      headers: {
        ...options.headers,
        'Content-Type': 'application/json',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      },
      hint: refusalHint,
    },
    pushes,
    gzip
      ? async (push, http) => {
          await http.post(await gzipped(push));
        }
      : postBody,
  );
}

/**
 * What to check for a 400, by the store's own words (Loki's validation messages): structured metadata, line size and
 * timestamps each have their setting; anything else is most often a label.
 */
const BAD_REQUEST_HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /structured metadata.*disallowed/i,
    'the store refuses structured metadata, which carries the span ids of trace_context: allow it (Loki 3: limits_config.allow_structured_metadata, with a v13 schema) or remove trace_context from the entry',
  ],
  [
    /entry size|line too long/i,
    'a record is longer than the store takes (Loki: limits_config.max_line_size, 256 KB by default): shorten the messages',
  ],
  [
    /too old|too new|too far behind|out of order/i,
    'the store refuses timestamps too old or too far ahead (start_time; Loki: limits_config.reject_old_samples_max_age, 1 week by default) and, in one stream, more than about 1 h behind its newest entry (several entries writing the same labels, or start_time going back)',
  ],
];

/**
 * What to change for a 429, by the store's own words: Loki limits the bytes of lines a second per tenant and per
 * stream, and the number of streams (retried, each keeps refusing while the rate stays).
 */
const TOO_MANY_HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /per stream rate limit/i,
    'the store takes at most so many bytes of lines a second in one stream (Loki: limits_config.per_stream_rate_limit, 3 MB by default): lower the rate, spread the records over more streams (dynamic_labels), or raise that limit',
  ],
  [
    /stream limit/i,
    'the store keeps at most so many active streams per tenant (Loki: limits_config.max_global_streams_per_user, 5000 by default): lower the cardinalities of the labels, or raise that limit',
  ],
];

function refusalHint(status: number, body: string): string | undefined {
  switch (status) {
    case 429:
      return (
        TOO_MANY_HINTS.find(([words]) => words.test(body))?.[1] ??
        'the store takes at most so many bytes of lines a second per tenant (Loki: limits_config.ingestion_rate_mb, 4 MB by default, with bursts up to ingestion_burst_size_mb, 6 MB): lower the rate or the size of the records, or raise that limit'
      );
    case 400:
      return (
        BAD_REQUEST_HINTS.find(([words]) => words.test(body))?.[1] ??
        `label names must match ${LABEL_KEY_PATTERN}, every stream needs at least one label and Loki takes at most 15 by default (limits_config.max_label_names_per_series); timestamps too old or too far ahead (start_time) are refused as well`
      );
    case 401:
    case 403:
      return 'set the tenant header (X-Scope-OrgID) or the credentials in headers';
    case 404:
    case 405:
      return `url must be the base address of the log store (the sink appends ${PUSH_PATH})`;
    case 413:
      return 'the push is too large: lower batch_size or max_streams_per_push';
    default:
      return undefined;
  }
}
