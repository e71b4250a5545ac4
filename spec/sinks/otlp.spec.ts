import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createHttp2Server, type ServerHttp2Stream } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { SinkReport } from '../../operators/deliver.js';
import type { Entry } from '../../lib/config/types.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { createSink } from '../../lib/sinks/index.js';
import { otlpLogs, otlpMetrics } from '../../lib/encoders/otlp.js';
import { grpcEndpointWarnings, grpcTrust, otlpGrpcSink } from '../../lib/sinks/otlp-grpc.js';
import { sinkWarnings } from '../../lib/server/warnings.js';
import type { SinkError } from '../../lib/sinks/core/errors.js';
import { otlpHttpSink } from '../../lib/sinks/otlp-http.js';
import { logBatch, sampleBatch } from '../support/batches.js';
import { startHostileReceiver } from '../support/backends/hostile.js';
import {
  rawExportService,
  startOtlpReceiver,
  type ExportRequest,
  type OtlpAnswer,
  type OtlpReceiver,
} from '../support/backends/otlp-receiver.js';
import { histogramEntry, metricEntry } from '../support/entries.js';
import { spansFromOtlp } from '../support/traces.js';
import { runSvc, runUntilTerm, scenarioDir, stoppedEvents, svc, foreverScenario, upScenario } from '../support/cli.js';
import { selfSigned } from '../support/certificate.js';
import { VERSION } from '../../lib/version.js';

const QUICK_RETRY = { maxAttempts: 3, initialBackoff: 10, maxBackoff: 20 };
const { scenario } = scenarioDir('svc-otlp-');

/** Every metric of every accepted request, in order. */
const metricsOf = (receiver: OtlpReceiver): ExportRequest[] =>
  receiver.received
    .filter((r) => r.signal === 'metrics')
    .flatMap((r) =>
      r.request.resource_metrics.flatMap((rm: ExportRequest) =>
        rm.scope_metrics.flatMap((sm: ExportRequest) => sm.metrics),
      ),
    );
const logsOf = (receiver: OtlpReceiver): ExportRequest[] =>
  receiver.received
    .filter((r) => r.signal === 'logs')
    .flatMap((r) =>
      r.request.resource_logs.flatMap((rl: ExportRequest) =>
        rl.scope_logs.flatMap((sl: ExportRequest) => sl.log_records),
      ),
    );
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);
const attribute = (key: string, value: string) => ({ key, value: { string_value: value } });

async function run(entry: Entry): Promise<{ started: number; events: number }> {
  const started = Date.now();
  const entryRun = runEntry(entry);
  expect(await entryRun.done).to.deep.equal({});
  return { started, events: entryRun.stats.snapshot(Date.now()).total_events };
}

/** What every resource svc writes says of the SDK that wrote it (as a span's resource does), as the receiver decodes it. */
const SDK_ATTRIBUTES = [
  attribute('telemetry.sdk.language', 'nodejs'),
  attribute('telemetry.sdk.name', 'svc'),
  attribute('telemetry.sdk.version', VERSION),
];

/**
 * The message an otlp_grpc sink of metrics at `endpoint` gives up with on one batch, after `maxAttempts` calls
 * (10 ms apart) of at most `timeout` ms each (the sink's default when absent).
 */
async function grpcGivenUp(endpoint: string, maxAttempts: number, timeout?: number): Promise<string> {
  const sink = otlpGrpcSink({
    endpoint,
    signal: 'metrics',
    ...(timeout !== undefined && { timeout }),
    retry: { maxAttempts, initialBackoff: 10, maxBackoff: 10 },
  });
  sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
  return ((await sink.close().catch((e: unknown) => e)) as Error).message;
}

