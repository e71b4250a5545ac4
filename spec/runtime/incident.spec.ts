import { expect } from 'chai';
import { startOtlpReceiver, type ExportRequest, type OtlpReceiver } from '../support/backends/otlp-receiver.js';
import { svc } from '../support/cli.js';
import { spansFromOtlp, type TraceSpan } from '../support/traces.js';
import { VERSION } from '../../lib/version.js';

const MINUTE_NS = 60_000_000_000n;

/** Every metric and every log record of the requests of a signal. */
const metricsOf = (requests: readonly ExportRequest[]): ExportRequest[] =>
  requests.flatMap((r) =>
    r.resource_metrics.flatMap((rm: ExportRequest) => rm.scope_metrics.flatMap((sm: ExportRequest) => sm.metrics)),
  );
const logsOf = (requests: readonly ExportRequest[]): ExportRequest[] =>
  requests.flatMap((r) =>
    r.resource_logs.flatMap((rl: ExportRequest) => rl.scope_logs.flatMap((sl: ExportRequest) => sl.log_records)),
  );
const attribute = (point: ExportRequest, key: string): string | undefined =>
  point.attributes.find((a: ExportRequest) => a.key === key)?.value.string_value;

describe('examples/incident.yaml: one incident told by traces, span metrics and logs', function () {
  this.timeout(120_000);
  let otlp: OtlpReceiver;
  let spans: TraceSpan[];
  let start: bigint;
  before(async () => {
    otlp = await startOtlpReceiver();
    const result = await svc(['run', 'examples/incident.yaml', '--endpoint', otlp.grpcAddress, '--backfill']);
    expect(result.code, result.stderr).to.equal(0);
    spans = spansFromOtlp(otlp.requestsOf('traces'));
    const starts = spans.filter((span) => !span.parentSpanId).map((span) => span.start);
    start = starts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;
  });
  after(async () => otlp?.stop());

  const payment = () => spans.filter((span) => span.service === 'payment' && span.kind === 'server');
  const during = (span: TraceSpan) => span.start - start >= 5n * MINUTE_NS && span.start - start < 10n * MINUTE_NS;

  it('traces: payment is slow and fails from minute 5 to minute 10 only', () => {
    const inside = payment().filter(during);
    const outside = payment().filter((span) => !during(span));
    expect(inside).to.have.length(3000);
    expect(outside).to.have.length(6000);
    const seconds = (span: TraceSpan) => Number(span.end - span.start) / 1e9;
    expect(Math.min(...inside.map(seconds))).to.be.at.least(1);
    expect(Math.max(...outside.map(seconds))).to.be.below(0.2);
    const failing = (list: TraceSpan[]) => list.filter((span) => span.status === 'error').length / list.length;
    expect(failing(inside)).to.be.within(0.25, 0.35);
    expect(failing(outside)).to.be.below(0.02);
  });

  it('span metrics: the calls of payment count its spans, its errors among them, as the traces have them', () => {
    const calls = metricsOf(otlp.requestsOf('metrics')).filter((m) => m.name === 'traces.span.metrics.calls');
    expect(calls.length).to.be.greaterThan(0);
    const last = (status: string) => {
      const points = calls
        .flatMap((m: ExportRequest) => m.sum.data_points)
        .filter(
          (p: ExportRequest) =>
            attribute(p, 'service.name') === 'payment' &&
            attribute(p, 'span.kind') === 'SPAN_KIND_SERVER' &&
            attribute(p, 'status.code') === status,
        );
      return points.reduce((a: ExportRequest, b: ExportRequest) =>
        BigInt(b.time_unix_nano) > BigInt(a.time_unix_nano) ? b : a,
      );
    };
    const errors = last('STATUS_CODE_ERROR');
    const written = BigInt(errors.time_unix_nano);
    // The spans ended by the last write, as the connector sees them.
    const counted = payment().filter((span) => span.end <= written);
    // Whole counts, as the connector writes them: integer points (a point's value is as_double or as_int).
    expect(errors.as_double).to.equal(undefined);
    expect(Number(errors.as_int)).to.be.greaterThan(0);
    expect(Number(errors.as_int)).to.equal(counted.filter((span) => span.status === 'error').length);
    expect(Number(last('STATUS_CODE_UNSET').as_int)).to.equal(counted.filter((span) => span.status !== 'error').length);
  });

  it('span metrics: the exemplars of the duration histograms name spans of their series, a bucket one at most, slow ones in the incident', () => {
    const durations = metricsOf(otlp.requestsOf('metrics')).filter((m) => m.name === 'traces.span.metrics.duration');
    // In the connector's unit, from which a Prometheus exporter names traces_span_metrics_duration_milliseconds.
    expect(new Set(durations.map((m: ExportRequest) => m.unit))).to.deep.equal(new Set(['ms']));
    const byId = new Map(spans.map((span) => [`${span.traceId}/${span.spanId}`, span]));
    let slow = 0;
    let named = 0;
    for (const point of durations.flatMap((m: ExportRequest) => m.histogram.data_points)) {
      const bounds: number[] = point.explicit_bounds;
      // At most one exemplar a bucket: the last span each bucket counted since the previous write.
      const buckets = point.exemplars.map((e: ExportRequest) => bounds.filter((bound) => e.as_double > bound).length);
      expect(new Set(buckets).size).to.equal(buckets.length);
      for (const exemplar of point.exemplars) {
        const span = byId.get(`${exemplar.trace_id}/${exemplar.span_id}`);
        expect(span, 'a span of the traces').to.not.equal(undefined);
        named++;
        const ms = Number(span!.end - span!.start) / 1e6;
        expect(exemplar.as_double).to.be.closeTo(ms, 1e-6);
        // Counted once it ended.
        expect(BigInt(exemplar.time_unix_nano) >= span!.end, 'written after its span ended').to.equal(true);
        expect(attribute(point, 'service.name')).to.equal(span!.service);
        expect(attribute(point, 'span.name')).to.equal(span!.name);
        if (span!.service === 'payment' && ms >= 1000) {
          slow++;
          expect(during(span!)).to.equal(true);
        }
      }
    }
    expect(named).to.be.greaterThan(100);
    expect(slow).to.be.greaterThan(10);
  });

  it('logs: every error of payment names a payment span failing at its time, inside the incident', () => {
    // Under payment's resource, as its spans.
    const resources = otlp
      .requestsOf('logs')
      .flatMap((r) => r.resource_logs.map((rl: ExportRequest) => rl.resource.attributes));
    for (const resource of resources)
      expect(resource.map((a: ExportRequest) => [a.key, a.value.string_value])).to.deep.equal([
        ['deployment.environment.name', 'prod'],
        ['service.name', 'payment'],
        ['service.version', '3.0.2'],
        ['telemetry.sdk.language', 'nodejs'],
        ['telemetry.sdk.name', 'svc'],
        ['telemetry.sdk.version', VERSION],
      ]);
    const records = logsOf(otlp.requestsOf('logs'));
    expect(records).to.have.length(600);
    const byId = new Map(spans.map((span) => [`${span.traceId}/${span.spanId}`, span]));
    const failures = spans.filter((span) => span.service === 'payment' && span.status === 'error');
    const runs = (span: TraceSpan, time: bigint) => span.start <= time && time <= span.end;
    let before = 0;
    for (const record of records) {
      const span = byId.get(`${record.trace_id}/${record.span_id}`);
      expect(span, `span ${record.trace_id}/${record.span_id}`).to.not.equal(undefined);
      expect(span!.service).to.equal('payment');
      expect(span!.status).to.equal('error');
      // Written while its span ran, so a trace-to-logs search over the span's time finds it; only while no failure
      // runs (in the incident's first moments), the last failure before it.
      const time = BigInt(record.time_unix_nano);
      if (runs(span!, time)) expect(during(span!)).to.equal(true);
      else {
        expect(failures.some((other) => runs(other, time))).to.equal(false);
        expect(span!.end < time).to.equal(true);
        before++;
      }
    }
    expect(before).to.be.below(10);
  });
});
