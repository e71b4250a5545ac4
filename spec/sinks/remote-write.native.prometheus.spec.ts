import { expect } from 'chai';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { createSink } from '../../lib/sinks/index.js';
import { distributionSampler } from '../../lib/generators/distribution.js';
import { seriesOf } from '../../operators/model/series.js';
import { exemplarRows, type Exemplar } from '../../operators/model/batch.js';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { waitFor } from '../support/backends/ports.js';
import { sampleBatch } from '../support/batches.js';
import { scenarioDir, svc } from '../support/cli.js';
import { v2 } from '../support/scenarios.js';
import { spansFromJsonLines } from '../support/traces.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const { dir, scenario } = scenarioDir('svc-native-');

/** The value of a one-series instant query, once Prometheus has it. */
async function scalar(prometheus: Prometheus, expression: string): Promise<number> {
  return waitFor(
    expression,
    async () => {
      const [found] = await prometheus.query(expression);
      return found && Number(found.value[1]);
    },
    15_000,
    100,
  );
}

/** The series with exemplars `query` selects between two epoch-ms times, once Prometheus has `series` of them. */
async function exemplarsOf(prometheus: Prometheus, query: string, from: number, to: number, series: number) {
  const url = `${prometheus.url}/api/v1/query_exemplars?query=${query}&start=${from / 1000}&end=${to / 1000}`;
  return waitFor(
    'exemplars',
    async () => {
      const body = (await (await fetch(url)).json()) as {
        data: {
          seriesLabels: Record<string, string>;
          exemplars: { labels: Record<string, string>; value: string; timestamp: number }[];
        }[];
      };
      return body.data.length >= series ? body.data : undefined;
    },
    15_000,
    100,
  );
}

