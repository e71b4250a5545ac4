import type { EncodedBatch } from '../../../operators/model/batch.js';
import { batchingSink, type BatchSettings, type PartialRefusal, type Request } from '../core/batching-sink.js';
import { httpEndpoint, type HttpEndpointOptions } from './endpoint.js';
import { DEFAULT_RETRY } from '../core/retry.js';
import type { Sink } from '../../../operators/deliver.js';

/**
 * The settings every HTTP batching sink takes (http_push, logstore, remote_write, otlp_http); `batchSize` 4
 * KiB and `maxAge` 1 s unless the sink says otherwise.
 */
export interface HttpSinkOptions extends BatchSettings {
  readonly url: string;
  /** What `batchSize` counts; bytes unless the protocol counts records (remote write: series). */
  readonly batchUnit?: 'bytes' | 'records';
  /** Extra request headers (a tenant header, `Authorization: Bearer …`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request timeout, ms; default 10 s. */
  readonly timeout?: number;
}

export const HTTP_SINK_DEFAULTS = { batchSize: 4096, maxAge: 1000, timeout: 10_000 } as const;

/**
 * A batching sink that POSTs each prepared request body to one HTTP target: the shared shape of
 * http_push, logstore and remote_write, which differ only in their target (URL, headers, refusal hints) and
 * in how a batch of chunks becomes request bodies.
 */
export function httpBatchingSink<R extends Request & { readonly body: string | Uint8Array }>(
  options: HttpSinkOptions,
  target: Omit<HttpEndpointOptions, 'timeout'>,
  prepare: (chunks: readonly EncodedBatch[]) => R[],
  /** What a 2xx answer's body says about the request (a partial refusal); default: nothing. */
  answer?: (body: Buffer, request: R) => PartialRefusal | void,
): Sink {
  const http = httpEndpoint({ ...target, timeout: options.timeout ?? HTTP_SINK_DEFAULTS.timeout });
  const send = async (request: R) => {
    const body = await http.post(request.body);
    return answer?.(body, request);
  };
  return batchingSink<R>(
    { prepare, send, abort: () => http.abort(), release: () => http.release() },
    {
      name: target.sink,
      target: http.address,
      batchSize: options.batchSize ?? HTTP_SINK_DEFAULTS.batchSize,
      batchUnit: options.batchUnit,
      maxAge: options.maxAge ?? HTTP_SINK_DEFAULTS.maxAge,
      retry: options.retry ?? DEFAULT_RETRY,
      flushTimeout: options.flushTimeout,
      scheduler: options.scheduler,
      random: options.random,
    },
  );
}
