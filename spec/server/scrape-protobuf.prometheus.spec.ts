import { expect } from 'chai';
import { join } from 'node:path';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { waitFor } from '../support/backends/ports.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { decodeFamilies } from '../support/metric-family.js';
import { temporaryDirectory } from '../support/directories.js';

const NAME = 'svc_scrape_latency_seconds';
const PROTOBUF_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';

interface QueriedExemplar {
  labels: Record<string, string>;
  value: string;
  /** Epoch seconds. */
  timestamp: number;
}

describe('svc-server scraped by Prometheus 2.42 in the protobuf exposition: native histograms and exemplars', function () {
  this.timeout(60_000);
  let server: ServerProcess;
  let prometheus: Prometheus | undefined;
  const fileRoot = temporaryDirectory('svc-scrape-');

  before(async () => {
    server = await startServerProcess({ env: { SVC_FILE_ROOT: fileRoot } });
  });
  after(async () => {
    await prometheus?.stop();
    server?.kill();
  });

  /** Waits until the scenarios of the server made `count` events together (their first, at their start). */
  const firstEvents = (count: number) =>
    waitFor('the first events', async () => {
      const list = (await (await fetch(`${server.base}/scenarios`)).json()) as {
        scenarios: { total_events: number }[];
      };
      return list.scenarios.reduce((sum, scenario) => sum + scenario.total_events, 0) >= count || undefined;
    });

  it('Prometheus keeps the native histogram svc-server serves and the exemplars of its buckets', async () => {
    // One event, at the start, the next one 1000 s later: every scrape sees the state the spec reads too. (A run
    // that ended leaves the scrape: docs/http-api.md, "Scraping".)
    const body = `version: 2
kind: runnable
scenarios:
  - signal_type: histogram
    name: ${NAME}
    help: Request latency.
    rate: 0.001
    distribution: { type: exponential, rate: 10 }
    observations_per_tick: 2000
    buckets: [0.05, 0.1, 0.2]
    native: { schema: 3 }
    exemplars: { every: 1 }
    labels: { service: checkout }
    sink: { type: file, path: ${join(fileRoot, 'latency.prom')} }
`;
    const res = await fetch(`${server.base}/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body,
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    await firstEvents(1);
    const scraped = await fetch(`${server.base}/scenarios/metrics`, { headers: { accept: PROTOBUF_ACCEPT } });
    const histogram = decodeFamilies(new Uint8Array(await scraped.arrayBuffer()))[0]!.metric[0]!.histogram;
    // Buckets that no exemplar fell in carry none.
    const served = [...histogram.bucket.map((bucket: any) => bucket.exemplar), ...histogram.exemplars].filter(Boolean);

    prometheus = await startPrometheus({
      scrape: { host: server.base.slice('http://'.length), path: '/scenarios/metrics' },
      features: ['native-histograms', 'exemplar-storage'],
    });
    const count = await waitFor(
      `histogram_count(${NAME})`,
      async () => {
        const [found] = await prometheus!.query(`histogram_count(${NAME})`);
        return found && Number(found.value[1]);
      },
      20_000,
      250,
    );
    expect(count).to.equal(histogram.sample_count);
    const [sum] = await prometheus.query(`histogram_sum(${NAME})`);
    expect(Number(sum!.value[1])).to.be.closeTo(histogram.sample_sum, 1e-9 * histogram.sample_sum);
    const [series] = await prometheus.query(NAME);
    expect(series!.metric).to.deep.equal({
      __name__: NAME,
      instance: new URL(server.base).host,
      job: 'svc',
      service: 'checkout',
    });

    const now = Date.now() / 1000;
    const found = await waitFor(
      'exemplars',
      async () => {
        const answer = await fetch(
          `${prometheus!.url}/api/v1/query_exemplars?query=${NAME}&start=${now - 3600}&end=${now + 60}`,
        );
        const { data } = (await answer.json()) as {
          data: { seriesLabels: Record<string, string>; exemplars: QueriedExemplar[] }[];
        };
        return data.length ? data : undefined;
      },
      15_000,
      250,
    );
    expect(found.map((s) => s.seriesLabels.__name__)).to.deep.equal([NAME]);
    const exemplars = found[0]!.exemplars;
    expect(exemplars.length).to.be.above(0);
    for (const exemplar of exemplars) {
      expect(exemplar.labels.trace_id).to.match(/^[0-9a-f]{32}$/);
      expect(exemplar.labels.span_id).to.match(/^[0-9a-f]{16}$/);
      // Each is one svc-server served, trace, span, value and time.
      const match = served.find((e) => e.label[0].value === exemplar.labels.trace_id);
      expect(match, exemplar.labels.trace_id).to.not.equal(undefined);
      expect(match.label[1].value).to.equal(exemplar.labels.span_id);
      expect(Number(exemplar.value)).to.equal(match.value);
      expect(exemplar.timestamp).to.equal(match.timestamp.seconds + (match.timestamp.nanos ?? 0) / 1e9);
    }
  });

  it('keeps the classic histograms of an entry without native beside those of one with it, under one name', async () => {
    // Prometheus reads a family as native or classic by its first metric: served as one family, the classic
    // histogram was stored as a native one of no buckets (histogram_quantile 0) and its _bucket series were lost.
    const name = 'svc_scrape_mixed_seconds';
    const entry = (kind: string, native: string) => `
  - signal_type: histogram
    name: ${name}
    rate: 0.001
    distribution: { type: exponential, rate: 10 }
    observations_per_tick: 100
    buckets: [0.1, 0.2]${native}
    labels: { kind: ${kind} }
    sink: { type: file, path: ${join(fileRoot, `${kind}.prom`)} }`;
    const body = `version: 2\nkind: runnable\nscenarios:${entry('native', '\n    native: {}')}${entry('classic', '')}\n`;
    const res = await fetch(`${server.base}/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body,
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    await firstEvents(3);
    const mixed = await startPrometheus({
      scrape: { host: server.base.slice('http://'.length), path: '/scenarios/metrics' },
      features: ['native-histograms'],
    });
    try {
      const buckets = await waitFor(
        `${name}_bucket`,
        async () => {
          const found = await mixed.query(`${name}_bucket`);
          return found.length ? found : undefined;
        },
        20_000,
        250,
      );
      expect(buckets.map((b) => `${b.metric.kind} ${b.metric.le}`).sort()).to.deep.equal([
        'classic +Inf',
        'classic 0.1',
        'classic 0.2',
      ]);
      expect(buckets.find((b) => b.metric.le === '+Inf')!.value[1]).to.equal('100');
      const natives = await mixed.query(`histogram_count(${name})`);
      expect(natives.map((n) => [n.metric.kind, n.value[1]])).to.deep.equal([['native', '100']]);
      const [quantile] = await mixed.query(`histogram_quantile(0.5, ${name})`);
      expect(Number(quantile!.value[1])).to.be.above(0);
    } finally {
      await mixed.stop();
    }
  });
});