describe('native histograms and exemplars by remote write into Prometheus 2.42', function () {
  this.timeout(60_000);
  let prometheus: Prometheus;
  before(async () => {
    prometheus = await startPrometheus({ receiver: true, features: ['native-histograms', 'exemplar-storage'] });
  });
  after(async () => prometheus?.stop());

  it('svc run: histogram_count and histogram_sum equal what was sent, histogram_quantile the quantiles within a bucket', async () => {
    const name = 'svc_native_latency_seconds';
    const distribution = { type: 'exponential', rate: 10 } as const;
    const seed = 7;
    const file = scenario(
      'native.json',
      v2([
        {
          name,
          signal_type: 'histogram',
          rate: 10,
          duration: '2s',
          distribution,
          seed,
          observations_per_tick: 1000,
          buckets: [0.05, 0.1, 0.2],
          // A budget no exponential sample of this size reaches: the schema stays 3.
          native: { schema: 3, max_buckets: 1000 },
          labels: { job: 'svc' },
          sink: { type: 'remote_write', url: `${prometheus.url}/api/v1/write`, max_buffer_age: '200ms' },
        },
      ]),
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);

    // The classic _count and _sum come from the same observations by another path through the encoder.
    const count = await scalar(prometheus, `histogram_count(${name})`);
    expect(count).to.equal(20_000);
    expect(count).to.equal(await scalar(prometheus, `${name}_count`));
    expect(await scalar(prometheus, `histogram_sum(${name})`)).to.equal(await scalar(prometheus, `${name}_sum`));

    // The observations svc drew: observe() draws observation k of the run as sample(k).
    const sample = distributionSampler(distribution, seed);
    const observed = Float64Array.from({ length: count }, (_, k) => sample(k, 0)).sort();
    // At schema 3 every bucket spans a factor of 2^(1/8) ≈ 1.0905. The estimate lies in the bucket that holds the
    // rank's observation, so it is within that factor of the sample's quantile. The sample's quantile is within 5 %
    // of the distribution's: its relative standard error, sqrt(q / ((1 − q) n)) / −ln(1 − q) for an exponential, is
    // 1.0 %, 0.9 % and 1.5 % at q = 0.5, 0.9, 0.99 with n = 20,000 (and the draws are seeded: no flakiness).
    const factor = 2 ** (1 / 8);
    for (const q of [0.5, 0.9, 0.99]) {
      const estimate = await scalar(prometheus, `histogram_quantile(${q}, ${name})`);
      const empirical = observed[Math.ceil(q * count) - 1]!;
      const analytic = -Math.log(1 - q) / distribution.rate;
      expect(estimate / empirical, `q ${q}: ${estimate} against the sample's ${empirical}`).to.be.within(
        1 / factor,
        factor,
      );
      expect(estimate / analytic, `q ${q}: ${estimate} against ${analytic}`).to.be.within(
        1 / (factor * 1.05),
        factor * 1.05,
      );
    }
  });

  it('protocol 2.0 into Prometheus 2.42, which reads every body as 1.0 and answers 204 without the written headers: the request goes again as 1.0, with one warning, and every sample lands', async () => {
    const name = 'svc_v2_fallback_up';
    const sink = createSink({ type: 'remote_write', url: `${prometheus.url}/api/v1/write`, protocol: '2.0' });
    const reports: { kind: string; message?: string }[] = [];
    sink.reports!.subscribe((report) => reports.push(report as { kind: string; message?: string }));
    const encoder = remoteWrite({ name, remoteWriteProtocol: '2.0' });
    // In the past: a query's range ends at its own time.
    const start = Date.now() - 10_000;
    for (const k of [0, 1, 2])
      await sink.write(
        encoder.encode(sampleBatch({ values: [k + 1], anchor: start + k * 1000, series: seriesOf({ job: 'v2' }) })),
      );
    await sink.close();
    expect(await scalar(prometheus, `count_over_time(${name}[1h])`)).to.equal(3);
    expect(await scalar(prometheus, `sum_over_time(${name}[1h])`)).to.equal(6);
    const warnings = reports.filter((report) => report.kind === 'warning');
    expect(warnings.map((warning) => warning.message)).to.have.length(1);
    expect(warnings[0]!.message).to.match(/without saying what it wrote .*: it reads 1\.0 only/);
    expect(reports.filter((report) => report.kind === 'failed')).to.deep.equal([]);
  });

  it('exemplars on rows come back from /api/v1/query_exemplars with their trace and span ids', async () => {
    const name = 'svc_exemplar_requests_total';
    const sink = createSink({ type: 'remote_write', url: `${prometheus.url}/api/v1/write` });
    const encoder = remoteWrite({ name, metricType: 'counter' });
    const now = Date.now();
    const exemplars: (Exemplar | undefined)[] = [
      { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', value: 0.25, timestamp: now },
      undefined,
      { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', value: 1.5, timestamp: now + 2 },
    ];
    const batch = {
      ...sampleBatch({ values: [1, 2, 3], anchor: now, series: seriesOf({ job: 'svc' }) }),
      exemplars: exemplarRows(exemplars),
    };
    await sink.write(encoder.encode(batch));
    await sink.close();

    const found = await exemplarsOf(prometheus, name, now - 60_000, now + 60_000, 1);
    expect(found.map((s) => s.seriesLabels)).to.deep.equal([{ __name__: name, job: 'svc' }]);
    expect(
      found[0]!.exemplars.map((e) => ({
        ...e.labels,
        value: Number(e.value),
        timestamp: Math.round(e.timestamp * 1000),
      })),
    ).to.deep.equal(
      exemplars
        .filter((e) => e !== undefined)
        .map((e) => ({ trace_id: e.traceId, span_id: e.spanId, value: e.value, timestamp: e.timestamp })),
    );
    // The rows with exemplars kept their samples.
    expect(await scalar(prometheus, `count_over_time(${name}[1h])`)).to.equal(3);
  });

  it('svc run: the exemplars of a histogram name spans of the traces entry it follows, as Prometheus keeps them', async () => {
    const name = 'svc_checkout_seconds';
    const traces = join(dir, 'spans.jsonl');
    const file = scenario(
      'correlated.json',
      v2([
        {
          signal_type: 'traces',
          id: 'checkout',
          name: 'checkout',
          rate: 20,
          duration: '2s',
          sink: { type: 'file', path: traces },
          trace_generator: {
            seed: 5,
            services: { frontend: {} },
            root: {
              service: 'frontend',
              operation: 'GET /checkout',
              kind: 'server',
              duration: { type: 'exponential', rate: 10 },
            },
          },
        },
        {
          name,
          signal_type: 'histogram',
          rate: 5,
          duration: '2s',
          distribution: { type: 'exponential', rate: 10 },
          buckets: [0.05, 0.1, 0.2],
          native: {},
          exemplars: { from: 'checkout' },
          labels: { job: 'svc' },
          sink: { type: 'remote_write', url: `${prometheus.url}/api/v1/write`, max_buffer_age: '200ms' },
        },
      ]),
    );
    const started = Date.now();
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    const spans = new Map(
      spansFromJsonLines(readFileSync(traces, 'utf8')).map((span) => [`${span.traceId}/${span.spanId}`, span]),
    );
    const found = await exemplarsOf(prometheus, `{__name__=~"${name}.*"}`, started - 60_000, Date.now() + 60_000, 2);
    // The native series and the classic buckets both keep them.
    const series = found.map((s) => s.seriesLabels.__name__ + (s.seriesLabels.le ? `{le=${s.seriesLabels.le}}` : ''));
    expect(series).to.include(name);
    expect(series.some((s) => s.startsWith(`${name}_bucket`))).to.equal(true);
    let checked = 0;
    for (const { seriesLabels, exemplars } of found) {
      for (const exemplar of exemplars) {
        const span = spans.get(`${exemplar.labels.trace_id}/${exemplar.labels.span_id}`);
        expect(span, 'a span the traces entry wrote').to.not.equal(undefined);
        const seconds = Number(span!.end - span!.start) / 1e9;
        expect(Number(exemplar.value)).to.be.closeTo(seconds, 1e-9);
        // A classic bucket's exemplar lies in it: a slow bucket names a slow span.
        if (seriesLabels.le !== undefined) {
          const upper = seriesLabels.le === '+Inf' ? Infinity : Number(seriesLabels.le);
          const lower = [0, 0.05, 0.1, 0.2].filter((bound) => bound < upper).at(-1)!;
          expect(seconds).to.be.above(lower).and.at.most(upper);
        }
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(5);
  });
});
