import { expect } from 'chai';
import { uncompress } from 'snappyjs';
import type { SinkReport } from '../../operators/deliver.js';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { writeRequestMessages } from '../../lib/protocols/remote-write.js';
import { createSink } from '../../lib/sinks/index.js';
import { remoteWriteSink } from '../../lib/sinks/remote-write.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../support/backends/http-receiver.js';
import { ManualScheduler, settle } from '../support/clock.js';
import { waitFor } from '../support/backends/ports.js';
import { VERSION } from '../../lib/version.js';

const QUICK_RETRY = { maxAttempts: 3, initialBackoff: 10, maxBackoff: 20 };
const T0 = Date.UTC(2024, 0, 1);

interface WriteRequest {
  timeseries: {
    labels: { name: string; value: string }[];
    samples: { value: number; timestamp: { toString(): string } }[];
  }[];
  metadata: { metricFamilyName: string }[];
}

/** A request as the receiver got it: snappy-decompressed by snappyjs (not the library svc compresses with), then decoded. */
function writeRequestOf(request: ReceivedRequest): WriteRequest {
  const { WriteRequest } = writeRequestMessages();
  return WriteRequest.toObject(WriteRequest.decode(uncompress(request.raw)), {
    arrays: true,
    defaults: true,
  }) as WriteRequest;
}

/** `pod value` of every series of a request. */
function podsOf(request: ReceivedRequest): string[] {
  return writeRequestOf(request).timeseries.map(
    (ts) => `${ts.labels.find((l) => l.name === 'pod')!.value} ${ts.samples[0]!.value}`,
  );
}

/** Chunks of the `up` gauge: chunk k holds the given values for pods p<k>-0, p<k>-1, … */
function gaugeChunks(...sizes: number[]): EncodedBatch[] {
  const encoder = remoteWrite({ name: 'up', metricType: 'gauge', help: 'Up.' });
  return sizes.map((size, k) =>
    encoder.encode(
      sampleBatch({
        anchor: T0,
        values: Array.from({ length: size }, (_, i) => i),
        series: Array.from({ length: size }, (_, i) => seriesOf({ pod: `p${k}-${i}` })),
      }),
    ),
  );
}

