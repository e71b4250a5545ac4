import type { SinkConfig } from '../config/types.js';
import { fileSink } from './file.js';
import type { Sink } from './sink.js';
import { stdoutSink } from './stdout.js';

export { SinkError, type Sink } from './sink.js';
export { fileSink, type FileSinkOptions } from './file.js';
export { stdoutSink, type StdoutSinkOptions } from './stdout.js';

/**
 * The sink an entry's `sink` configuration names. `deps.stdout` replaces process.stdout (tests,
 * embedding). Throws for sinks this build does not provide yet.
 */
export function createSink(config: SinkConfig, deps: { readonly stdout?: NodeJS.WritableStream } = {}): Sink {
  switch (config.type) {
    case 'stdout':
      return stdoutSink({ stream: deps.stdout });
    case 'file':
      return fileSink({ path: config.path });
    case 'tcp':
    case 'udp':
    case 'http_push':
    case 'logstore':
    case 'remote_write':
    case 'otlp_grpc':
    case 'broker':
      throw new Error(`sink "${config.type}" is not available in this build yet`);
  }
}
