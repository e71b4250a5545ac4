import { expect } from 'chai';
import { firstValueFrom, from, toArray } from 'rxjs';
import { aggregate, ScrapeBuffer } from '../../lib/server/scrape.js';
import { aggregateProtobuf } from '../../lib/server/scrape-protobuf.js';
import { histogram } from '../../operators/histogram.js';
import { nativeHistogram } from '../../operators/native-histogram.js';
import { summary } from '../../operators/summary.js';
import { exemplars } from '../../operators/exemplars.js';
import {
  exemplarAt,
  exemplarRows,
  type Exemplar,
  type Labelled,
  type ObservationBatch,
} from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { decodeFamilies, nativeBuckets } from '../support/metric-family.js';
import { testServer } from '../support/server.js';
import { PROTOBUF_EXPOSITION } from '../../lib/protocols/metric-family.js';

/** The epoch ms the entries of these specs start at: their batches' anchor. */
const START = 1_700_000_000_000;
const PAY = seriesOf({ route: '/pay' });

/** One tick a second from START, each with its observations, all of the series PAY. */
function observed(ticks: readonly number[][]): Labelled<ObservationBatch> {
  return {
    size: ticks.length,
    anchor: START,
    index: Float64Array.from(ticks, (_, i) => i),
    offset: Float64Array.from(ticks, (_, i) => i * 1000),
    observations: ticks.map((values) => Float64Array.from(values)),
    series: ticks.map(() => PAY),
  };
}

/** The row batches of `ticks` through a histogram of bounds [0.1, 1] with a native histogram of schema 0. */
async function histogramRows(ticks: readonly number[][], exemplarValues: readonly number[]) {
  return firstValueFrom(
    from([observed(ticks)]).pipe(
      histogram([0.1, 1], { native: { schema: 0, zeroThreshold: 0.001, maxBuckets: 160 } }),
      exemplars({ every: 1, value: (index) => exemplarValues[index]! }),
      toArray(),
    ),
  );
}

const protobufOf = (...buffers: ScrapeBuffer[]) => decodeFamilies(aggregateProtobuf(buffers, () => {}));
const exemplarOf = ({ traceId, spanId, value, timestamp }: Exemplar) => ({
  label: [
    { name: 'trace_id', value: traceId },
    { name: 'span_id', value: spanId },
  ],
  value,
  // proto3 leaves a zero out.
  timestamp: { seconds: Math.floor(timestamp / 1000), ...(timestamp % 1000 && { nanos: (timestamp % 1000) * 1e6 }) },
});
const created = { seconds: START / 1000 };

