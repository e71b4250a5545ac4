import { expect } from 'chai';
import { loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { sampleScenario } from '../../lib/alert-test/sampling.js';

const plan = (yaml: string) =>
  compileScenario(loadScenario(yaml, { origin: 'test.yaml', format: 'yaml' }), { origin: 'test.yaml' }).scenarios;

describe('sampleScenario: a scenario on the rule evaluation grid', () => {
  it('holds at step k the last sample of ((k-1)I, kI], empty where a gap left none', async () => {
    const sampling = await sampleScenario(
      plan(`
version: 2
kind: runnable
scenarios:
  - name: m
    signal_type: metrics
    rate: 1
    duration: 60s
    labels: {job: a}
    generator: {type: step, step_size: 1}
    gaps: {every: 40s, for: 20s}
`),
      10_000,
    );
    expect(sampling.steps).to.equal(7);
    expect(sampling.series.map(({ series }) => series)).to.deep.equal(['m{job="a"}']);
    // Values 0, 1, 2, … at seconds 0, 1, 2, …; silent in [20s, 40s).
    expect([...sampling.series[0]!.values]).to.deep.equal([0, 10, 19, NaN, 40, 50, 59]);
  });

  it('places an entry on the file timeline from its phase offset, and names histogram rows by suffix and le', async () => {
    const sampling = await sampleScenario(
      plan(`
version: 2
kind: runnable
scenarios:
  - name: lat
    signal_type: histogram
    rate: 1
    duration: 30s
    phase_offset: 30s
    buckets: [1]
    observations_per_tick: 1
    distribution: {type: uniform, min: 0, max: 0.5}
`),
      15_000,
    );
    expect(sampling.steps).to.equal(5);
    const count = sampling.series.find(({ series }) => series === 'lat_count')!;
    expect([...count.values]).to.deep.equal([NaN, NaN, 1, 16, 30]);
    expect(sampling.series.map(({ series }) => series)).to.include.members([
      'lat_bucket{le="1"}',
      'lat_bucket{le="+Inf"}',
      'lat_sum',
    ]);
  });

  it('names span metrics sent over OTLP as Prometheus reads them, so that promtool takes them and rules find them', async () => {
    // In OTLP's words (traces.span.metrics.calls{service.name=…}) promtool refused the unit test of
    // examples/incident.yaml: "parse error: unexpected character in series sequence: '.'".
    const sampling = await sampleScenario(
      plan(`
version: 2
kind: runnable
scenarios:
  - name: checkout
    signal_type: traces
    rate: 2
    duration: 30s
    sink: {type: otlp_grpc, endpoint: 127.0.0.1:4317}
    span_metrics: {interval: 15s}
    trace_generator:
      root: {service: shop, operation: GET /, kind: server, duration: 0.01}
`),
      15_000,
    );
    const labels =
      '{service_name="shop",span_kind="SPAN_KIND_SERVER",span_name="GET /",status_code="STATUS_CODE_UNSET"}';
    const calls = sampling.series.find(({ series }) => series === `traces_span_metrics_calls_total${labels}`);
    expect(calls, sampling.series.map(({ series }) => series).join('\n')).to.not.equal(undefined);
    expect([...calls!.values]).to.deep.equal([NaN, 30, 60]);
    expect(sampling.series.map(({ series }) => series)).to.include(
      `traces_span_metrics_duration_milliseconds_bucket{le="10",${labels.slice(1)}`,
    );
  });

  it('refuses too many values (series × steps) as soon as the series have appeared, without sampling the rest', async function () {
    // 10,000 series × 601 steps: over the limit after the first virtual second, where the whole 150 minutes
    // (90 million samples) would take minutes.
    this.timeout(10_000);
    const failure = await sampleScenario(
      plan(`
version: 2
kind: runnable
scenarios:
  - name: up
    signal_type: metrics
    rate: 10000
    duration: 150m
    dynamic_labels: [{key: instance, cardinality: 10000}]
    generator: {type: constant, value: 1}
`),
      15_000,
    ).catch((error: Error) => error);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/at most 5000000 values \(series × steps\) are sampled/);
  });
});