describe('remote_write sink', () => {
  let receiver: HttpReceiver;
  beforeEach(async () => (receiver = await startHttpReceiver()));
  afterEach(async () => receiver.stop());

  it('POSTs snappy-compressed WriteRequests with the protocol headers (User-Agent too) and the custom ones (tenant, bearer)', async () => {
    const sink = createSink({
      type: 'remote_write',
      url: `${receiver.url}/api/v1/write`,
      headers: { 'X-Scope-OrgID': 'team-a', Authorization: 'Bearer s3cret', 'content-type': 'text/plain' },
    });
    for (const chunk of gaugeChunks(2, 1)) sink.write(chunk);
    await sink.close();
    expect(receiver.accepted).to.have.length(1);
    const [request] = receiver.accepted;
    expect(request).to.deep.include({ method: 'POST', path: '/api/v1/write' });
    expect(request!.headers).to.include({
      'content-encoding': 'snappy',
      'content-type': 'application/x-protobuf',
      'x-prometheus-remote-write-version': '0.1.0',
      'user-agent': `svc/${VERSION}`,
      'x-scope-orgid': 'team-a',
      authorization: 'Bearer s3cret',
    });
    const decoded = writeRequestOf(request!);
    expect(decoded.timeseries.map((ts) => ts.labels.map((l) => `${l.name}=${l.value}`).join(','))).to.deep.equal([
      '__name__=up,pod=p0-0',
      '__name__=up,pod=p0-1',
      '__name__=up,pod=p1-0',
    ]);
    expect(decoded.timeseries.map((ts) => ts.samples.map((s) => `${s.value}@${s.timestamp.toString()}`))).to.deep.equal(
      [[`0@${T0}`], [`1@${T0 + 1}`], [`0@${T0}`]],
    );
    // The metric's metadata once per request, however many of its chunks the request carries.
    expect(decoded.metadata.map((m) => m.metricFamilyName)).to.deep.equal(['up']);
  });

  it('batch_size counts series: no request carries more, and every series arrives once, in order', async () => {
    const sink = remoteWriteSink({ url: receiver.url, batchSize: 2 });
    for (const chunk of gaugeChunks(1, 1, 3, 1)) {
      sink.write(chunk);
      await settle();
    }
    await sink.close();
    const sizes = receiver.accepted.map((r) => writeRequestOf(r).timeseries.length);
    for (const size of sizes) expect(size).to.be.at.most(2);
    expect(receiver.accepted.flatMap(podsOf)).to.deep.equal([
      'p0-0 0',
      'p1-0 0',
      'p2-0 0',
      'p2-1 1',
      'p2-2 2',
      'p3-0 0',
    ]);
  });

  it('never splits the series set of one histogram event, even past batch_size', async () => {
    const set = (k: number) => [
      seriesOf({ pod: `h${k}`, le: '+Inf' }, '_bucket'),
      seriesOf({ pod: `h${k}` }, '_sum'),
      seriesOf({ pod: `h${k}` }, '_count'),
    ];
    const batch = {
      ...sampleBatch({ values: [4, 1.5, 4, 2, 0.5, 2], offsets: [0, 0, 0, 1, 1, 1], series: [...set(0), ...set(1)] }),
      events: 2,
    };
    const sink = remoteWriteSink({ url: receiver.url, batchSize: 2 });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(remoteWrite({ name: 'latency', metricType: 'histogram' }).encode(batch));
    await sink.close();
    expect(receiver.accepted.map(podsOf)).to.deep.equal([
      ['h0 4', 'h0 1.5', 'h0 4'],
      ['h1 2', 'h1 0.5', 'h1 2'],
    ]);
    expect(reports.map((r) => [r.kind, 'size' in r ? r.size : undefined])).to.deep.equal([
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });

  it('waits max_buffer_age (default 5 s) before sending a small batch; 0s waits for batch_size or the stop', async () => {
    const scheduler = new ManualScheduler();
    const aged = createSink({ type: 'remote_write', url: receiver.url }, { scheduler });
    aged.write(gaugeChunks(1)[0]!);
    await scheduler.advance(4999);
    expect(receiver.requests).to.have.length(0);
    await scheduler.advance(1);
    await waitForRequests(1);
    const unaged = createSink({ type: 'remote_write', url: receiver.url, max_buffer_age: 0 }, { scheduler });
    unaged.write(gaugeChunks(1)[0]!);
    await scheduler.advance(3_600_000);
    expect(receiver.requests).to.have.length(1);
    await unaged.close();
    expect(receiver.requests).to.have.length(2);
    await aged.close();
  });

  it('retries 503 and 429, then delivers', async () => {
    let n = 0;
    receiver.answer(() =>
      ++n === 1 ? { status: 503, body: 'overloaded' } : n === 2 ? { status: 429 } : { status: 204 },
    );
    const sink = remoteWriteSink({ url: receiver.url, retry: QUICK_RETRY });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(gaugeChunks(2)[0]!);
    await sink.close();
    expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'delivered']);
    expect(receiver.accepted.flatMap(podsOf)).to.deep.equal(['p0-0 0', 'p0-1 1']);
  });

  const refusals: [string, string, RegExp][] = [
    ['a 400 for another reason', 'invalid label name', /answered 400 Bad Request: "invalid label name"$/],
    [
      'an out-of-order 400',
      'out of order sample',
      /: "out of order sample"; the receiver refuses samples older than the newest of their series \(out of order\).*out_of_order_time_window/,
    ],
    [
      'an out-of-bounds 400',
      'out of bounds',
      /: "out of bounds"; the receiver refuses samples this old \(start_time in the past\).*out_of_order_time_window set in prometheus.yml, as far back as start_time goes \(for example 8d for a start_time of -7d\).*native histograms only where the receiver takes them out of order/,
    ],
    [
      'a too-old 400',
      'too old sample',
      /: "too old sample"; the receiver refuses samples older than its out-of-order window \(start_time further back than it\).*out_of_order_time_window in prometheus.yml covers the whole backfilled span/,
    ],
    [
      'a duplicate-timestamp 400',
      'duplicate sample for timestamp',
      /: "duplicate sample for timestamp"; several samples of one series fell in one millisecond .*at most 1000 events\/s$/,
    ],
  ];
  for (const [what, body, message] of refusals) {
    it(`does not retry ${what}: a sink error with the status, the body's head and what to do`, async () => {
      receiver.answer(() => ({ status: 400, body }));
      const sink = remoteWriteSink({ url: `${receiver.url}/api/v1/write`, retry: QUICK_RETRY });
      sink.write(gaugeChunks(1)[0]!);
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      expect(receiver.requests).to.have.length(1);
      expect(error.message)
        .to.match(/^remote_write sink: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write /)
        .and.match(message);
    });
  }

  it("does not retry Prometheus' 500 for a sample beyond its out-of-order window: no retry takes it", async () => {
    receiver.answer(() => ({ status: 500, body: 'too old sample' }));
    const sink = remoteWriteSink({ url: `${receiver.url}/api/v1/write`, retry: QUICK_RETRY });
    sink.write(gaugeChunks(1)[0]!);
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(receiver.requests).to.have.length(1);
    expect(error.message).to.match(
      /answered 500 Internal Server Error: "too old sample"; the receiver refuses samples older than its out-of-order window/,
    );
  });

  it("does not retry Prometheus' 500 for a native histogram it was not started to take: no retry takes it", async () => {
    receiver.answer(() => ({ status: 500, body: 'native histograms are disabled' }));
    const sink = remoteWriteSink({ url: `${receiver.url}/api/v1/write`, retry: QUICK_RETRY });
    sink.write(gaugeChunks(1)[0]!);
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(receiver.requests).to.have.length(1);
    expect(error.message).to.match(
      /answered 500 Internal Server Error: "native histograms are disabled"; the receiver does not take native histograms.*--enable-feature=native-histograms/,
    );
  });

  it('says where the write endpoint is when the receiver is not one (404)', async () => {
    receiver.answer(() => ({
      status: 404,
      body: 'remote write receiver needs to be enabled with --web.enable-remote-write-receiver',
    }));
    const sink = remoteWriteSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(gaugeChunks(1)[0]!);
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.include(
      '"remote write receiver needs to be enabled with --web.enable-remote-write-receiver"; url must be the receiver\'s write endpoint',
    );
  });

  async function waitForRequests(n: number): Promise<void> {
    await waitFor(`${n} requests at the receiver`, () => (receiver.requests.length >= n ? true : undefined), 1000, 5);
    expect(receiver.requests).to.have.length(n);
  }
});