describe('the protobuf exposition of svc-server (io.prometheus.client.MetricFamily, length-delimited)', () => {
  it('writes a histogram with classic buckets, each with its latest exemplar, and its native histogram', async () => {
    const buffer = new ScrapeBuffer({ name: 'pay_seconds', type: 'histogram', help: 'Payment latency.' });
    // Tick 0 and 1 each put an exemplar in another bucket; tick 2 observes everything else and its exemplar goes to
    // +Inf: every bucket keeps the latest exemplar that fell in it.
    const ticks = [[0.05], [0.5], [3, 0.0005, -2]];
    const batches = await histogramRows(ticks, [0.05, 0.5, 3]);
    for (const batch of batches) buffer.record(batch);
    const column = batches[0]!.exemplars!;
    const exemplarsOf = Array.from(column.rows, (_, k) => exemplarAt(column, k));
    const [first, second, third] = [0, 1, 2].map(
      (tick) => exemplarsOf.find((e) => e.timestamp === START + tick * 1000)!,
    );

    const [family, ...others] = protobufOf(buffer);
    expect(others).to.deep.equal([]);
    expect(family).to.deep.include({
      name: 'pay_seconds',
      help: 'Payment latency.',
      unit: 'seconds',
      type: 'HISTOGRAM',
    });
    expect(family!.metric).to.have.length(1);
    const [{ label, histogram: h }] = family!.metric as [{ label: unknown; histogram: Record<string, any> }];
    expect(label).to.deep.equal([{ name: 'route', value: '/pay' }]);
    expect(h.bucket).to.deep.equal([
      // 0.0005 and -2 count in le="0.1" too.
      { cumulative_count: 3, upper_bound: 0.1, exemplar: exemplarOf(first!) },
      { cumulative_count: 4, upper_bound: 1, exemplar: exemplarOf(second!) },
      { cumulative_count: 5, upper_bound: Infinity, exemplar: exemplarOf(third!) },
    ]);
    expect(h.sample_count).to.equal(5);
    expect(h.sample_sum).to.be.closeTo(0.05 + 0.5 + 3 + 0.0005 - 2, 1e-12);
    expect(h.created_timestamp).to.deep.equal(created);
    // Schema 0: bucket i holds (2^(i-1), 2^i]; 0.05 is in (1/32, 1/16], 0.5 in (1/4, 1/2], 3 in (2, 4], 2 in (1, 2].
    expect(h).to.deep.include({ zero_threshold: 0.001, zero_count: 1 });
    expect(h.schema, 'proto3 leaves a zero out').to.equal(undefined);
    expect(nativeBuckets(h, 'positive')).to.deep.equal({ [-4]: 1, [-1]: 1, 2: 1 });
    expect(nativeBuckets(h, 'negative')).to.deep.equal({ 1: 1 });
    // The native series' own exemplar: the latest.
    expect(h.exemplars).to.deep.equal([exemplarOf(third!)]);
  });

  it('groups the buckets of each label set into its Metric scrape after scrape, a label set met later apart', async () => {
    const CART = seriesOf({ route: '/cart' });
    const rowsOf = async (series: typeof PAY, values: number[]) => {
      const batch = { ...observed([values]), series: [series] };
      return firstValueFrom(from([batch]).pipe(histogram([0.1, 1]), toArray()));
    };
    const buffer = new ScrapeBuffer({ name: 'pay_seconds', type: 'histogram' });
    const counts = () =>
      protobufOf(buffer)[0]!.metric.map((metric) => [
        metric.label.map((pair: { value: string }) => pair.value).join(),
        metric.histogram.bucket.map((bucket: { cumulative_count?: number }) => bucket.cumulative_count ?? 0),
      ]);
    for (const batch of await rowsOf(PAY, [0.05, 0.5])) buffer.record(batch);
    expect(counts()).to.deep.equal([['/pay', [1, 2, 2]]]);
    // The same rows again (the label sets without `le` kept from the first scrape), then a new label set's.
    for (const batch of await rowsOf(PAY, [3])) buffer.record(batch);
    for (const batch of await rowsOf(CART, [0.5])) buffer.record(batch);
    expect(counts()).to.deep.equal([
      ['/pay', [0, 0, 1]],
      ['/cart', [0, 1, 1]],
    ]);
  });

  it('keeps the text exposition of the same buffer as it was: the classic rows only', async () => {
    const buffer = new ScrapeBuffer({ name: 'pay_seconds', type: 'histogram' });
    for (const batch of await histogramRows([[0.05], [3]], [0.05, 3])) buffer.record(batch);
    expect(aggregate([buffer], () => {})).to.equal(
      [
        '# TYPE pay_seconds histogram',
        'pay_seconds_bucket{le="0.1",route="/pay"} 1',
        'pay_seconds_bucket{le="1",route="/pay"} 1',
        'pay_seconds_bucket{le="+Inf",route="/pay"} 2',
        'pay_seconds_sum{route="/pay"} 3.05',
        'pay_seconds_count{route="/pay"} 2',
        '',
      ].join('\n'),
    );
  });

  it('marks an empty native histogram without a zero bucket with a no-op span, so it is not read as classic', async () => {
    const buffer = new ScrapeBuffer({ name: 'idle_seconds', type: 'histogram' });
    const rows = await firstValueFrom(
      from([observed([[]])]).pipe(nativeHistogram({ schema: 3, zeroThreshold: 0, maxBuckets: 10 })),
    );
    buffer.record(rows);
    // proto3 leaves the zeros out: no count, no sum, no zero bucket; and no classic bucket.
    expect(protobufOf(buffer)[0]!.metric[0]!.histogram).to.deep.equal({
      created_timestamp: created,
      schema: 3,
      positive_span: [{}],
    });
  });

  it('writes a counter with its start and its latest exemplar, kept while later samples carry none; a gauge with its value and the unit its name ends with', () => {
    const counter = new ScrapeBuffer({ name: 'orders_total', type: 'counter', help: 'Orders.' });
    const exemplar: Exemplar = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), value: 1, timestamp: START + 1500 };
    counter.record({
      ...sampleBatch({ values: [1], anchor: START, series: PAY }),
      exemplars: exemplarRows([exemplar]),
    });
    counter.record(sampleBatch({ values: [7], anchor: START, offsets: [2000], series: PAY }));
    const gauge = new ScrapeBuffer({ name: 'queue_size_bytes', type: 'gauge' });
    gauge.record(sampleBatch({ values: [3, 4], series: [seriesOf({ queue: 'a' }), seriesOf({ queue: 'b' })] }));
    expect(protobufOf(counter, gauge)).to.deep.equal([
      {
        name: 'orders_total',
        help: 'Orders.',
        type: 'COUNTER',
        metric: [
          {
            label: [{ name: 'route', value: '/pay' }],
            counter: { value: 7, created_timestamp: created, exemplar: exemplarOf(exemplar) },
          },
        ],
      },
      {
        name: 'queue_size_bytes',
        unit: 'bytes',
        type: 'GAUGE',
        metric: [
          { label: [{ name: 'queue', value: 'a' }], gauge: { value: 3 } },
          { label: [{ name: 'queue', value: 'b' }], gauge: { value: 4 } },
        ],
      },
    ]);
  });

  it('writes a summary with its quantiles, sum and count', async () => {
    const buffer = new ScrapeBuffer({ name: 'rpc_seconds', type: 'summary' });
    buffer.record(await firstValueFrom(from([observed([[1, 2, 3, 4]])]).pipe(summary([0.5, 0.9]))));
    expect(protobufOf(buffer)[0]).to.deep.equal({
      name: 'rpc_seconds',
      unit: 'seconds',
      type: 'SUMMARY',
      metric: [
        {
          label: [{ name: 'route', value: '/pay' }],
          summary: {
            sample_count: 4,
            sample_sum: 10,
            quantile: [
              { quantile: 0.5, value: 2.5 },
              { quantile: 0.9, value: 3.7 },
            ],
            created_timestamp: created,
          },
        },
      ],
    });
  });

  it('writes entries that share a name but not a type as untyped families, one per sample name, as text does', async () => {
    const gauge = new ScrapeBuffer({ name: 'lat', type: 'gauge' });
    gauge.record(sampleBatch({ values: [9], series: seriesOf({ room: 'lab' }) }));
    const hist = new ScrapeBuffer({ name: 'lat', type: 'histogram' });
    for (const batch of await histogramRows([[0.5]], [0.5])) hist.record(batch);
    const conflicts: string[] = [];
    const families = decodeFamilies(aggregateProtobuf([gauge, hist], (name) => conflicts.push(name)));
    expect(conflicts).to.deep.equal(['lat']);
    expect(families.map(({ name, type, metric }) => [name, type, metric.length])).to.deep.equal([
      ['lat', 'UNTYPED', 1],
      ['lat_bucket', 'UNTYPED', 3],
      ['lat_sum', 'UNTYPED', 1],
      ['lat_count', 'UNTYPED', 1],
    ]);
    expect(families[1]!.metric[2]).to.deep.equal({
      label: [
        { name: 'le', value: '+Inf' },
        { name: 'route', value: '/pay' },
      ],
      untyped: { value: 1 },
    });
  });

  it('writes histograms of one name with and without a native part as two families: Prometheus reads a family by its first', async () => {
    const native = new ScrapeBuffer({ name: 'lat', type: 'histogram' });
    for (const batch of await histogramRows([[0.5]], [0.5])) native.record(batch);
    const classic = new ScrapeBuffer({ name: 'lat', type: 'histogram' });
    const refund = { ...observed([[0.05]]), series: [seriesOf({ route: '/refund' })] };
    classic.record(await firstValueFrom(from([refund]).pipe(histogram([0.1, 1]))));
    const families = protobufOf(native, classic);
    expect(
      families.map(({ name, type, metric }) => [
        name,
        type,
        metric.map((m: any) => [m.label[0].value, (m.histogram.positive_span ?? []).length > 0]),
      ]),
    ).to.deep.equal([
      ['lat', 'HISTOGRAM', [['/pay', true]]],
      ['lat', 'HISTOGRAM', [['/refund', false]]],
    ]);
  });

  it('writes a lone surrogate in a label value or the help as U+FFFD, as text does: Prometheus refuses a whole scrape for invalid UTF-8', () => {
    const buffer = new ScrapeBuffer({ name: 'u', type: 'gauge', help: 'half \ud800' });
    buffer.record(sampleBatch({ values: [1], series: seriesOf({ k: 'a\ud800b' }) }));
    const bytes = Buffer.from(aggregateProtobuf([buffer], () => {}));
    // protobufjs' own UTF-8 writes \ud800 as ED A0 80 (CESU-8), which Prometheus' parser refuses: "invalid label value".
    expect(bytes.includes(Buffer.from([0xed, 0xa0, 0x80]))).to.equal(false);
    const [family] = decodeFamilies(bytes);
    expect(family!.help).to.equal('half \ufffd');
    expect(family!.metric[0]!.label).to.deep.equal([{ name: 'k', value: 'a\ufffdb' }]);
  });

  it('is empty when no entry has a sample', () => {
    expect(aggregateProtobuf([new ScrapeBuffer({ name: 'x', type: 'gauge' })], () => {})).to.have.length(0);
  });
});

