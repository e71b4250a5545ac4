import { expect } from 'chai';
import type { Entry } from '../../lib/config/types.js';
import { otlpMetrics } from '../../lib/encoders/otlp.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { VERSION } from '../../lib/version.js';
import { createSink } from '../../lib/sinks/index.js';
import { exemplarRows, type Exemplar } from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import { seriesOf } from '../../operators/model/series.js';
import { startOtlpReceiver, type ExportRequest, type OtlpReceiver } from '../support/backends/otlp-receiver.js';
import { sampleBatch } from '../support/batches.js';
import { metricEntry } from '../support/entries.js';
import { scenarioDir, svc } from '../support/cli.js';

const T0 = Date.UTC(2026, 0, 1);
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** Every metric of every accepted request, in order. */
const metricsOf = (receiver: OtlpReceiver): ExportRequest[] =>
  receiver
    .requestsOf('metrics')
    .flatMap((request) =>
      request.resource_metrics.flatMap((rm: ExportRequest) =>
        rm.scope_metrics.flatMap((sm: ExportRequest) => sm.metrics),
      ),
    );

/**
 * The OTLP metrics of issue 26 as a collector reads them: through the otlp sinks to the receiver, which decodes
 * with the official opentelemetry-proto files (0.38: without ExponentialHistogramDataPoint.zero_threshold, which
 * spec/encoders/otlp-metrics.spec.ts checks with the current protos).
 */
