import type { RetryConfig } from '../../language/fields.js';
import { retryPolicy } from '../core/retry.js';
import type { SinkDeps } from './kind.js';

/** The fields every HTTP batching sink kind has (http_push, logstore, remote_write). */
interface HttpSinkFields {
  readonly url: string;
  readonly batch_size?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly retry?: RetryConfig;
  readonly max_buffer_age?: number;
}

/** Those fields as the HTTP batching sinks take them. */
export function httpSinkOptions(config: HttpSinkFields, deps: SinkDeps) {
  return {
    url: config.url,
    batchSize: config.batch_size,
    headers: config.headers,
    retry: retryPolicy(config.retry),
    maxAge: config.max_buffer_age,
    scheduler: deps.scheduler,
  };
}
