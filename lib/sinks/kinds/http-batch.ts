import type { RetryConfig } from '../../language/fields.js';
import { retryPolicy } from '../retry.js';
import type { SinkDeps } from './kind.js';

/** The fields every HTTP batching sink kind has (http_push, logstore). */
interface HttpBatchFields {
  readonly url: string;
  readonly batch_size?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly retry?: RetryConfig;
}

/** Those fields as the HTTP batching sinks take them. */
export function httpBatchOptions(config: HttpBatchFields, deps: SinkDeps) {
  return { url: config.url, batchSize: config.batch_size, headers: config.headers, retry: retryPolicy(config.retry), scheduler: deps.scheduler };
}
