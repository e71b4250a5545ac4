import { expect } from 'chai';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as GrpcMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { startOtlpReceiver, type ExportRequest, type OtlpReceiver } from '../support/backends/otlp-receiver.js';

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
});