/** The address (`127.0.0.1:port`) `server` listens on, once it does. */
async function listening(server: {
  listen(port: number, host: string, done: () => void): unknown;
  address(): unknown;
}) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('OTLP sinks', function () {
  this.timeout(20_000);
  let receiver: OtlpReceiver;
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => receiver.stop());

  const sinks = () => ({
    grpc: { type: 'otlp_grpc' as const, endpoint: receiver.grpcAddress, max_buffer_age: 100 },
    http: { type: 'otlp_http' as const, url: receiver.httpUrl, max_buffer_age: 100 },
  });

  for (const via of ['grpc', 'http'] as const) {
    describe(`otlp_${via}`, () => {
      it('a gauge arrives as a Gauge: one data point a tick, its value, attributes from the labels, the entry clock in nanoseconds', async () => {
        const startTime = { kind: 'absolute' as const, epochMs: Date.UTC(2026, 10, 22, 12) };
        await run(
          metricEntry({
            name: 'room_temp',
            help: 'Room temperature.',
            rate: 10,
            duration: 300,
            start_time: startTime,
            generator: { type: 'constant', value: 21.5 },
            labels: { room: 'lab' },
            encoder: { type: 'otlp' },
            sink: sinks()[via],
          }),
        );
        const metrics = metricsOf(receiver);
        expect(metrics.map((m) => [m.name, m.description])).to.deep.equal(
          Array(3).fill(['room_temp', 'Room temperature.']),
        );
        expect(metrics.map((m) => m.gauge.data_points[0])).to.deep.equal(
          [0, 100, 200].map((offset) => ({
            attributes: [attribute('room', 'lab')],
            start_time_unix_nano: '0',
            time_unix_nano: nanos(startTime.epochMs + offset),
            as_double: 21.5,
            exemplars: [],
            flags: 0,
          })),
        );
        const [request] = receiver.received;
        expect(request!.request.resource_metrics[0].resource.attributes).to.deep.equal([
          attribute('service.name', 'svc'),
          ...SDK_ATTRIBUTES,
        ]);
        expect(request!.request.resource_metrics[0].scope_metrics[0].scope).to.deep.include({ name: 'svc' });
      });

      it('a counter (step) arrives as a monotonic cumulative Sum whose start time is the entry start, the same on every point', async () => {
        const { started } = await run(
          metricEntry({
            name: 'jobs_total',
            rate: 20,
            duration: 200,
            metric_type: 'counter',
            generator: { type: 'step', start: 0, step_size: 2 },
            encoder: { type: 'otlp' },
            sink: sinks()[via],
          }),
        );
        const sums = metricsOf(receiver).map((m) => m.sum);
        expect(sums.map((s) => [s.is_monotonic, s.aggregation_temporality])).to.deep.equal(
          Array(4).fill([true, 'AGGREGATION_TEMPORALITY_CUMULATIVE']),
        );
        expect(sums.map((s) => s.data_points[0].as_double)).to.deep.equal([0, 2, 4, 6]);
        const starts = new Set(sums.map((s) => s.data_points[0].start_time_unix_nano));
        expect(starts.size).to.equal(1);
        expect(Number(BigInt([...starts][0]) / 1_000_000n)).to.be.within(started - 1000, started + 1000);
        expect(sums[3].data_points[0].time_unix_nano).to.equal(String(BigInt([...starts][0]) + 150_000_000n));
      });

      it('a histogram arrives as a Histogram: the entry buckets as bounds, counts per bucket, sum and count as the text form has them', async () => {
        await run(
          metricEntry({ ...histogramEntry, rate: 10, duration: 200, encoder: { type: 'otlp' }, sink: sinks()[via] }),
        );
        const points = metricsOf(receiver).map((m) => m.histogram.data_points[0]);
        expect(points).to.have.length(2);
        for (const point of points) {
          expect(point.explicit_bounds).to.deep.equal([0.05, 0.1, 0.5]);
          expect(point.bucket_counts.map(Number).reduce((a: number, b: number) => a + b)).to.equal(Number(point.count));
          expect(point.attributes).to.deep.equal([attribute('svc', 'api')]);
        }
        // 20 observations a tick, cumulative over the run.
        expect(points.map((p) => p.count)).to.deep.equal(['20', '40']);
        expect(metricsOf(receiver)[0].histogram.aggregation_temporality).to.equal('AGGREGATION_TEMPORALITY_CUMULATIVE');
      });

      it('a summary arrives as a Summary with its quantile values, sum and count', async () => {
        const summary = {
          signal_type: 'summary' as const,
          name: 'size_bytes',
          generator: undefined,
          distribution: { type: 'normal' as const, mean: 100, stddev: 10 },
          quantiles: [0.5, 0.9],
          observations_per_tick: 50,
          seed: 1,
          metric_type: 'summary' as const,
        };
        await run(metricEntry({ ...summary, rate: 10, duration: 100, encoder: { type: 'otlp' }, sink: sinks()[via] }));
        const [point] = metricsOf(receiver).map((m) => m.summary.data_points[0]);
        expect(point.count).to.equal('50');
        expect(point.quantile_values.map((q: { quantile: number }) => q.quantile)).to.deep.equal([0.5, 0.9]);
        expect(point.quantile_values[0].value).to.be.within(90, 110);
        expect(point.sum / 50).to.be.within(95, 105);
      });

      it('logs arrive as LogRecords: severity number and text, the message as body, labels and fields as attributes, start_time honoured', async () => {
        const before = Date.now();
        await run(
          metricEntry({
            signal_type: 'logs',
            name: 'app',
            generator: undefined,
            rate: 10,
            duration: 200,
            start_time: { kind: 'relative', offsetMs: -3_600_000 },
            log_generator: {
              type: 'template',
              templates: [{ message: 'disk {disk} almost full', severity: 'warn' }],
              field_pools: { disk: ['sda'] },
              seed: 1,
            },
            labels: { app: 'api' },
            metric_type: 'untyped',
            encoder: { type: 'otlp' },
            // Validation fills signal_type in from the entry; this entry is built by hand.
            sink: { ...sinks()[via], signal_type: 'logs' },
          }),
        );
        const records = logsOf(receiver);
        expect(records).to.have.length(2);
        expect(records[0]).to.deep.include({
          severity_number: 'SEVERITY_NUMBER_WARN',
          severity_text: 'warn',
          body: { string_value: 'disk sda almost full' },
        });
        expect(records[0].attributes).to.deep.equal([attribute('app', 'api'), attribute('disk', 'sda')]);
        const time = Number(BigInt(records[0].time_unix_nano) / 1_000_000n);
        expect(time).to.be.within(before - 3_600_000 - 1000, before - 3_600_000 + 1000);
        expect(Number(BigInt(records[0].observed_time_unix_nano) / 1_000_000n)).to.be.within(before, Date.now());
        expect(receiver.received[0]!.signal).to.equal('logs');
      });

      it('a log record naming a span (trace_context) carries its trace_id, span_id and the flags of its trace, sampled or not', async () => {
        const sampled = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1 };
        const unsampled = { traceId: '4bf92f3577b34da6a3ce929d0e0e4737', spanId: '00f067aa0ba902b8', flags: 0 };
        const sink = createSink({
          type: `otlp_${via}`,
          ...(via === 'grpc' ? { endpoint: receiver.grpcAddress } : { url: receiver.httpUrl }),
          signal_type: 'logs',
        } as never);
        sink.write(
          otlpLogs().encode(
            logBatch([
              { severity: 'error', message: 'charge failed', context: sampled },
              { severity: 'error', message: 'refund failed', context: unsampled },
              { severity: 'info', message: 'charged' },
            ]),
          ),
        );
        await sink.close();
        const [named, unsampledNamed, plain] = logsOf(receiver);
        expect(named).to.deep.include({ trace_id: sampled.traceId, span_id: sampled.spanId, flags: 1 });
        expect(unsampledNamed).to.deep.include({ trace_id: unsampled.traceId, span_id: unsampled.spanId, flags: 0 });
        expect(plain).to.deep.include({ trace_id: '', span_id: '', flags: 0 });
      });

      it('sends the resource of the sink and its headers, names itself svc/<version> (OTLP: exporters SHOULD), and still arrives with gzip on (over HTTP as Content-Encoding: gzip)', async () => {
        const sink = {
          ...sinks()[via],
          resource: { 'service.name': 'checkout', 'deployment.environment': 'test' },
          headers: { 'X-Scope-OrgID': 'team-a' },
          compression: 'gzip' as const,
        };
        await run(metricEntry({ name: 'up', rate: 10, duration: 100, encoder: { type: 'otlp' }, sink }));
        const [request] = receiver.received;
        expect(request!.request.resource_metrics[0].resource.attributes).to.deep.equal([
          attribute('deployment.environment', 'test'),
          attribute('service.name', 'checkout'),
          ...SDK_ATTRIBUTES,
        ]);
        expect(request!.headers['x-scope-orgid']).to.equal('team-a');
        // gRPC: grpc-js adds its own name after it.
        expect(request!.headers['user-agent']).to.match(new RegExp(`^svc/${VERSION.replaceAll('.', '\\.')}( |$)`));
        if (via === 'http') expect(request!.headers['content-encoding']).to.equal('gzip');
      });

      it('retries a collector that is unavailable, waiting as long as it asks, then delivers', async () => {
        let n = 0;
        receiver.answer(() =>
          ++n <= 2
            ? { grpc: grpc.status.UNAVAILABLE, details: 'overloaded', retryAfterMs: 60, http: 503 }
            : { accept: true },
        );
        const sink =
          via === 'grpc'
            ? otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'metrics', retry: QUICK_RETRY, random: () => 0 })
            : otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', retry: QUICK_RETRY, random: () => 0 });
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1, 2] })));
        await sink.close();
        expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'delivered']);
        // The backoff of random() = 0 is 0 ms: the wait is the collector's RetryInfo (grpc, in ms) or Retry-After
        // (http, in whole seconds: 60 ms asked is 1 s).
        const asked = via === 'grpc' ? 60 : 1000;
        expect(reports.slice(0, 2).map((r) => (r as { delay: number }).delay)).to.deep.equal([asked, asked]);
        expect(metricsOf(receiver)).to.have.length(2);
      });

      it("a partial success fails the refused points only, with the collector's reason", async () => {
        receiver.answer(() => ({ accept: true, rejected: 2, message: 'value out of range' }));
        const sink = createSink({
          type: `otlp_${via}`,
          ...(via === 'grpc' ? { endpoint: receiver.grpcAddress } : { url: receiver.httpUrl }),
          signal_type: 'metrics',
        } as never);
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1, 2, 3, 4, 5] })));
        const error = (await sink.close().catch((e: unknown) => e)) as Error;
        expect(reports.map((r) => [r.kind, (r as { size: number }).size])).to.deep.equal([
          ['delivered', 3],
          ['failed', 2],
        ]);
        expect(error.message).to.equal(
          `otlp_${via} sink: the collector refused 2 of 5 data points: "value out of range"`,
        );
      });

      it("a partial success refusing none delivers every point and says the collector's warning once", async () => {
        receiver.answer(() => ({ accept: true, rejected: 0, message: 'unit furlongs unknown' }));
        const sink = createSink({
          type: `otlp_${via}`,
          ...(via === 'grpc' ? { endpoint: receiver.grpcAddress } : { url: receiver.httpUrl }),
          signal_type: 'metrics',
          batch_size: 1,
        } as never);
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1, 2, 3] })));
        await sink.close();
        expect(
          reports.map((r) => (r.kind === 'warning' ? r.message : [r.kind, (r as { size: number }).size])),
        ).to.deep.equal([
          `otlp_${via} sink: the collector took all data points but warned: "unit furlongs unknown" (said once: later warnings of this sink are not shown)`,
          ['delivered', 1],
          ['delivered', 1],
          ['delivered', 1],
        ]);
      });
    });
  }

  it("masks the credentials sent where the collector's refusal or partial success repeats them", async () => {
    const headers = { Authorization: 'Bearer tok-SECRET1', 'x-api-key': 'SECRET2' };
    for (const [answer, shown] of [
      [{ grpc: grpc.status.UNAUTHENTICATED, details: 'Bearer tok-SECRET1 rejected', http: 401 }, '"*** rejected'],
      [{ accept: true, rejected: 1, message: 'key SECRET2 over quota' }, 'key *** over quota'],
    ] as const) {
      receiver.answer(() => answer);
      for (const sink of [
        otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'metrics', headers, retry: QUICK_RETRY }),
        otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', headers, retry: QUICK_RETRY }),
      ]) {
        sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
        const error = (await sink.close().catch((e: unknown) => e)) as Error;
        expect(error.message)
          .to.include(shown)
          .and.not.match(/SECRET/);
      }
    }
    // A warning (a partial success refusing none) repeating the Authorization sent shows it masked too.
    receiver.answer(() => ({ accept: true, rejected: 0, message: 'Bearer tok-SECRET1 is deprecated' }));
    for (const sink of [
      otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'metrics', headers, retry: QUICK_RETRY }),
      otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', headers, retry: QUICK_RETRY }),
    ]) {
      const warnings: string[] = [];
      sink.reports!.subscribe((report) => report.kind === 'warning' && warnings.push(report.message));
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      await sink.close();
      expect(warnings).to.have.length(1);
      expect(warnings[0])
        .to.include('but warned: "*** is deprecated"')
        .and.not.match(/SECRET/);
    }
  });

  it('retries only what OTLP calls retryable: HTTP 429, 502, 503, 504; gRPC RESOURCE_EXHAUSTED with a RetryInfo', async () => {
    const calls = async (answer: OtlpAnswer, via: 'grpc' | 'http', retry = QUICK_RETRY) => {
      receiver.answer(() => answer);
      const before = receiver.calls;
      const sink =
        via === 'grpc'
          ? otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'metrics', retry, random: () => 0 })
          : otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', retry: QUICK_RETRY, random: () => 0 });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      return { calls: receiver.calls - before, message: error.message };
    };
    const exhausted = { grpc: grpc.status.RESOURCE_EXHAUSTED, details: 'quota' } as const;
    expect(await calls(exhausted, 'grpc')).to.deep.equal({
      calls: 1,
      message: `otlp_grpc sink: ${receiver.grpcAddress} answered RESOURCE_EXHAUSTED: "quota" without a RetryInfo, which OTLP retries only with (the collector will not recover soon): check its limits`,
    });
    // Retried as asked, it fails at last saying so, not that the RetryInfo was missing.
    expect(await calls({ ...exhausted, retryAfterMs: 10 }, 'grpc')).to.deep.equal({
      calls: 3,
      message: `otlp_grpc sink: ${receiver.grpcAddress} answered RESOURCE_EXHAUSTED: "quota"; the collector stayed out of resources through the waits its RetryInfo asked for: check its limits (gave up after 3 attempts)`,
    });
    // Not retried (max_attempts 1), no wait happened: it does not say it waited.
    expect(await calls({ ...exhausted, retryAfterMs: 10 }, 'grpc', { ...QUICK_RETRY, maxAttempts: 1 })).to.deep.equal({
      calls: 1,
      message: `otlp_grpc sink: ${receiver.grpcAddress} answered RESOURCE_EXHAUSTED: "quota"; the collector is out of resources (its RetryInfo asks for a wait before trying again): check its limits`,
    });
    for (const status of [408, 500, 501])
      expect((await calls({ ...exhausted, http: status }, 'http')).calls).to.equal(1);
    for (const status of [429, 502, 503, 504])
      expect((await calls({ ...exhausted, http: status }, 'http')).calls).to.equal(3);
  });

  it("otlp_grpc: 1,000 log records of 5 KB go in requests below the collector's 4 MiB receive limit, and all arrive", async () => {
    // The receiver's gRPC server keeps grpc's (and the collector's) default: messages of at most 4 MiB.
    const message = 'x'.repeat(5000);
    const sink = otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'logs', retry: QUICK_RETRY });
    sink.write(otlpLogs().encode(logBatch(Array.from({ length: 1000 }, () => ({ severity: 'info', message })))));
    await sink.close();
    expect(logsOf(receiver)).to.have.length(1000);
    expect(receiver.received).to.have.length(2);
  });

  it('otlp_grpc: an endpoint URL with a path (gRPC has no use for one) is warned about at load, naming sink.endpoint, and delivers to host:port', async () => {
    const port = receiver.grpcAddress.split(':')[1];
    const endpoint = `http://127.0.0.1:${port}/v1/traces`;
    const warning = `otlp_grpc sink: sink.endpoint ${endpoint} has "/v1/traces" after its host and port, which gRPC does not use: the calls go to 127.0.0.1:${port}, to the path of the OTLP service (a path such as /v1/traces is OTLP/HTTP's: the otlp_http sink's url); write the endpoint without it`;
    expect(grpcEndpointWarnings(endpoint)).to.deep.equal([warning]);
    expect(grpcEndpointWarnings('https://collector:4317?x=1#y')[0]).to.include('has "?x=1#y" after its host and port');
    for (const clean of ['127.0.0.1:4317', 'http://collector:4317', 'https://collector:4317/'])
      expect(grpcEndpointWarnings(clean), clean).to.deep.equal([]);
    // svc-server says it with a request's other warnings; bin/svc when the entry starts.
    expect(sinkWarnings('sink', { type: 'otlp_grpc', endpoint } as never)).to.include(`sink: ${warning}`);
    const file = scenario(
      'grpc-path.yaml',
      upScenario(`{ type: otlp_grpc, endpoint: "${endpoint}" }`, ['rate: 10', 'duration: 300ms']),
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(`[warn] up: ${warning}\n`);
    expect(metricsOf(receiver).length).to.be.greaterThan(0);
  });

  it('otlp_grpc and otlp_http: records of many chunks fill requests up to 4,000,000 bytes, not the 1 MiB of other sinks', async () => {
    // Ten chunks of 100 records of 5 KB: the batching core gathered 1 MiB of chunks, so five requests of 200 records.
    const message = 'x'.repeat(5000);
    for (const sink of [
      otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'logs', retry: QUICK_RETRY }),
      otlpHttpSink({ url: receiver.httpUrl, signal: 'logs', retry: QUICK_RETRY }),
    ]) {
      const before = receiver.received.length;
      for (let chunk = 0; chunk < 10; chunk++)
        sink.write(otlpLogs().encode(logBatch(Array.from({ length: 100 }, () => ({ severity: 'info', message })))));
      await sink.close();
      // Whole chunks of 501,000 bytes: seven make a request, an eighth would pass 4,000,000.
      const requests = receiver.received
        .slice(before)
        .map(
          ({ request }) => request.resource_logs.flatMap((rl: ExportRequest) => rl.scope_logs[0].log_records).length,
        );
      expect(requests).to.deep.equal([700, 300]);
    }
  });

  it('otlp_grpc: a record larger than the collector takes by itself fails alone, counted, saying so; the others arrive', async () => {
    // 5 MB in one log record: above the receiver's (and the collector's) 4 MiB, and no request can split it.
    const records = ['a', 'x'.repeat(5_000_000), 'b'].map((message) => ({ severity: 'info', message }));
    const reports: SinkReport[] = [];
    const sink = otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'logs', retry: QUICK_RETRY });
    sink.reports!.subscribe((report) => reports.push(report));
    sink.write(otlpLogs().encode(logBatch(records)));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(logsOf(receiver).map((record) => record.body.string_value)).to.deep.equal(['a', 'b']);
    expect(error.message).to.match(
      new RegExp(
        `^otlp_grpc sink: ${receiver.grpcAddress} answered RESOURCE_EXHAUSTED: "Received message larger than max \\(50\\d{5} vs\\.? 4194304\\)"; ` +
          'the request holds a single record of 4\\.8 MiB \\(one log record\\), which svc cannot split, and the collector takes less in one message ' +
          "\\(4 MiB unless its receiver's max_recv_msg_size_mib says more\\): make the record smaller, or raise that limit$",
      ),
    );
    expect(reports.filter((r) => r.kind === 'failed').map((r) => r.size)).to.deep.equal([1]);
    expect(
      reports.map((r) => r.kind),
      'not retried',
    ).not.to.include('retrying');
  });

  it('otlp_http: a 413 says lower batch_size only when the request holds several events; a single record, that svc cannot split and that the limit was lowered', async () => {
    receiver.answer(() => ({ grpc: grpc.status.RESOURCE_EXHAUSTED, details: 'request body too large', http: 413 }));
    const refusal = async (messages: string[]) => {
      const sink = otlpHttpSink({ url: receiver.httpUrl, signal: 'logs', retry: QUICK_RETRY });
      sink.write(otlpLogs().encode(logBatch(messages.map((message) => ({ severity: 'info', message })))));
      return ((await sink.close().catch((e: unknown) => e)) as Error).message;
    };
    const said = `^otlp_http sink: POST ${receiver.httpUrl}/v1/logs answered 413 Payload Too Large: "request body too large"; `;
    expect(await refusal(['x'.repeat(5_000_000)])).to.match(
      new RegExp(
        `${said}the request holds a single record of 4\\.8 MiB \\(one log record\\), which svc cannot split, and the collector takes less in one message ` +
          "\\(its receiver's max_request_body_size, 20 MiB by default, was lowered, or a proxy in front of it takes less\\): make the record smaller, or raise that limit$",
      ),
    );
    // One small record alone: lowering batch_size cannot help either.
    expect(await refusal(['x'.repeat(2_000_000)])).to.match(
      new RegExp(`${said}the request holds a single record of 1\\.9 MiB \\(one log record\\), which svc cannot split`),
    );
    expect(await refusal(['a', 'b'])).to.match(
      new RegExp(
        `${said}the collector takes less in one message than svc sends \\(up to 3\\.8 MiB of records\\): lower batch_size, or raise its receiver's max_request_body_size$`,
      ),
    );
  });

  it('otlp_grpc: INVALID_ARGUMENT is not retried; the message says what to check', async () => {
    receiver.answer(() => ({ grpc: grpc.status.INVALID_ARGUMENT, details: 'unexpected data' }));
    const sink = otlpGrpcSink({ endpoint: receiver.grpcAddress, signal: 'metrics', retry: QUICK_RETRY });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(receiver.calls).to.equal(1);
    expect(error.message).to.equal(
      `otlp_grpc sink: ${receiver.grpcAddress} answered INVALID_ARGUMENT: "unexpected data"; the collector refused the data as invalid: check that the sink's signal_type (metrics) is what this endpoint expects and that the entry is a metrics entry`,
    );
  });

  it('otlp_grpc: a gRPC server without the OTLP service answers UNIMPLEMENTED, and the message names the ports', async () => {
    const bare = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      bare.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const sink = otlpGrpcSink({ endpoint: `127.0.0.1:${port}`, signal: 'logs', retry: QUICK_RETRY });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      expect(error.message).to.match(
        /answered UNIMPLEMENTED.*does not serve OTLP logs over gRPC: is it the collector's OTLP\/gRPC port \(usually 4317; OTLP\/HTTP on 4318 takes the otlp_http sink\)\?$/,
      );
    } finally {
      bare.forceShutdown();
    }
  });

  it('otlp_grpc: an https:// endpoint speaks TLS (here to a plaintext server, which fails the handshake)', async () => {
    const sink = otlpGrpcSink({
      endpoint: `https://${receiver.grpcAddress}`,
      signal: 'metrics',
      retry: { maxAttempts: 1, initialBackoff: 10, maxBackoff: 10 },
    });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(receiver.received).to.have.length(0);
    expect(error.message).to.match(
      /^otlp_grpc sink: 127\.0\.0\.1:\d+ answered UNAVAILABLE: ".*SSL.*"; TLS failed \(an https:\/\/ endpoint\): does the collector serve TLS on this port/,
    );
  });

  it('TLS: a collector whose certificate no trusted CA signed says how to trust it; trusted through NODE_EXTRA_CA_CERTS, both sinks deliver', async () => {
    // A self-signed certificate of 127.0.0.1, as a private CA's collector has one.
    const { dir } = scenarioDir('svc-otlp-tls-');
    const { key, cert } = selfSigned(dir);
    let calls = 0;
    const grpcServer = new grpc.Server();
    grpcServer.addService(rawExportService('metrics'), {
      Export: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => (calls++, callback(null, Buffer.alloc(0))),
    });
    const grpcPort = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync(
        '127.0.0.1:0',
        grpc.ServerCredentials.createSsl(null, [{ private_key: readFileSync(key), cert_chain: readFileSync(cert) }]),
        (error, port) => (error ? reject(error) : resolve(port)),
      ),
    );
    const httpsServer = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) =>
      req.resume().on('end', () => (calls++, res.writeHead(200).end())),
    );
    await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
    const httpsPort = (httpsServer.address() as { port: number }).port;
    try {
      const sink = otlpHttpSink({ url: `https://127.0.0.1:${httpsPort}`, signal: 'metrics', retry: QUICK_RETRY });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      expect(((await sink.close().catch((e: unknown) => e)) as Error).message).to.equal(
        `otlp_http sink: the TLS certificate of 127.0.0.1:${httpsPort} is not signed by a CA this machine trusts: for a private CA, name its PEM file in the environment variable NODE_EXTRA_CA_CERTS`,
      );
      // otlp_grpc tells it as well, from grpc-js's words, and as final: no retries meeting the same certificate.
      const grpcSink = otlpGrpcSink({
        endpoint: `https://127.0.0.1:${grpcPort}`,
        signal: 'metrics',
        retry: QUICK_RETRY,
      });
      grpcSink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      const grpcError = (await grpcSink.close().catch((e: unknown) => e)) as SinkError;
      expect({ message: grpcError.message, retryable: grpcError.retryable }).to.deep.equal({
        message: `otlp_grpc sink: the TLS certificate of 127.0.0.1:${grpcPort} is not signed by a CA this machine trusts: ${grpcTrust()}`,
        retryable: false,
      });
      const file = scenario(
        'tls.yaml',
        'version: 2\nkind: runnable\nscenarios:\n' +
          `  - {name: a, signal_type: metrics, generator: {type: constant, value: 1}, rate: 1, duration: 1s, sink: {type: otlp_grpc, endpoint: "https://127.0.0.1:${grpcPort}"}}\n` +
          `  - {name: b, signal_type: metrics, generator: {type: constant, value: 1}, rate: 1, duration: 1s, sink: {type: otlp_http, url: "https://127.0.0.1:${httpsPort}"}}\n`,
      );
      // A process of its own: Node reads NODE_EXTRA_CA_CERTS as it starts. bin/svc runs the built code (dist/), as
      // every bin/ spec: CI builds before the specs; locally, npm run build after changing lib. GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, when
      // set, would be the only CAs gRPC trusts.
      const run = (extraCa: string | undefined) =>
        runSvc(['run', file], {
          env: { ...process.env, NODE_EXTRA_CA_CERTS: extraCa, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: undefined },
        });
      expect((await run(undefined)).stderr).to.include(
        `otlp_grpc sink: the TLS certificate of 127.0.0.1:${grpcPort} is not signed by a CA this machine trusts: for a private CA, name its PEM file in the environment variable NODE_EXTRA_CA_CERTS)`,
      );
      calls = 0;
      expect({ code: (await run(cert)).code, calls }).to.deep.equal({ code: 0, calls: 2 });
    } finally {
      grpcServer.forceShutdown();
      httpsServer.closeAllConnections();
      httpsServer.close();
    }
  });

  describe('otlp_grpc over TLS to a collector this machine trusts (NODE_EXTRA_CA_CERTS, read as bin/svc starts)', () => {
    /** A TLS collector of a certificate made out to `altNames`, answering every call with `answer`, counting them. */
    const tlsCollector = async (altNames: string, answer: Partial<grpc.StatusObject> | null) => {
      const { dir } = scenarioDir('svc-otlp-tls-');
      const { key, cert } = selfSigned(dir, altNames);
      const collector = { calls: 0, cert, port: 0, server: new grpc.Server() };
      collector.server.addService(rawExportService('metrics'), {
        Export: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => (
          collector.calls++, callback(answer, answer ? null : Buffer.alloc(0))
        ),
      });
      collector.port = await new Promise<number>((resolve, reject) =>
        collector.server.bindAsync(
          '127.0.0.1:0',
          grpc.ServerCredentials.createSsl(null, [{ private_key: readFileSync(key), cert_chain: readFileSync(cert) }]),
          (error, port) => (error ? reject(error) : resolve(port)),
        ),
      );
      return collector;
    };
    /** bin/svc sending one point to the collector, three tries; its stderr. */
    const send = async (collector: { cert: string; port: number }) => {
      const file = scenario(
        'tls-answer.yaml',
        'version: 2\nkind: runnable\nscenarios:\n' +
          '  - {name: a, signal_type: metrics, generator: {type: constant, value: 1}, rate: 1, duration: 1s,\n' +
          `     sink: {type: otlp_grpc, endpoint: "https://127.0.0.1:${collector.port}", retry: {max_attempts: 3, initial_backoff: 10ms, max_backoff: 20ms}}}\n`,
      );
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: collector.cert, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: undefined };
      return (await runSvc(['run', file], { env })).stderr;
    };

    it("a collector's UNAVAILABLE telling its own exporter's certificate failure is retried as a refusal, not made svc's certificate failure", async () => {
      const details = 'failed to export: x509: certificate has expired or is not yet valid';
      const collector = await tlsCollector('IP:127.0.0.1', { code: grpc.status.UNAVAILABLE, details });
      try {
        const stderr = await send(collector);
        expect({ calls: collector.calls, said: stderr.includes(`answered UNAVAILABLE: "${details}"`) }).to.deep.equal({
          calls: 3,
          said: true,
        });
        expect(stderr).not.to.include('has expired: renew it');
      } finally {
        collector.server.forceShutdown();
      }
    });

    it('a certificate made out to other addresses is said with all of them (grpc-js words them past the 200 characters kept)', async () => {
      const addresses = Array.from({ length: 8 }, (_, i) => `10.0.0.${i + 1}`);
      const collector = await tlsCollector(addresses.map((address) => `IP:${address}`).join(','), null);
      try {
        expect(await send(collector)).to.include(
          `the TLS certificate of 127.0.0.1:${collector.port} is not made out to "127.0.0.1" (Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ${addresses.join(', ')}): address the server by a name its certificate holds`,
        );
        expect(collector.calls).to.equal(0);
      } finally {
        collector.server.forceShutdown();
      }
    });
  });

  it('otlp_grpc: no connection, an unknown host and no answer in time are said in words, as the other sinks say them', async () => {
    const silent = await startHostileReceiver('silent');
    const failure = (endpoint: string) => grpcGivenUp(endpoint, 1, 300);
    try {
      expect(await failure('127.0.0.1:1')).to.equal(
        'otlp_grpc sink: connection refused by 127.0.0.1:1: is the backend running, and is 127.0.0.1:1 the right port?',
      );
      expect(await failure('no-such-host.invalid:4317')).to.equal(
        'otlp_grpc sink: cannot resolve host "no-such-host.invalid": check the host name in the address',
      );
      expect(await failure(silent.address)).to.equal(
        `otlp_grpc sink: no answer from ${silent.address} in time: is the address reachable (firewall, wrong host)?`,
      );
    } finally {
      await silent.stop();
    }
  });

  it("otlp_grpc: a failed lookup of the proxy in grpc_proxy is svc's, naming the proxy's host, not the endpoint's answer", async () => {
    const before = process.env.grpc_proxy;
    process.env.grpc_proxy = 'http://no-such-proxy.invalid:3128';
    try {
      expect(await grpcGivenUp('collector.invalid:4317', 1, 3000)).to.equal(
        'otlp_grpc sink: cannot resolve host "no-such-proxy.invalid", which grpc-js looked up to reach collector.invalid:4317 (target dns:no-such-proxy.invalid:3128): is it the proxy named in grpc_proxy, https_proxy or http_proxy? Check that host name, or leave collector.invalid out of the proxy with no_grpc_proxy',
      );
    } finally {
      if (before === undefined) delete process.env.grpc_proxy;
      else process.env.grpc_proxy = before;
    }
  });

  describe('otlp_grpc: a connection that breaks under a call is said as the other sinks say it', () => {
    /** What an otlp_grpc sink gives up with after two calls to an HTTP/2 server doing `breakCall` to each. */
    const failureUnder = async (breakCall: (stream: ServerHttp2Stream) => void): Promise<string> => {
      const server = createHttp2Server();
      server.on('stream', breakCall);
      const address = await listening(server);
      try {
        return (await grpcGivenUp(address, 2)).replaceAll(address, 'ADDRESS');
      } finally {
        server.close();
      }
    };

    it("dropped (grpc-js's 'Connection dropped': a collector restarting, or its own keepalive ping unanswered), not as the collector's UNAVAILABLE", async () => {
      expect(await failureUnder((stream) => stream.session!.destroy())).to.equal(
        "otlp_grpc sink: the connection to ADDRESS dropped under the call: the collector closed it (check its log: did it restart, or refuse the data?), or did not answer grpc-js's keepalive ping in time (is it stuck, or the network down?) (gave up after 2 attempts)",
      );
    });

    it('reset (read ECONNRESET)', async () => {
      expect(await failureUnder((stream) => (stream.session!.socket as Socket).resetAndDestroy())).to.equal(
        "otlp_grpc sink: the connection to ADDRESS was reset: check the backend's log (did it restart, or refuse the data?) (gave up after 2 attempts)",
      );
    });
  });

  it("otlp_grpc: a connection grpc-js could not make for a cause naming no system code is svc's failure to connect, not the endpoint's answer", async () => {
    const failure = async (handle: (socket: Socket) => void) => {
      const server = createNetServer(handle);
      const address = await listening(server);
      try {
        return (await grpcGivenUp(address, 1)).replaceAll(address, 'ADDRESS');
      } finally {
        server.close();
      }
    };
    const hint = 'is the collector running, and is ADDRESS its OTLP/gRPC port (usually 4317)?';
    expect(await failure((socket) => socket.end())).to.equal(
      `otlp_grpc sink: cannot connect to ADDRESS (Failed to connect): ${hint}`,
    );
    expect(await failure((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))).to.equal(
      `otlp_grpc sink: cannot connect to ADDRESS (Protocol error): ${hint}`,
    );
  });

  for (const [what, wording] of [
    ['refused its connection', 'upstream unreachable: connect ECONNREFUSED 10.0.0.5:4317'],
    ['could not resolve its name', 'Name resolution failed for target dns:collector-b:4317'],
    // grpc-js's own words, but with the peer's headers as metadata: grpc-js makes up its statuses without any.
    ['lost its connection to it', 'Connection dropped'],
    ['could not resolve a name it shares with the endpoint', 'Name resolution failed for target dns:ENDPOINT'],
  ])
    it(`otlp_grpc: a gateway's UNAVAILABLE relaying that the collector behind it ${what} is its answer, not svc's network error`, async () => {
      const details = wording.replace('ENDPOINT', receiver.grpcAddress);
      receiver.answer(() => ({ grpc: grpc.status.UNAVAILABLE, details }));
      const sink = otlpGrpcSink({
        endpoint: receiver.grpcAddress,
        signal: 'metrics',
        retry: { maxAttempts: 2, initialBackoff: 10, maxBackoff: 10 },
      });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      // Retried, as any UNAVAILABLE.
      expect({ message: error.message, calls: receiver.calls }).to.deep.equal({
        message: `otlp_grpc sink: ${receiver.grpcAddress} answered UNAVAILABLE: "${details}"; ${receiver.grpcAddress} took the call: the collector is overloaded or shutting down, or a proxy there cannot reach the collector behind it (gave up after 2 attempts)`,
        calls: 2,
      });
    });

  it('otlp_grpc: a collector that took the call and did not answer in time is said as http_push says it', async () => {
    const server = new grpc.Server();
    const export_ = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
    server.register(
      export_,
      () => undefined,
      (b: Buffer) => b,
      (b: Buffer) => b,
      'unary',
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const sink = otlpGrpcSink({
        endpoint: `127.0.0.1:${port}`,
        signal: 'metrics',
        // Long enough for the connection to be made on a loaded machine (at 300 ms it sometimes was not: 'no answer').
        timeout: 1500,
        retry: { maxAttempts: 1, initialBackoff: 10, maxBackoff: 10 },
      });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      expect(((await sink.close().catch((e: unknown) => e)) as Error).message).to.equal(
        `otlp_grpc sink: 127.0.0.1:${port} accepted the connection but did not answer within 1.5 s: is the endpoint overloaded or stuck?`,
      );
    } finally {
      server.forceShutdown();
    }
  });

  it('otlp_http: a refusal says the message of the google.rpc.Status the collector answers with, not its bytes', async () => {
    receiver.answer(() => ({ grpc: grpc.status.INVALID_ARGUMENT, details: 'unexpected data', http: 400 }));
    const sink = otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', retry: QUICK_RETRY });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    expect(((await sink.close().catch((e: unknown) => e)) as Error).message).to.equal(
      `otlp_http sink: POST ${receiver.httpUrl}/v1/metrics answered 400 Bad Request: "unexpected data"; the collector refused the data as invalid: check that the sink's signal_type (metrics) matches the entry`,
    );
  });

  it('otlp_http: a Status longer than svc reads of a refusal still says the start of its message, not bytes', async () => {
    const details = `invalid data point: ${'x'.repeat(900)}`;
    receiver.answer(() => ({ grpc: grpc.status.INVALID_ARGUMENT, details, http: 400 }));
    const sink = otlpHttpSink({ url: receiver.httpUrl, signal: 'metrics', retry: QUICK_RETRY });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    const { message } = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(message).to.match(/answered 400 Bad Request: "invalid data point: x{100}/);
    // None of the Status' own bytes (its tags and lengths) show.
    expect(message).not.to.match(/[\u0000-\u001f]/);
  });

  it("otlp_http: a url of the collector's gRPC port says that port does not speak HTTP/1.1, not the parser's words", async () => {
    // A server of its own: the HTTP/1.1 connections it got keep a graceful shutdown (the receiver's) waiting.
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const sink = otlpHttpSink({ url: `http://127.0.0.1:${port}`, signal: 'metrics', retry: QUICK_RETRY });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    server.forceShutdown();
    expect(error.message).to.equal(
      `otlp_http sink: 127.0.0.1:${port} did not answer in HTTP/1.1: is it the right port? A gRPC port (such as OTLP/gRPC's 4317) speaks HTTP/2 only (gave up after 3 attempts)`,
    );
  });

  it("otlp_http: an HTTP answer the parser cannot take is said as malformed HTTP with the parser's reason, not as a wrong port", async () => {
    const answers = {
      'Header overflow': `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`,
      'Invalid character in chunk size': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n',
      'Duplicate Content-Length': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nOK',
    };
    for (const [reason, answer] of Object.entries(answers)) {
      const server = createNetServer((socket) => socket.on('error', () => {}).once('data', () => socket.end(answer)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      const sink = otlpHttpSink({ url: `http://127.0.0.1:${port}`, signal: 'metrics', retry: QUICK_RETRY });
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      server.close();
      expect(error.message).to.equal(
        `otlp_http sink: 127.0.0.1:${port} answered malformed HTTP: Parse Error: ${reason} (gave up after 3 attempts)`,
      );
    }
  });

  it('otlp_http: a 404 says the url is the base address', async () => {
    const sink = otlpHttpSink({ url: `${receiver.httpUrl}/wrong`, signal: 'metrics', retry: QUICK_RETRY });
    sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1] })));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `otlp_http sink: POST ${receiver.httpUrl}/wrong/v1/metrics answered 404 Not Found: "404 page not found"; url must be the collector's base address (the sink appends /v1/metrics; OTLP/HTTP is usually port 4318)`,
    );
  });

  it("otlp_http: a 2xx answer that is no protobuf ExportResponse is a delivery, sent once; an OTLP/JSON one's partial success counts, also past 64 KiB", async () => {
    const answers: [string, string, [string, number][]][] = [
      ['text/plain', 'OK', [['delivered', 2]]],
      ['application/json', '{}', [['delivered', 2]]],
      ['application/x-protobuf', '{"partialSuccess":{}}', [['delivered', 2]]],
      [
        'application/json',
        '{"partialSuccess":{"rejectedDataPoints":"1","errorMessage":"NaN value"}}',
        [
          ['delivered', 1],
          ['failed', 1],
        ],
      ],
      // Longer than the 64 KiB svc keeps of a protobuf answer: JSON cannot be read from its head, so it is read whole.
      [
        'application/json',
        JSON.stringify({ partialSuccess: { rejectedDataPoints: '1', errorMessage: 'bad point; '.repeat(10_000) } }),
        [
          ['delivered', 1],
          ['failed', 1],
        ],
      ],
    ];
    for (const [contentType, body, expected] of answers) {
      let posts = 0;
      const server = createServer((req, res) => {
        posts++;
        req.resume().on('end', () => res.writeHead(200, { 'Content-Type': contentType }).end(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const sink = otlpHttpSink({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        signal: 'metrics',
        retry: QUICK_RETRY,
      });
      const reports: SinkReport[] = [];
      sink.reports!.subscribe((r) => reports.push(r));
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1, 2] })));
      await sink.close().catch(() => undefined);
      await new Promise((resolve) => server.close(resolve));
      expect({
        body: body.slice(0, 100),
        posts,
        reports: reports.map((r) => [r.kind, (r as { size: number }).size]),
      }).to.deep.equal({
        body: body.slice(0, 100),
        posts: 1,
        reports: expected,
      });
    }
  });

  it('otlp_grpc: an OK answer whose bytes are no protobuf ExportResponse is a delivery, in one call', async () => {
    for (const answer of [Buffer.from('OK'), Buffer.from([0xff])]) {
      let calls = 0;
      const server = new grpc.Server();
      server.addService(rawExportService('metrics'), {
        Export: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => (calls++, callback(null, answer)),
      });
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        ),
      );
      const sink = otlpGrpcSink({ endpoint: `127.0.0.1:${port}`, signal: 'metrics', retry: QUICK_RETRY });
      const reports: SinkReport[] = [];
      sink.reports!.subscribe((r) => reports.push(r));
      sink.write(otlpMetrics({ name: 'up' }).encode(sampleBatch({ values: [1, 2] })));
      await sink.close().catch(() => undefined);
      server.forceShutdown();
      expect({ answer, calls, reports: reports.map((r) => [r.kind, (r as { size: number }).size]) }).to.deep.equal({
        answer,
        calls: 1,
        reports: [['delivered', 2]],
      });
    }
  });

  it("bin/svc runs examples/otlp.yaml: a Sum, a Histogram and LogRecords under the resource it names, which says svc wrote them as a span's does", async () => {
    const result = await svc(['run', 'examples/otlp.yaml', '--endpoint', receiver.grpcAddress, '--duration', '1s']);
    expect(result.code, result.stderr).to.equal(0);
    const kinds = metricsOf(receiver).map((m) => `${m.name} ${m.sum ? 'sum' : m.histogram ? 'histogram' : 'other'}`);
    expect(new Set(kinds)).to.deep.equal(
      new Set(['http_requests_total sum', 'http_request_duration_seconds histogram']),
    );
    expect(logsOf(receiver).length).to.be.greaterThan(0);
    for (const { request } of receiver.received) {
      const [resource] = request.resource_metrics ?? request.resource_logs;
      expect(resource.resource.attributes).to.deep.include(attribute('service.name', 'checkout'));
      expect(resource.resource.attributes).to.deep.include.members(SDK_ATTRIBUTES);
    }
  });

  /** A file of a traces entry into the receiver: one second of a root whose one call has `call`'s fields too. */
  const heavyTrace = (name: string, call: string) =>
    scenario(
      name,
      `version: 2
kind: runnable
scenarios:
  - name: big
    signal_type: traces
    rate: 1
    duration: 1s
    trace_generator:
      root:
        service: front
        operation: GET /
        kind: server
        duration: 0.01
        calls:
          - { operation: work, kind: internal, duration: 1ms, ${call} }
    sink: { type: otlp_grpc, endpoint: "${receiver.grpcAddress}", signal_type: traces }
`,
    );

  it("bin/svc: a trace whose spans of one service weigh 5.2 MiB arrives whole, in records the collector's 4 MiB takes", async () => {
    // Six spans of a 900 kB attribute: one ResourceSpans of 5.2 MiB, which no request could split, was refused whole;
    // a ResourceSpans now holds at most 1 MiB of spans (docs/traces.md).
    const file = heavyTrace('huge-trace.yaml', `repeat: 6, attributes: { huge: "${'x'.repeat(900_000)}" }`);
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(/STOPPED \| events: 7 \| bytes: 5\.\d MiB \|/);
    expect(result.stderr).to.not.match(/dropped/);
    expect(spansFromOtlp(receiver.requestsOf('traces'))).to.have.length(7);
  });

  it('bin/svc: a span that exceeds 4 MiB by itself fails alone, counted in dropped, saying so; the trace around it arrives', async () => {
    // Five attributes of 900 kB (an alias repeats it: the file stays below 1 MiB): one span of 4.3 MiB, a record
    // no request can split (the otlp encoder cuts a service's spans into records of 1 MiB, never a span).
    const file = heavyTrace(
      'huge-span.yaml',
      `attributes: { a: &huge "${'x'.repeat(900_000)}", b: *huge, c: *huge, d: *huge, e: *huge }`,
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(
      /STOPPED \(sink: otlp_grpc sink: .* answered RESOURCE_EXHAUSTED: "Received message larger than max \(\d+ vs\.? 4194304\)"; the request holds a single record of 4\.3 MiB \(one span, with its attributes\), which svc cannot split, .*\) \| events: 2 \| .* \| dropped: 1$/m,
    );
    const received = receiver.received.flatMap((r) =>
      r.request.resource_spans.flatMap((rs: ExportRequest) => rs.scope_spans.flatMap((ss: ExportRequest) => ss.spans)),
    );
    expect(received.map((span: ExportRequest) => span.name)).to.deep.equal(['GET /']);
  });

  it("bin/svc: INVALID_ARGUMENT under on_sink_error fail exits 1 with the collector's words", async () => {
    receiver.answer(() => ({ grpc: grpc.status.INVALID_ARGUMENT, details: 'bad data' }));
    const file = scenario(
      'invalid.yaml',
      upScenario(`{ type: otlp_grpc, endpoint: "${receiver.grpcAddress}" }`, [
        'rate: 10',
        'duration: 200ms',
        'on_sink_error: fail',
      ]),
    );
    const result = await svc(['run', file]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(
      'answered INVALID_ARGUMENT: "bad data"; the collector refused the data as invalid',
    );
  });

  it('bin/svc: SIGTERM mid-run, every data point counted as written has arrived', async () => {
    const file = foreverScenario(
      scenario,
      `{ type: otlp_grpc, endpoint: "${receiver.grpcAddress}", batch_size: 100, max_buffer_age: 100ms }`,
      { pods: 3 },
    );
    const { code, stderr } = await runUntilTerm(file, () => receiver.received.length >= 3);
    expect(code, stderr).to.equal(0);
    // A step generator is a counter: a Sum.
    const values = metricsOf(receiver).map((m) => m.sum.data_points[0].as_double);
    expect(values).to.have.length(stoppedEvents(stderr));
    expect(values).to.deep.equal(values.map((_: number, i: number) => i));
  });
});
