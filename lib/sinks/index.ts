import type { SchedulerLike } from 'rxjs';
import type { EncoderConfig, SinkConfig } from '../config/types.js';
import { fileSink } from './file.js';
import { defaultContentType, httpPushSink } from './http-push.js';
import { logstoreSink } from './logstore.js';
import { retryPolicy } from './retry.js';
import type { Sink } from './sink.js';
import { stdoutSink } from './stdout.js';
import { tcpSink } from './tcp.js';
import { udpSink } from './udp.js';
import { featureOf } from '../features.js';

export { SinkError, type Sink, type SinkReport } from './sink.js';
export { fileSink, type FileSinkOptions } from './file.js';
export { stdoutSink, type StdoutSinkOptions } from './stdout.js';
export { tcpSink, type TcpSinkOptions } from './tcp.js';
export { udpSink, type UdpSinkOptions } from './udp.js';
export { httpPushSink, type HttpPushSinkOptions } from './http-push.js';
export { logstoreSink, type LogstoreSinkOptions } from './logstore.js';
export { batchingSink, type BatchTransport, type BatchingOptions } from './batching.js';
export { retryPolicy, DEFAULT_RETRY, type RetryPolicy } from './retry.js';

export interface SinkDeps {
  /** Replaces process.stdout (tests, embedding). */
  readonly stdout?: NodeJS.WritableStream;
  /** Timers of buffer age and retry backoff; `asyncScheduler` by default. */
  readonly scheduler?: SchedulerLike;
  /** The entry's encoder type: the http_push body type follows it when `content_type` is absent. */
  readonly encoder?: EncoderConfig['type'];
  /** Open `file` sinks for appending (an event adds to the file) instead of truncating it. */
  readonly appendFiles?: boolean;
}

/**
 * The sink an entry's `sink` configuration names. Throws for sinks this build does not
 * provide yet.
 */
export function createSink(config: SinkConfig, deps: SinkDeps = {}): Sink {
  const { scheduler } = deps;
  switch (config.type) {
    case 'stdout':
      return stdoutSink({ stream: deps.stdout });
    case 'file':
      return fileSink({ path: config.path, append: deps.appendFiles });
    case 'tcp':
      return tcpSink({ address: config.address, retry: retryPolicy(config.retry), scheduler });
    case 'udp':
      return udpSink({ address: config.address });
    case 'http_push':
      return httpPushSink({
        url: config.url,
        contentType: config.content_type ?? (hasContentType(config.headers) ? undefined : defaultContentType(deps.encoder)),
        batchSize: config.batch_size,
        headers: config.headers,
        retry: retryPolicy(config.retry),
        scheduler,
      });
    case 'logstore':
      return logstoreSink({
        url: config.url,
        maxStreamsPerPush: config.max_streams_per_push,
        batchSize: config.batch_size,
        headers: config.headers,
        retry: retryPolicy(config.retry),
        scheduler,
      });
    case 'remote_write':
    case 'otlp_grpc':
    case 'broker':
      throw new Error(`sink "${config.type}" ${featureOf(config.type)}`);
  }
}

function hasContentType(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'content-type');
}
