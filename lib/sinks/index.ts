import { sinkKindOf, type SinkConfig, type SinkDeps } from './kinds/index.js';
import type { Sink } from '../../operators/deliver.js';
import { featureRefusal } from '../features.js';

export type { Sink, SinkReport } from '../../operators/deliver.js';
export { SinkError } from './core/errors.js';
export { fileSink, type FileSinkOptions } from './file.js';
export { stdoutSink, type StdoutSinkOptions } from './stdout.js';
export { tcpSink, type TcpSinkOptions } from './tcp.js';
export { udpSink, type UdpSinkOptions } from './udp.js';
export { httpPushSink, type HttpPushSinkOptions } from './http-push.js';
export { logstoreSink, type LogstoreSinkOptions } from './logstore.js';
export { batchingSink, type BatchProtocol, type BatchingOptions } from './core/batching-sink.js';
export { retryPolicy, DEFAULT_RETRY, type RetryPolicy } from './core/retry.js';
export {
  SINK_KINDS,
  SINK_TYPES,
  sinkCodec,
  sinkKindOf,
  type SinkConfig,
  type SinkDeps,
  type SinkKind,
  type SinkType,
} from './kinds/index.js';

/**
 * The sink an entry's `sink` configuration names. Throws for sinks this build does not
 * provide yet.
 */
export function createSink(config: SinkConfig, deps: SinkDeps = {}): Sink {
  const kind = sinkKindOf(config.type)!;
  const refusal = featureRefusal(kind.feature);
  if (refusal) throw new Error(`sink "${config.type}" ${refusal}`);
  return kind.create(config, deps);
}
