/**
 * OTLP in `npm run bench`: data points/s of a 1,000-series gauge, and log records/s, at an
 * unbounded rate through the otlp encoder into the otlp_grpc and otlp_http sinks, against
 * receivers in this process that accept every request without decoding it (so the figure is
 * svc's own cost plus loopback I/O). Prints figures; asserts nothing.
 */
import * as grpc from '@grpc/grpc-js';
import { createServer } from 'node:http';
import type { Entry, SinkConfig } from '../lib/config/types.js';
import { runEntry } from '../lib/runtime/run-entry.js';

function entry(signal: 'metrics' | 'logs', sink: SinkConfig, seconds: number): Entry {
  const common = {
    id: `bench_otlp_${signal}`,
    rate: 1e9,
    duration: seconds * 1000,
    start_time: { kind: 'now' as const },
    encoder: { type: 'otlp' as const },
    sink,
    labels: { host: 'bench-1', region: 'eu-west', service: 'api' },
    jitter_seed: 0,
    on_sink_error: 'fail' as const,
    cardinality_spikes: [],
  };
  if (signal === 'logs') {
    const templates = [{ message: 'user {user} logged in' }, { message: 'GET {path} took {ms}ms' }];
    const log_generator = {
      type: 'template' as const,
      templates,
      field_pools: { user: ['ann', 'bob'], path: ['/', '/api'], ms: ['3', '48'] },
      severity_weights: { info: 8, warn: 2 },
      seed: 1,
    };
    return {
      ...common,
      signal_type: 'logs',
      name: 'bench_otlp_logs',
      log_generator,
      dynamic_labels: [],
      metric_type: 'untyped',
    };
  }
  return {
    ...common,
    signal_type: 'metrics',
    name: 'bench_otlp',
    generator: { type: 'constant', value: 1 },
    dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 1000 }],
    metric_type: 'gauge',
  };
}

async function rate(signal: 'metrics' | 'logs', sink: SinkConfig, seconds: number): Promise<number> {
  const started = performance.now();
  const run = runEntry(entry(signal, sink, seconds));
  const outcome = await run.done;
  if (outcome.error) throw outcome.error;
  return run.stats.totalEvents / ((performance.now() - started) / 1000);
}

/** Runs the OTLP figures, `seconds` each. */
export async function otlpBench(seconds: number): Promise<void> {
  const server = new grpc.Server();
  const accept = (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.alloc(0));
  for (const service of ['metrics.v1.MetricsService', 'logs.v1.LogsService']) {
    const path = `/opentelemetry.proto.collector.${service}/Export`;
    const raw = (value: Buffer) => value;
    server.addService(
      {
        Export: {
          path,
          requestStream: false,
          responseStream: false,
          requestSerialize: raw,
          requestDeserialize: raw,
          responseSerialize: raw,
          responseDeserialize: raw,
        },
      },
      { Export: accept },
    );
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const http = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `OTLP: otlp encoder -> sink (batch_size 1000), receivers in this process, ${seconds} s each (goal: >= 300,000 data points/s)`,
  );
  for (const signal of ['metrics', 'logs'] as const) {
    const grpcRate = await rate(
      signal,
      { type: 'otlp_grpc', endpoint: `127.0.0.1:${port}`, signal_type: signal },
      seconds,
    );
    const httpRate = await rate(signal, { type: 'otlp_http', url, signal_type: signal }, seconds);
    const unit = signal === 'metrics' ? 'data points/s (1,000-series gauge)' : 'log records/s (2 templates)';
    console.log(`  ${signal.padEnd(8)} otlp_grpc ${fmt(grpcRate)}, otlp_http ${fmt(httpRate)} ${unit}`);
  }
  server.forceShutdown();
  http.close();
}