describe('OTLP metrics at a collector: delta, exponential histograms, exemplars', function () {
  this.timeout(20_000);
  let receiver: OtlpReceiver;
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => receiver.stop());

  for (const via of ['grpc', 'http'] as const) {
    const sink = (r: OtlpReceiver) =>
      via === 'grpc'
        ? { type: 'otlp_grpc' as const, endpoint: r.grpcAddress, max_buffer_age: 100 }
        : { type: 'otlp_http' as const, url: r.httpUrl, max_buffer_age: 100 };

    it(`otlp_${via}: a step counter with temporality delta arrives as delta Sums, each the step, started where the last ended`, async () => {
      const entry: Entry = metricEntry({
        name: 'jobs_total',
        rate: 20,
        duration: 200,
        metric_type: 'counter',
        start_time: { kind: 'absolute', epochMs: T0 },
        generator: { type: 'step', start: 10, step_size: 3 },
        labels: { job: 'a' },
        encoder: { type: 'otlp', temporality: 'delta' },
        sink: sink(receiver),
      });
      expect(await runEntry(entry).done).to.deep.equal({});
      const sums = metricsOf(receiver).map((m) => m.sum);
      expect(sums.map((s) => [s.aggregation_temporality, s.is_monotonic])).to.deep.equal(
        Array(4).fill(['AGGREGATION_TEMPORALITY_DELTA', true]),
      );
      // The first point carries the whole value since the entry start, the others a step each.
      expect(
        sums.map((s) => s.data_points[0]).map((p) => [p.start_time_unix_nano, p.time_unix_nano, p.as_double]),
      ).to.deep.equal([
        [nanos(T0), nanos(T0), 10],
        [nanos(T0), nanos(T0 + 50), 3],
        [nanos(T0 + 50), nanos(T0 + 100), 3],
        [nanos(T0 + 100), nanos(T0 + 150), 3],
      ]);
    });

    it(`otlp_${via}: a native histogram arrives as an ExponentialHistogram with its exemplars`, async () => {
      // (base^(i-1), base^i] at schema 0: 0.3 in bucket -1, 0.6 in 0, 3 in 2, -0.7 in 0; 1e-5 within the zero threshold.
      const native: NativeHistogram = {
        schema: 0,
        zeroThreshold: 1e-4,
        zeroCount: 1,
        count: 5,
        sum: 0.3 + 0.6 + 3 - 0.7 + 1e-5,
        positiveSpans: [
          { offset: -1, length: 2 },
          { offset: 1, length: 1 },
        ],
        positiveCounts: [1, 1, 1],
        negativeSpans: [{ offset: 0, length: 1 }],
        negativeCounts: [1],
      };
      const exemplar: Exemplar = {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        value: 3,
        timestamp: T0 + 250,
      };
      const batch = {
        ...sampleBatch({ anchor: T0, offsets: [500], values: [5], series: seriesOf({ svc: 'api' }) }),
        events: 1,
        native: [native],
        exemplars: exemplarRows([exemplar]),
      };
      const out = createSink({ ...sink(receiver), signal_type: 'metrics' } as never);
      out.write(otlpMetrics({ name: 'rpc_seconds', metricType: 'histogram', temporality: 'delta' }).encode(batch));
      await out.close();
      const [metric] = metricsOf(receiver);
      expect(metric.exponential_histogram.aggregation_temporality).to.equal('AGGREGATION_TEMPORALITY_DELTA');
      expect(metric.exponential_histogram.data_points).to.deep.equal([
        {
          attributes: [{ key: 'svc', value: { string_value: 'api' } }],
          start_time_unix_nano: nanos(T0),
          time_unix_nano: nanos(T0 + 500),
          count: '5',
          sum: native.sum,
          scale: 0,
          zero_count: '1',
          // OTLP's bucket j is Prometheus' j + 1: buckets -1, 0 (gap) 2 are OTLP's -2, -1, 0, 1.
          positive: { offset: -2, bucket_counts: ['1', '1', '0', '1'] },
          negative: { offset: -1, bucket_counts: ['1'] },
          flags: 0,
          exemplars: [
            {
              filtered_attributes: [],
              time_unix_nano: nanos(T0 + 250),
              as_double: 3,
              trace_id: exemplar.traceId,
              span_id: exemplar.spanId,
            },
          ],
        },
      ]);
    });

    it(`otlp_${via}: span metrics go under their service's resource, one ResourceMetrics per service, as the connector writes them`, async () => {
      const { scenario } = scenarioDir('svc-otlp-span-metrics-');
      const target = JSON.stringify({ ...sink(receiver), max_buffer_age: '100ms' });
      const file = scenario(
        'checkout.yaml',
        `version: 2
kind: runnable
scenarios:
  - signal_type: traces
    name: checkout
    rate: 5
    duration: 3s
    start_time: "2026-01-01T00:00:00Z"
    sink: ${target}
    span_metrics: {interval: 1s}
    trace_generator:
      services: {frontend: {version: "1.2"}, payment: {pods: {count: 2}}}
      root:
        service: frontend
        operation: GET /checkout
        kind: server
        calls: [{service: payment, operation: POST /pay, kind: client, duration: 0.01}]
`,
      );
      const result = await svc(['run', file, '--backfill']);
      expect(result.code, result.stderr).to.equal(0);
      const serviceOf = (attributes: ExportRequest[]) =>
        attributes.find((a: ExportRequest) => a.key === 'service.name')?.value.string_value;
      const requests = receiver.requestsOf('metrics');
      const resources = requests.flatMap((request) =>
        request.resource_metrics.map((rm: ExportRequest) => ({
          resource: Object.fromEntries(rm.resource.attributes.map((a: ExportRequest) => [a.key, a.value.string_value])),
          // The services its points count.
          services: [
            ...new Set(
              rm.scope_metrics.flatMap((sm: ExportRequest) =>
                sm.metrics.flatMap((m: ExportRequest) =>
                  (m.sum ?? m.histogram).data_points.map((p: ExportRequest) => serviceOf(p.attributes)),
                ),
              ),
            ),
          ],
        })),
      );
      const sdk = { 'telemetry.sdk.name': 'svc', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.version': VERSION };
      const instance = { 'service.instance.id': '85f0c8d7-5045-57e2-85b6-85b0cfb9087f' };
      const frontend = {
        resource: { 'service.name': 'frontend', 'service.version': '1.2', ...instance, ...sdk },
        services: ['frontend'],
      };
      // Every pod of payment counted together: its resource without k8s.pod.name nor a pod's service.instance.id.
      const payment = { resource: { 'service.name': 'payment', ...sdk }, services: ['payment'] };
      for (const one of resources) expect([frontend, payment]).to.deep.include(one);
      expect(resources).to.deep.include(frontend).and.to.deep.include(payment);
      // One ResourceMetrics per service in a request.
      for (const request of requests) {
        const services = request.resource_metrics.map((rm: ExportRequest) => serviceOf(rm.resource.attributes));
        expect(new Set(services).size).to.equal(services.length);
      }
    });
  }
});
