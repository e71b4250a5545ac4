import { gzip } from 'node:zlib';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import {
  batchingSink,
  type BatchingOptions,
  type BatchSettings,
  type Receipt,
  type Request,
} from '../core/batching-sink.js';
import { httpEndpoint, type HttpEndpoint, type HttpEndpointOptions } from './endpoint.js';
import { DEFAULT_RETRY } from '../core/retry.js';
import { SinkError } from '../core/errors.js';
import type { Sink } from '../../../operators/deliver.js';

/**
 * The settings every HTTP batching sink takes (http_push, logstore, remote_write, otlp_http); `batchSize` 4
 * KiB and `maxAge` 1 s unless the sink says otherwise.
 */
export interface HttpSinkOptions extends BatchSettings, Pick<BatchingOptions, 'maxRequestBytes' | 'maxBufferedBytes'> {
  readonly url: string;
  /** What `batchSize` counts; bytes unless the protocol counts records (remote write: series). */
  readonly batchUnit?: 'bytes' | 'records';
  /** Extra request headers (a tenant header, `Authorization: Bearer …`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request timeout, ms; default 10 s. */
  readonly timeout?: number;
}

export const HTTP_SINK_DEFAULTS = { batchSize: 4096, maxAge: 1000, timeout: 10_000 } as const;

/** The exchange of a protocol whose answer says nothing more than its status: POST the body. */
export async function postBody(request: { readonly body: string | Uint8Array }, http: HttpEndpoint): Promise<void> {
  await http.post(request.body);
}

/** gzip on zlib's thread pool; `gzip` looked up at each call, so a spec can count or fail the calls. */
function gzipAsync(body: string | Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    gzip(body, (error, compressed) => (error ? reject(error) : resolve(compressed))),
  );
}

/**
 * The body of a request gzip-compressed, on zlib's thread pool (gzipSync held the event loop 265 ms for a 24.9 MB
 * push, ticks and other sinks waiting), once per request however often it is retried. The compressed body then
 * replaces the raw one in the request: the requests of a batch live until its last is sent, and each holds one copy
 * (keeping both, the pushes of a 14.4 MB chunk held 16.3 MB until the last was sent). A sink reads such a body only
 * through this.
 */
export function gzippedBodies(): (request: { body: string | Uint8Array }) => Promise<Buffer> {
  const bodies = new WeakMap<object, Promise<Buffer>>();
  return (request) => {
    let body = bodies.get(request);
    if (!body) {
      bodies.set(request, (body = gzipAsync(request.body)));
      body.then(
        (compressed) => (request.body = compressed),
        // A failure is not kept: the retry compresses again.
        () => bodies.delete(request),
      );
    }
    return body;
  };
}

/**
 * A batching sink that POSTs each prepared request body to one HTTP target: the shared shape of
 * http_push, logstore and remote_write, which differ only in their target (URL, headers, refusal hints) and
 * in how a batch of chunks becomes request bodies.
 */
export function httpBatchingSink<R extends Request>(
  options: HttpSinkOptions,
  target: Omit<HttpEndpointOptions, 'timeout'>,
  prepare: (chunks: readonly EncodedBatch[]) => R[],
  /** How one request goes to `http` and what its answer says (a partial refusal, what was written). */
  exchange: (request: R, http: HttpEndpoint) => Promise<Receipt | void>,
): Sink {
  const http = httpEndpoint({ ...target, timeout: options.timeout ?? HTTP_SINK_DEFAULTS.timeout });
  // Times the requests in flight were cut (a flush out of time, the sink closed). A request cut while its exchange
  // awaited something before posting (gzip) was reported dropped: posted when that ends, it would still arrive.
  let cuts = 0;
  const send = (request: R) => {
    const began = cuts;
    const post: HttpEndpoint['post'] = (body, headers) =>
      cuts === began
        ? http.post(body, headers)
        : Promise.reject(new SinkError(target.sink, `not sent to ${http.address}: the request was given up`));
    return exchange(request, { ...http, post });
  };
  const cut = (end: () => void) => () => {
    cuts++;
    end();
  };
  return batchingSink<R>(
    { prepare, send, abort: cut(http.abort), release: cut(http.release) },
    {
      name: target.sink,
      target: http.address,
      batchSize: options.batchSize ?? HTTP_SINK_DEFAULTS.batchSize,
      batchUnit: options.batchUnit,
      maxAge: options.maxAge ?? HTTP_SINK_DEFAULTS.maxAge,
      maxRequestBytes: options.maxRequestBytes,
      maxBufferedBytes: options.maxBufferedBytes,
      retry: options.retry ?? DEFAULT_RETRY,
      flushTimeout: options.flushTimeout,
      scheduler: options.scheduler,
      random: options.random,
    },
  );
}
