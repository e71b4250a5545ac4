import { LABEL_KEY_PATTERN } from '../language/fields.js';
import { httpBatchingSink, postBody, type HttpSinkOptions } from './http/batching-sink.js';
import { lokiPushes, type LokiPush } from './framing/loki-push.js';
import type { Sink } from '../../operators/deliver.js';

export interface LogstoreSinkOptions extends HttpSinkOptions {
  /** Base address of the log store; the sink appends {@link PUSH_PATH}. */
  readonly url: string;
  /** Streams per push request; default 128. */
  readonly maxStreamsPerPush?: number;
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
 * than `maxStreamsPerPush` streams is split into several pushes. A 400 names the usual cause,
 * a label name or a missing label; 401 the tenant header.
 */
export function logstoreSink(options: LogstoreSinkOptions): Sink {
  return httpBatchingSink<LokiPush>(
    options,
    {
      sink: 'logstore',
      url: pushUrl(options.url),
      headers: { ...options.headers, 'Content-Type': 'application/json' },
      hint: refusalHint,
    },
    lokiPushes(options.maxStreamsPerPush ?? DEFAULT_MAX_STREAMS_PER_PUSH),
    postBody,
  );
}

function refusalHint(status: number): string | undefined {
  switch (status) {
    case 400:
      return `label names must match ${LABEL_KEY_PATTERN}, every stream needs at least one label and Loki takes at most 15 by default (limits_config.max_label_names_per_series); timestamps too old or too far ahead (start_time) are refused as well`;
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