/** What Prometheus 2.42 run with `--enable-feature=native-histograms` sends (scrape.go's scrapeAcceptHeaderWithProtobuf). */
const PROMETHEUS_PROTOBUF_ACCEPT =
  'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
/** What it sends without that feature (scrapeAcceptHeader). */
const PROMETHEUS_TEXT_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

describe('GET /scenarios/metrics: the format negotiated from the Accept header', () => {
  const scrape = (server: ReturnType<typeof testServer>, accept?: string) =>
    server.request({ method: 'GET', url: '/scenarios/metrics', headers: accept === undefined ? {} : { accept } });

  async function histogramServer() {
    const server = testServer();
    const res = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: `signal_type: histogram
name: latency_seconds
rate: 1
distribution: { type: uniform, min: 0, max: 1 }
buckets: [0.5]
native: { schema: 2 }
exemplars: { every: 1 }
observations_per_tick: 10
`,
    });
    expect(res.statusCode, res.body).to.equal(201);
    server.advance(2500);
    return server;
  }

  it("answers the protobuf exposition to Prometheus' Accept header with native histograms on", async () => {
    const server = await histogramServer();
    const res = await scrape(server, PROMETHEUS_PROTOBUF_ACCEPT);
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal(PROTOBUF_EXPOSITION);
    expect(res.headers.vary).to.equal('Accept');
    const [family, ...others] = decodeFamilies(res.rawPayload);
    expect(others).to.deep.equal([]);
    expect(family).to.include({ name: 'latency_seconds', type: 'HISTOGRAM' });
    const h = family!.metric[0]!.histogram;
    // Three ticks (0, 1 s and 2 s) of 10 observations each.
    expect(h.sample_count).to.equal(30);
    expect(h.bucket.map((b: { upper_bound: number }) => b.upper_bound)).to.deep.equal([0.5, Infinity]);
    expect(h.schema).to.equal(2);
    const nativeCount = Object.values(nativeBuckets(h, 'positive')).reduce((sum, count) => sum + count, 0);
    expect(nativeCount + (h.zero_count ?? 0)).to.equal(30);
    expect(h.exemplars).to.have.length(1);
    expect(h.exemplars[0].label.map((l: { name: string }) => l.name)).to.deep.equal(['trace_id', 'span_id']);
    expect(h.exemplars[0].label[0].value).to.match(/^[0-9a-f]{32}$/);
  });

  it("answers the protobuf exposition to Prometheus 3's Accept header, whose ranges carry escaping=allow-utf-8", async () => {
    const server = await histogramServer();
    // What Prometheus 3.0 sends with native histograms on (scrape.go acceptHeader: UTF-8 names add the parameter
    // to every range); a name of svc reads the same under any escaping.
    const accept =
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=allow-utf-8;q=0.5,' +
      'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,application/openmetrics-text;version=0.0.1;escaping=allow-utf-8;q=0.3,' +
      'text/plain;version=1.0.0;escaping=allow-utf-8;q=0.2,text/plain;version=0.0.4;escaping=allow-utf-8;q=0.1,*/*;escaping=allow-utf-8;q=0.0';
    const res = await scrape(server, accept);
    expect(res.headers['content-type']).to.equal(PROTOBUF_EXPOSITION);
    const [family] = decodeFamilies(res.rawPayload);
    expect(family!.metric[0]!.histogram.schema).to.equal(2);
  });

  it('answers text, the same bytes as without an Accept header, to any other Accept header', async () => {
    const server = await histogramServer();
    const text = await scrape(server);
    expect(text.statusCode).to.equal(200);
    expect(text.headers['content-type']).to.equal('text/plain; version=0.0.4; charset=utf-8');
    expect(text.body).to.match(
      /^# TYPE latency_seconds histogram\nlatency_seconds_bucket\{le="0\.5"\} \d+\nlatency_seconds_bucket\{le="\+Inf"\} 30\nlatency_seconds_sum [\d.]+\nlatency_seconds_count 30\n$/,
    );
    for (const accept of [
      PROMETHEUS_TEXT_ACCEPT,
      '*/*',
      'text/plain',
      'application/json',
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0,text/plain',
      // Another protobuf encoding than the delimited one.
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text',
      // Text preferred by its q-value.
      'text/plain;q=0.9,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5',
    ]) {
      const res = await scrape(server, accept);
      expect([res.headers['content-type'], res.body], accept).to.deep.equal([text.headers['content-type'], text.body]);
    }
  });

  it('answers 200 with an empty protobuf exposition when there is no sample (Prometheus counts a 204 as a failed scrape)', async () => {
    const res = await scrape(testServer(), PROMETHEUS_PROTOBUF_ACCEPT);
    expect([res.statusCode, res.headers['content-type'], res.body]).to.deep.equal([
      200,
      'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited',
      '',
    ]);
  });
});
