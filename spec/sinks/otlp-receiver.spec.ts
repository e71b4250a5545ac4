import { expect } from 'chai';
import { DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, diag, trace } from '@opentelemetry/api';
import * as grpc from '@grpc/grpc-js';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as GrpcMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { startOtlpReceiver, type ExportRequest, type OtlpReceiver } from '../support/backends/otlp-receiver.js';
import { spansFromOtlp, traceProblems, type TraceSpan } from '../support/traces.js';

/** The receiver the OTLP specs use, checked with the official OpenTelemetry JS exporters as independent clients. */
describe('the OTLP test receiver reads what the official OpenTelemetry exporters send', function () {
  this.timeout(20_000);
  let receiver: OtlpReceiver;
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => receiver.stop());

  const resource = resourceFromAttributes({ 'service.name': 'proof' });

  async function sendMetrics(exporter: PushMetricExporter): Promise<void> {
    const provider = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 })],
    });
    const meter = provider.getMeter('proof-meter');
    meter.createCounter('proof_jobs_total').add(3, { pod: 'a' });
    meter
      .createHistogram('proof_latency_seconds', { advice: { explicitBucketBoundaries: [0.1, 1] } })
      .record(0.5, { pod: 'a' });
    await provider.forceFlush();
    await provider.shutdown();
  }

  async function sendLogs(exporter: LogRecordExporter): Promise<void> {
    const provider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor(exporter)] });
    provider
      .getLogger('proof-logger')
      .emit({ severityNumber: 13, severityText: 'WARN', body: 'disk almost full', attributes: { disk: 'sda' } });
    await provider.forceFlush();
    await provider.shutdown();
  }

  function metricsOf(request: ExportRequest) {
    const [resourceMetrics] = request.resource_metrics;
    return {
      resource: resourceMetrics.resource.attributes,
      metrics: resourceMetrics.scope_metrics.flatMap((s: ExportRequest) => s.metrics),
    };
  }

  for (const [via, exporter] of [
    ['grpc', () => new GrpcMetricExporter({ url: `http://${receiver.grpcAddress}` })],
    ['http', () => new ProtoMetricExporter({ url: `${receiver.httpUrl}/v1/metrics` })],
  ] as const) {
    it(`metrics over ${via}: resource, names, a monotonic cumulative Sum and a Histogram with their values`, async () => {
      await sendMetrics(exporter());
      // The provider exports on forceFlush and again on shutdown.
      expect(new Set(receiver.received.map((r) => `${r.signal} ${r.via}`))).to.deep.equal(new Set([`metrics ${via}`]));
      const { resource: attributes, metrics } = metricsOf(receiver.received[0]!.request);
      expect(attributes).to.deep.include({ key: 'service.name', value: { string_value: 'proof' } });
      const counter = metrics.find((m: ExportRequest) => m.name === 'proof_jobs_total');
      expect(counter.sum).to.include({
        is_monotonic: true,
        aggregation_temporality: 'AGGREGATION_TEMPORALITY_CUMULATIVE',
      });
      expect(counter.sum.data_points[0]).to.deep.include({
        as_double: 3,
        attributes: [{ key: 'pod', value: { string_value: 'a' } }],
      });
      const histogram = metrics.find((m: ExportRequest) => m.name === 'proof_latency_seconds').histogram.data_points[0];
      expect(histogram).to.deep.include({
        count: '1',
        sum: 0.5,
        explicit_bounds: [0.1, 1],
        bucket_counts: ['0', '1', '0'],
      });
    });
  }

  for (const [via, exporter] of [
    ['grpc', () => new GrpcLogExporter({ url: `http://${receiver.grpcAddress}` })],
    ['http', () => new ProtoLogExporter({ url: `${receiver.httpUrl}/v1/logs` })],
  ] as const) {
    it(`logs over ${via}: severity, body and attributes`, async () => {
      await sendLogs(exporter());
      expect(new Set(receiver.received.map((r) => `${r.signal} ${r.via}`))).to.deep.equal(new Set([`logs ${via}`]));
      const record = receiver.received[0]!.request.resource_logs[0].scope_logs[0].log_records[0];
      expect(record).to.deep.include({
        severity_number: 'SEVERITY_NUMBER_WARN',
        severity_text: 'WARN',
        body: { string_value: 'disk almost full' },
      });
      expect(record.attributes).to.deep.equal([{ key: 'disk', value: { string_value: 'sda' } }]);
    });
  }

  /** Epoch second of the proof trace: span times are given to the SDK as [seconds, nanoseconds]. */
  const T0 = 1_700_000_000;
  const at = (nanos: number): [number, number] => [T0, nanos];
  const nanosAt = (nanos: number) => BigInt(T0) * 1_000_000_000n + BigInt(nanos);
  const declined = new Error('card declined');
  /** A span of another trace (a batch job, say) that the root links to. */
  const linked = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  };

  /**
   * What instrumented services record for one request: frontend's server span, its client call to
   * cart and cart's server span under it, which fails with an exception event. Each service has
   * its own SDK TracerProvider (its own resource) exporting through its own exporter, as in
   * production; the spans the SDK gave ids to are returned as the receiver should decode them. A
   * failed export rejects with the exporter's error.
   */
  async function sendTrace(exporter: () => SpanExporter): Promise<TraceSpan[]> {
    const providers = ['frontend', 'cart'].map(
      (service) =>
        new BasicTracerProvider({
          resource: resourceFromAttributes({ 'service.name': service }),
          spanProcessors: [new BatchSpanProcessor(exporter())],
        }),
    );
    const [frontend, cart] = providers.map((provider) => provider.getTracer('proof-tracer'));
    const root = frontend!.startSpan('GET /checkout', {
      kind: SpanKind.SERVER,
      startTime: at(0),
      attributes: { 'http.request.method': 'GET', 'http.route': '/checkout' },
      links: [{ context: linked, attributes: { 'link.reason': 'batch' } }],
    });
    const call = frontend!.startSpan(
      'POST /charge',
      {
        kind: SpanKind.CLIENT,
        startTime: at(100_000_000),
        attributes: { 'http.request.method': 'POST', 'server.address': 'cart', 'app.cart.total': 42.5 },
      },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    // cart continues the trace from the context propagated in the request's headers.
    const served = cart!.startSpan(
      'POST /charge',
      {
        kind: SpanKind.SERVER,
        startTime: at(200_000_000),
        attributes: { 'http.route': '/charge', 'app.retry': false },
      },
      trace.setSpanContext(ROOT_CONTEXT, call.spanContext()),
    );
    served.recordException(declined, at(600_000_000));
    served.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined' });
    served.setAttribute('http.response.status_code', 500);
    served.end(at(700_000_000));
    call.setAttribute('http.response.status_code', 500);
    call.end(at(800_000_000));
    root.end(at(900_000_000));
    // Both providers flush before a failed export of either is thrown.
    const failed = (await Promise.allSettled(providers.map((provider) => provider.shutdown()))).find(
      (shutdown) => shutdown.status === 'rejected',
    );
    if (failed) throw failed.reason;

    const { traceId } = root.spanContext();
    const common = { traceId, status: 'unset' as const, events: [], links: [] };
    return [
      {
        ...common,
        spanId: root.spanContext().spanId,
        service: 'frontend',
        name: 'GET /checkout',
        kind: 'server',
        start: nanosAt(0),
        end: nanosAt(900_000_000),
        attributes: { 'http.request.method': 'GET', 'http.route': '/checkout' },
        links: [{ traceId: linked.traceId, spanId: linked.spanId, attributes: { 'link.reason': 'batch' } }],
      },
      {
        ...common,
        spanId: call.spanContext().spanId,
        parentSpanId: root.spanContext().spanId,
        service: 'frontend',
        name: 'POST /charge',
        kind: 'client',
        start: nanosAt(100_000_000),
        end: nanosAt(800_000_000),
        attributes: {
          'http.request.method': 'POST',
          'server.address': 'cart',
          'app.cart.total': 42.5,
          'http.response.status_code': 500,
        },
      },
      {
        ...common,
        spanId: served.spanContext().spanId,
        parentSpanId: call.spanContext().spanId,
        service: 'cart',
        name: 'POST /charge',
        kind: 'server',
        start: nanosAt(200_000_000),
        end: nanosAt(700_000_000),
        status: 'error',
        attributes: { 'http.route': '/charge', 'app.retry': false, 'http.response.status_code': 500 },
        events: [
          {
            name: 'exception',
            time: nanosAt(600_000_000),
            attributes: {
              'exception.type': 'Error',
              'exception.message': 'card declined',
              'exception.stacktrace': declined.stack!,
            },
          },
        ],
      },
    ];
  }

  // The exporters' CompressionAlgorithm.GZIP, whose enum is not exported by the exporter packages.
  const GZIP = 'gzip' as NonNullable<ConstructorParameters<typeof JsonTraceExporter>[0]>['compression'];

  /** The SDK's diagnostics (where an exporter reports a partial success), while a spec runs. */
  function diagnostics(): string[] {
    const lines: string[] = [];
    const log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
    diag.setLogger({ error: log, warn: log, info: log, debug: log, verbose: log }, DiagLogLevel.WARN);
    return lines;
  }
  afterEach(() => diag.disable());

  for (const [via, encoding, compression, exporter] of [
    ['grpc', 'protobuf', 'none', () => new GrpcTraceExporter({ url: `http://${receiver.grpcAddress}` })],
    ['http', 'protobuf', 'none', () => new ProtoTraceExporter({ url: `${receiver.httpUrl}/v1/traces` })],
    ['http', 'json', 'none', () => new JsonTraceExporter({ url: `${receiver.httpUrl}/v1/traces` })],
    ['http', 'json', 'gzip', () => new JsonTraceExporter({ url: `${receiver.httpUrl}/v1/traces`, compression: GZIP })],
  ] as const) {
    describe(`traces over ${via} as ${encoding}${compression === 'gzip' ? ', gzip' : ''}`, () => {
      it('one request per service, each with its service.name and exactly the spans it recorded, ids, times, kinds, status, events and links included', async () => {
        const expected = await sendTrace(exporter);
        expect(receiver.received.map((r) => `${r.signal} ${r.via} ${r.encoding}`)).to.deep.equal([
          `traces ${via} ${encoding}`,
          `traces ${via} ${encoding}`,
        ]);
        expect(receiver.received.map((r) => r.headers['content-encoding'] ?? 'none')).to.deep.equal([
          compression,
          compression,
        ]);
        const byService = Object.fromEntries(
          receiver.requestsOf('traces').map((request) => {
            const [resourceSpans] = request.resource_spans;
            const [service] = resourceSpans.resource.attributes;
            expect(service.key).to.equal('service.name');
            return [service.value.string_value, resourceSpans.scope_spans[0]];
          }),
        );
        expect(Object.keys(byService).sort()).to.deep.equal(['cart', 'frontend']);
        expect(byService.cart.scope.name).to.equal('proof-tracer');
        // The wire form, read before any conversion: hex ids, enum names, the status message.
        const [served] = byService.cart.spans;
        expect(served).to.deep.include({
          trace_id: expected[2]!.traceId,
          span_id: expected[2]!.spanId,
          parent_span_id: expected[1]!.spanId,
          kind: 'SPAN_KIND_SERVER',
          start_time_unix_nano: String(expected[2]!.start),
          status: { code: 'STATUS_CODE_ERROR', message: 'card declined' },
        });
        const spans = spansFromOtlp(receiver.requestsOf('traces')).sort((a, b) => Number(a.start - b.start));
        expect(spans).to.deep.equal(expected);
        expect(traceProblems(spans)).to.deep.equal([]);
      });

      it('a partial success reaches the exporter with the number of spans refused and the reason', async () => {
        const lines = diagnostics();
        receiver.answer(() => ({ accept: true, rejected: 1, message: 'span name too long' }));
        await sendTrace(exporter);
        expect(receiver.received).to.have.length(2);
        const partial = lines.filter((line) => line.startsWith('Received Partial Success response:'));
        expect(partial).to.have.length(2);
        for (const line of partial) {
          const answer = JSON.parse(line.slice('Received Partial Success response:'.length));
          expect(Number(answer.rejectedSpans)).to.equal(1);
          expect(answer.errorMessage).to.equal('span name too long');
        }
      });

      it('a refusal fails the export with the status the receiver answered', async () => {
        receiver.answer(() => ({ grpc: grpc.status.INVALID_ARGUMENT, details: 'malformed span', http: 400 }));
        const error = await sendTrace(exporter).then(
          () => expect.fail('the export succeeded'),
          (reason: unknown) => reason,
        );
        // Over HTTP the exporter keeps the body as it came: a google.rpc.Status holding the message.
        if (via === 'grpc') expect(error).to.include({ code: grpc.status.INVALID_ARGUMENT, details: 'malformed span' });
        else expect(error).to.include({ code: 400 }).and.to.have.property('data').that.includes('malformed span');
        expect(receiver.received).to.have.length(0);
        expect(receiver.calls).to.equal(2);
      });
    });
  }

  const TRACE_ID = '5b8efff798038103d269b633813fc60c';
  /** POSTs OTLP/JSON spans to /v1/traces; the answer as "<status> <body>". */
  const postSpans = (...spans: Record<string, unknown>[]) =>
    fetch(`${receiver.httpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'json' } }] },
            scope_spans: [{ spans }],
          },
        ],
      }),
    }).then(async (response) => `${response.status} ${await response.text()}`);

  it('OTLP/JSON: camelCase or proto field names alike; an id that is not hex, or not its full length, is refused with 400 naming the field', async () => {
    const attributes = [
      { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '7' }] } } },
      { key: 'owner', value: { kvlistValue: { values: [{ key: 'team', value: { stringValue: 'payments' } }] } } },
      { key: 'blob', value: { bytesValue: 'AQID' } },
    ];
    expect(
      await postSpans({ traceId: TRACE_ID, spanId: 'eee19b7ec3c1b174', name: 'ok', kind: 2, attributes }),
    ).to.match(/^200 /);
    expect(await postSpans({ trace_id: TRACE_ID, span_id: 'eee19b7ec3c1b174', name: 'ok', kind: 2 })).to.match(/^200 /);
    expect(await postSpans({ traceId: TRACE_ID, spanId: 'not-hex-at-all!!' })).to.equal(
      '400 spanId: "not-hex-at-all!!" is not hex',
    );
    expect(await postSpans({ traceId: TRACE_ID.slice(2), spanId: 'eee19b7ec3c1b174' })).to.equal(
      '400 trace_id: 15 bytes where an id has 16',
    );
    const spans = receiver.requestsOf('traces').map((request) => request.resource_spans[0].scope_spans[0].spans[0]);
    expect(spans.map((span) => [span.trace_id, span.span_id, span.kind])).to.deep.equal([
      [TRACE_ID, 'eee19b7ec3c1b174', 'SPAN_KIND_SERVER'],
      [TRACE_ID, 'eee19b7ec3c1b174', 'SPAN_KIND_SERVER'],
    ]);
    // Bytes other than ids stay base64, as OTLP/JSON writes them.
    expect(spansFromOtlp(receiver.requestsOf('traces'))[0]!.attributes).to.deep.equal({
      tags: ['a', 7],
      owner: { team: 'payments' },
      blob: 'AQID',
    });
  });

  it('arrived(signal, n) resolves once n records of that signal have come, counting across requests', async () => {
    const settled: string[] = [];
    const threeSpans = receiver.arrived('traces', 3).then(() => settled.push('3 spans'));
    receiver.arrived('logs', 1).then(() => settled.push('a log record'));
    const span = (n: number) => ({ traceId: TRACE_ID, spanId: `eee19b7ec3c1b17${n}`, name: `span ${n}` });
    await postSpans(span(1), span(2));
    expect(settled).to.deep.equal([]);
    await postSpans(span(3));
    await threeSpans;
    expect(settled).to.deep.equal(['3 spans']);
  });
});
