/**
 * OTLP in `npm run bench`: data points/s of a 1,000-series gauge, log records/s, and spans/s of
 * the 6-span checkout trace of bench/traces.ts, at an unbounded rate through the otlp encoder into
 * the otlp_grpc and otlp_http sinks, against receivers in this process that accept every request
 * without decoding it (so the figure is svc's own cost plus loopback I/O); and the same trace as
 * json_lines into a file, with the heap sampled each second (flat: nothing grows with time).
 * Prints figures; asserts nothing.
 */
import * as grpc from '@grpc/grpc-js';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Entry, SinkConfig } from '../lib/config/types.js';
import { runEntry } from '../lib/runtime/run-entry.js';
import { CHECKOUT } from './traces.js';

type Signal = 'metrics' | 'logs' | 'traces';

function entry(signal: Signal, sink: SinkConfig, seconds: number, encoder: Entry['encoder'] = { type: 'otlp' }): Entry {
  const common = {
    id: `bench_otlp_${signal}`,
    rate: 1e9,
    duration: seconds * 1000,
    start_time: { kind: 'now' as const },
    encoder,
    sink,
    labels: { host: 'bench-1', region: 'eu-west', service: 'api' },
    jitter_seed: 0,
    on_sink_error: 'fail' as const,
    cardinality_spikes: [],
  };
  if (signal === 'traces') {
    return {
      ...common,
      signal_type: 'traces',
      name: 'bench_otlp_traces',
      labels: {},
      trace_generator: CHECKOUT,
      dynamic_labels: [],
      metric_type: 'untyped',
    };
  }
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

/** Events a second of `entry` run to its end, and the heap (MiB) sampled once a second meanwhile. */
async function rateOf(run: Entry): Promise<{ rate: number; heap: number[] }> {
  const started = performance.now();
  const heap: number[] = [];
  const sampler = setInterval(() => heap.push(process.memoryUsage().heapUsed / 2 ** 20), 1000);
  const running = runEntry(run);
  const outcome = await running.done;
  clearInterval(sampler);
  if (outcome.error) throw outcome.error;
  return { rate: running.stats.totalEvents / ((performance.now() - started) / 1000), heap };
}

async function rate(signal: Signal, sink: SinkConfig, seconds: number): Promise<number> {
  return (await rateOf(entry(signal, sink, seconds))).rate;
}

/** Runs the OTLP figures, `seconds` each. */
export async function otlpBench(seconds: number): Promise<void> {
  const server = new grpc.Server();
  const accept = (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.alloc(0));
  for (const service of ['metrics.v1.MetricsService', 'logs.v1.LogsService', 'trace.v1.TraceService']) {
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
  for (const signal of ['metrics', 'logs', 'traces'] as const) {
    const grpcRate = await rate(
      signal,
      { type: 'otlp_grpc', endpoint: `127.0.0.1:${port}`, signal_type: signal },
      seconds,
    );
    const httpRate = await rate(signal, { type: 'otlp_http', url, signal_type: signal }, seconds);
    const unit = {
      metrics: 'data points/s (1,000-series gauge)',
      logs: 'log records/s (2 templates)',
      traces: 'spans/s (a 6-span trace)',
    }[signal];
    console.log(`  ${signal.padEnd(8)} otlp_grpc ${fmt(grpcRate)}, otlp_http ${fmt(httpRate)} ${unit}`);
  }
  server.forceShutdown();
  http.close();
  const file = join(tmpdir(), `svc-bench-traces-${process.pid}.jsonl`);
  const toFile = await rateOf(entry('traces', { type: 'file', path: file }, seconds, { type: 'json_lines' }));
  rmSync(file, { force: true });
  const heap = toFile.heap.map((mib) => mib.toFixed(0)).join(', ');
  console.log(`  traces   json_lines -> file ${fmt(toFile.rate)} spans/s; heap each second: ${heap} MiB`);
}
