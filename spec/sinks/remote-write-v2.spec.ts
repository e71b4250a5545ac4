import { expect } from 'chai';
import type { Delivery, SinkReport } from '../../operators/deliver.js';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { writeRequestMessages } from '../../lib/protocols/remote-write.js';
import { createSink } from '../../lib/sinks/index.js';
import { remoteWriteSink } from '../../lib/sinks/remote-write.js';
import { SYMBOLS_SLACK, joinedBlocks } from '../../lib/sinks/framing/remote-write-v2.js';
import { EntryStats } from '../../lib/runtime/stats.js';
import { exemplarRows, type Exemplar, type Labelled, type SampleBatch } from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { VERSION } from '../../lib/version.js';
import {
  startRemoteWriteV2Receiver,
  type RemoteWriteV2Receiver,
} from '../support/backends/remote-write-v2-receiver.js';

const T0 = Date.UTC(2024, 0, 1);

/** Reports of a sink, collected. */
function reportsOf(sink: { reports?: { subscribe(next: (r: SinkReport) => void): unknown } }): SinkReport[] {
  const reports: SinkReport[] = [];
  sink.reports!.subscribe((r) => reports.push(r));
  return reports;
}

/** `name{labels} value@ms` of every series of the 1.0 requests, as protobufjs decodes them. */
function v1Rows(bodies: Buffer[]): string[] {
  const { WriteRequest } = writeRequestMessages();
  return bodies.flatMap((body) =>
    (
      WriteRequest.toObject(WriteRequest.decode(body), { arrays: true, longs: Number }) as {
        timeseries: { labels: { name: string; value: string }[]; samples: { value: number; timestamp: number }[] }[];
      }
    ).timeseries.map(
      (ts) =>
        `${ts.labels.map((l) => `${l.name}=${l.value}`).join(',')} ${ts.samples.map((s) => `${s.value}@${s.timestamp}`)}`,
    ),
  );
}

describe('remote_write sink, protocol 2.0 (against a receiver built from the published 2.0 definition)', () => {
  let receiver: RemoteWriteV2Receiver;
  afterEach(async () => receiver.stop());

  it('sends io.prometheus.write.v2.Request: its content type and version, a symbol table from "", sorted label references', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = createSink({
      type: 'remote_write',
      url: receiver.url,
      protocol: '2.0',
      headers: { 'X-Scope-OrgID': 't' },
    });
    const encoder = remoteWrite({ name: 'up', metricType: 'gauge', help: 'Up or not.', remoteWriteProtocol: '2.0' });
    const series = [seriesOf({ zone: 'b', app: 'api', Host: 'h1' }), seriesOf({ zone: 'a', app: 'api', Host: 'h2' })];
    sink.write(encoder.encode(sampleBatch({ anchor: T0, values: [1, 0], offsets: [0, 0], series })));
    sink.write(encoder.encode(sampleBatch({ anchor: T0, values: [0.5, 1], offsets: [1000, 1000], series })));
    await sink.close();

    expect(receiver.v1).to.have.length(0);
    expect(receiver.v2).to.have.length(1);
    const [request] = receiver.v2;
    expect(request!.headers).to.include({
      'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '2.0.0',
      'user-agent': `svc/${VERSION}`,
      'x-scope-orgid': 't',
    });
    expect(request!.symbols[0]).to.equal('');
    // De-duplicated: every string once, whatever the number of series and rows that name it.
    expect(new Set(request!.symbols).size).to.equal(request!.symbols.length);
    expect(
      request!.series.map((s) => `${JSON.stringify(s.labels)} ${s.samples.map((p) => `${p.value}@${p.timestamp}`)}`),
    ).to.deep.equal([
      `{"Host":"h1","__name__":"up","app":"api","zone":"b"} 1@${T0}`,
      `{"Host":"h2","__name__":"up","app":"api","zone":"a"} 0@${T0}`,
      `{"Host":"h1","__name__":"up","app":"api","zone":"b"} 0.5@${T0 + 1000}`,
      `{"Host":"h2","__name__":"up","app":"api","zone":"a"} 1@${T0 + 1000}`,
    ]);
    // Sorted by byte order, as 1.0 sorts them.
    for (const s of request!.series) expect(s.labelOrder).to.deep.equal(['Host', '__name__', 'app', 'zone']);
    // A gauge: its type and help inline, no unit (its name ends with none), no start time.
    for (const s of request!.series) {
      expect(s.metadata).to.deep.equal({ type: 2, help: 'Up or not.', unit: '' });
      expect(s.samples[0]!.startTimestamp).to.equal(0);
      expect(s.createdTimestamp).to.equal(0);
    }
  });

  it('writes the entry start as start time on counters, histograms and summaries, where rc.3 and rc.4 receivers read it', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0' });
    const start = T0 - 60_000;
    const counter = remoteWrite({ name: 'requests_total', metricType: 'counter', remoteWriteProtocol: '2.0' });
    const summary = remoteWrite({ name: 'latency', metricType: 'summary', remoteWriteProtocol: '2.0' });
    sink.write(
      counter.encode(sampleBatch({ anchor: start, offsets: [60_000], values: [42], series: seriesOf({ a: '1' }) })),
    );
    sink.write(
      summary.encode({
        ...sampleBatch({
          anchor: start,
          offsets: [60_000, 60_000, 60_000],
          values: [0.2, 31.5, 90],
          series: [seriesOf({ quantile: '0.5' }), seriesOf({}, '_sum'), seriesOf({}, '_count')],
        }),
        events: 1,
      }),
    );
    await sink.close();
    const series = receiver.v2.flatMap((r) => r.series);
    expect(
      series.map((s) => [s.labels.__name__, s.metadata.type, s.createdTimestamp, s.samples[0]!.startTimestamp]),
    ).to.deep.equal([
      ['requests_total', 1, start, start],
      ['latency', 5, start, start],
      ['latency_sum', 5, start, start],
      ['latency_count', 5, start, start],
    ]);
  });

  it("writes the base unit the family name ends with as unit_ref, a counter's name read without _total", async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0' });
    const metrics = [
      { name: 'cpu_seconds_total', metricType: 'counter' },
      { name: 'heap_bytes', metricType: 'gauge' },
      { name: 'up', metricType: 'gauge' },
    ] as const;
    for (const meta of metrics) {
      sink.write(remoteWrite({ ...meta, remoteWriteProtocol: '2.0' }).encode(sampleBatch({ values: [1] })));
    }
    await sink.close();
    const series = receiver.v2.flatMap((r) => r.series);
    expect(series.map((s) => [s.labels.__name__, s.metadata.unit])).to.deep.equal([
      ['cpu_seconds_total', 'seconds'],
      ['heap_bytes', 'bytes'],
      ['up', ''],
    ]);
  });

  it('sends the native histogram of a row holding one, its counts as bucket deltas, and the exemplars of the rows, with their references', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0' });
    const native: NativeHistogram = {
      schema: 0,
      zeroThreshold: 1e-128,
      zeroCount: 1,
      count: 9,
      sum: 14.5,
      positiveSpans: [
        { offset: 0, length: 2 },
        { offset: 1, length: 1 },
      ],
      positiveCounts: [3, 1, 2],
      negativeSpans: [{ offset: -1, length: 1 }],
      negativeCounts: [2],
    };
    const slow: Exemplar = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), value: 3.9, timestamp: T0 + 7 };
    const fast: Exemplar = { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), value: 0.1, timestamp: T0 + 8 };
    const batch: Labelled<SampleBatch> = {
      ...sampleBatch({
        anchor: T0,
        offsets: [10, 10, 10, 10],
        values: [9, 6, 9, 14.5],
        series: [
          seriesOf({ pod: 'p' }),
          seriesOf({ pod: 'p', le: '+Inf' }, '_bucket'),
          seriesOf({ pod: 'p' }, '_count'),
          seriesOf({ pod: 'p' }, '_sum'),
        ],
      }),
      events: 1,
      native: [native, undefined, undefined, undefined],
      exemplars: exemplarRows([slow, fast, undefined, undefined]),
    };
    const reports = reportsOf(sink);
    sink.write(remoteWrite({ name: 'rpc_seconds', metricType: 'histogram', remoteWriteProtocol: '2.0' }).encode(batch));
    await sink.close();

    const [nativeSeries, bucket, count, sum] = receiver.v2[0]!.series;
    expect(nativeSeries!.labels).to.deep.equal({ __name__: 'rpc_seconds', pod: 'p' });
    expect(nativeSeries!.samples).to.deep.equal([]);
    expect(nativeSeries!.histograms).to.have.length(1);
    expect(nativeSeries!.histograms[0]).to.deep.include({
      countInt: 9,
      sum: 14.5,
      schema: 0,
      zeroThreshold: 1e-128,
      zeroCountInt: 1,
      positiveSpans: [
        { offset: 0, length: 2 },
        { offset: 1, length: 1 },
      ],
      positiveDeltas: [3, -2, 1],
      negativeSpans: [{ offset: -1, length: 1 }],
      negativeDeltas: [2],
      timestamp: T0 + 10,
      startTimestamp: T0,
    });
    expect(nativeSeries!.exemplars).to.deep.equal([
      { labels: { span_id: slow.spanId, trace_id: slow.traceId }, value: 3.9, timestamp: T0 + 7 },
    ]);
    expect(bucket!.exemplars).to.deep.equal([
      { labels: { span_id: fast.spanId, trace_id: fast.traceId }, value: 0.1, timestamp: T0 + 8 },
    ]);
    expect(
      [bucket, count, sum].map((s) => [
        s!.labels.__name__,
        s!.samples[0]!.value,
        s!.exemplars.length,
        s!.metadata.type,
      ]),
    ).to.deep.equal([
      ['rpc_seconds_bucket', 6, 1, 3],
      ['rpc_seconds_count', 9, 0, 3],
      ['rpc_seconds_sum', 14.5, 0, 3],
    ]);
    // What the receiver said it wrote goes with the delivery.
    const delivered = reports.filter((r) => r.kind === 'delivered');
    expect(delivered.map((r) => [r.size, r.written])).to.deep.equal([[1, { samples: 3, histograms: 1, exemplars: 2 }]]);
  });

  it('resolves every row to its own labels across many requests whose series come in changing order and alignment', async () => {
    receiver = await startRemoteWriteV2Receiver();
    // 3 series a request, ticks of 6 series: chunks of 6 rows repeat the requests of the tick before (the
    // references of each series come out as they did), shorter chunks shift them (references taken afresh).
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0', batchSize: 3, maxAge: 0 });
    const encoder = remoteWrite({ name: 'up', metricType: 'gauge', help: 'Up.', remoteWriteProtocol: '2.0' });
    const pods = Array.from({ length: 6 }, (_, k) => seriesOf({ pod: `p${k}`, zone: k % 2 ? 'odd' : 'even' }));
    const expected: string[] = [];
    let next = 0;
    for (const size of [6, 6, 6, 6, 4, 5, 6, 6, 6, 6, 3, 6, 6, 6]) {
      const rows = Array.from({ length: size }, () => next++);
      // Now and then an exemplar (ids of its own) between the rows.
      const exemplars = rows.map((row) =>
        row > 30 && row % 4 === 0
          ? { traceId: hexId(row, 32), spanId: hexId(row, 16), value: row, timestamp: T0 + row }
          : undefined,
      );
      const batch = {
        ...sampleBatch({ anchor: T0, values: rows, offsets: rows, series: rows.map((row) => pods[row % 6]!) }),
        exemplars: exemplarRows(exemplars),
      };
      sink.write(encoder.encode(batch));
      rows.forEach((row, k) => {
        const pod = row % 6;
        expected.push(`p${pod} ${pod % 2 ? 'odd' : 'even'} ${row}@${T0 + row} ${exemplars[k]?.traceId ?? '-'}`);
      });
    }
    await sink.close();

    expect(receiver.v2.length).to.be.at.least(next / 3);
    const got = receiver.v2.flatMap((request) =>
      request.series.map(
        (s) =>
          `${s.labels.pod} ${s.labels.zone} ${s.samples.map((p) => `${p.value}@${p.timestamp}`)} ${s.exemplars[0]?.labels.trace_id ?? '-'}`,
      ),
    );
    expect(got).to.deep.equal(expected);
    for (const request of receiver.v2) {
      expect(new Set(request.symbols).size).to.equal(request.symbols.length);
      for (const s of request.series) {
        expect(s.labels.__name__).to.equal('up');
        expect(s.metadata.help).to.equal('Up.');
      }
    }
    // References stay put from request to request: each request carries the sink's table up to the last
    // string it uses, so of two requests' symbols the shorter starts the longer.
    receiver.v2.slice(1).forEach(({ symbols }, k) => {
      const before = receiver.v2[k]!.symbols;
      const [shorter, longer] = symbols.length < before.length ? [symbols, before] : [before, symbols];
      expect(longer.slice(0, shorter.length)).to.deep.equal(shorter);
    });
  });

  it('keeps its symbol table bounded under labels that never repeat: a request carries at most twice the strings of the request before it, 16 KiB and its own', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0', batchSize: 100, maxAge: 0 });
    const encoder = remoteWrite({ name: 'up', metricType: 'gauge', remoteWriteProtocol: '2.0' });
    const requests = 60;
    // Each request's new strings outgrow the room kept for them in front of its rows.
    const pod = (k: number, j: number) => `pod-${k}-${j}-${'x'.repeat(40)}`;
    for (let k = 0; k < requests; k++) {
      const series = Array.from({ length: 100 }, (_, j) => seriesOf({ pod: pod(k, j), zone: 'z' }));
      sink.write(encoder.encode(sampleBatch({ anchor: T0, values: series.map((_, j) => j), series })));
    }
    await sink.close();

    expect(receiver.v2).to.have.length(requests);
    const fields = (strings: Iterable<string>) => [...strings].reduce((n, text) => n + 2 + Buffer.byteLength(text), 0);
    // The strings a request uses: its label names and values, and the help string (empty).
    const used = receiver.v2.map((request) =>
      fields(new Set(['', ...request.series.flatMap((s) => Object.entries(s.labels).flat())])),
    );
    receiver.v2.forEach((request, k) => {
      expect(request.series.map((s) => s.labels.pod)).to.deep.equal(Array.from({ length: 100 }, (_, j) => pod(k, j)));
      const carried = fields(request.symbols);
      expect(carried).to.be.at.most((k ? 2 * used[k - 1]! + SYMBOLS_SLACK : 0) + used[k]!);
    });
    // 6,000 pods sent, never a sixth of them in one request's table: it started afresh, again and again.
    const sizes = receiver.v2.map((request) => request.symbols.length);
    expect(Math.max(...sizes)).to.be.below(1000);
    expect(sizes.filter((size, k) => k > 0 && size < sizes[k - 1]!).length).to.be.at.least(5);
  });

  it('keeps the references of series that come back, request after request, when the table holds them all', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0', batchSize: 100, maxAge: 0 });
    const encoder = remoteWrite({ name: 'up', metricType: 'gauge', remoteWriteProtocol: '2.0' });
    // 300 series in requests of 100: each request carries the strings of the requests before it in the cycle.
    const series = Array.from({ length: 300 }, (_, j) => seriesOf({ pod: `pod-${j}` }));
    for (let k = 0; k < 12; k++) {
      const rows = series.slice((k % 3) * 100, (k % 3) * 100 + 100);
      sink.write(encoder.encode(sampleBatch({ anchor: T0 + k, values: rows.map((_, j) => j), series: rows })));
    }
    await sink.close();

    expect(receiver.v2).to.have.length(12);
    const table = receiver.v2[2]!.symbols;
    expect(table).to.have.length(1 + 3 + 300);
    // From the third request on, each carries the table up to its cycle's last pod: the same strings, numbered alike.
    receiver.v2.slice(2).forEach((request, k) => {
      expect(request.symbols).to.deep.equal(table.slice(0, request.symbols.length));
      expect(request.series.map((s) => s.labels.pod)).to.deep.equal(
        series.slice(((k + 2) % 3) * 100, ((k + 2) % 3) * 100 + 100).map((s) => s.labels.pod),
      );
    });
  });

  it('the statistics sum what the receiver said it wrote, across requests', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0', batchSize: 2 });
    const stats = new EntryStats(0);
    sink.reports!.subscribe((r) => stats.record(r as Delivery, 0));
    const series = [seriesOf({ pod: 'a' }), seriesOf({ pod: 'b' }), seriesOf({ pod: 'c' })];
    sink.write(
      remoteWrite({ name: 'up', remoteWriteProtocol: '2.0' }).encode(sampleBatch({ values: [1, 1, 1], series })),
    );
    await sink.close();
    expect(receiver.v2).to.have.length(2);
    expect(stats.snapshot(0).receiver_written).to.deep.equal({ samples: 3, histograms: 0, exemplars: 0 });
  });

  it('falls back to 1.0 on 415 for the rest of the run, with one warning, re-sending the refused request: nothing is lost', async () => {
    receiver = await startRemoteWriteV2Receiver({ refuseV2: true });
    const sink = remoteWriteSink({ url: receiver.url, protocol: '2.0', batchSize: 2 });
    const reports = reportsOf(sink);
    const encoder = remoteWrite({ name: 'up', remoteWriteProtocol: '2.0' });
    const series = [seriesOf({ pod: 'a' }), seriesOf({ pod: 'b' }), seriesOf({ pod: 'c' })];
    sink.write(encoder.encode(sampleBatch({ anchor: T0, values: [1, 2, 3], series })));
    sink.write(encoder.encode(sampleBatch({ anchor: T0 + 10, values: [4], series: series[0]! })));
    await sink.close();

    expect(receiver.v2).to.have.length(0);
    expect(v1Rows(receiver.v1)).to.deep.equal([
      `__name__=up,pod=a 1@${T0}`,
      `__name__=up,pod=b 2@${T0 + 1}`,
      `__name__=up,pod=c 3@${T0 + 2}`,
      `__name__=up,pod=a 4@${T0 + 10}`,
    ]);
    const warnings = reports.filter((r) => r.kind === 'warning');
    expect(warnings).to.have.length(1);
    expect(warnings[0])
      .to.have.property('message')
      .that.matches(/does not take remote write 2\.0 .*415.*sending 1\.0 from now on/);
    expect(reports.filter((r) => r.kind === 'failed')).to.deep.equal([]);
    expect(
      reports.filter((r) => r.kind === 'delivered').reduce((n, r) => n + (r as { size: number }).size, 0),
    ).to.equal(4);
  });

  it('protocol 1.0 (the default) sends what it always sent: WriteRequests with the 1.0 headers', async () => {
    receiver = await startRemoteWriteV2Receiver();
    const sink = createSink({ type: 'remote_write', url: receiver.url });
    sink.write(
      remoteWrite({ name: 'up' }).encode(sampleBatch({ anchor: T0, values: [1], series: seriesOf({ pod: 'a' }) })),
    );
    await sink.close();
    expect(receiver.v2).to.have.length(0);
    expect(v1Rows(receiver.v1)).to.deep.equal([`__name__=up,pod=a 1@${T0}`]);
  });
});

describe('joinedBlocks', () => {
  it('joins two snappy blocks into one that Google snappy and snappyjs both read as the two data in turn', async () => {
    const snappy = await import('snappy');
    const { uncompress } = await import('snappyjs');
    // Repetitive data (copies inside each block), and a second part long enough for a multi-byte length.
    const a = Buffer.from(`${'abcabcabc'.repeat(50)}symbols`);
    const b = Buffer.from(Array.from({ length: 3000 }, (_, k) => `row ${k % 7};`).join(''));
    const joined = joinedBlocks(snappy.compressSync(a), snappy.compressSync(b));
    const expected = Buffer.concat([a, b]);
    expect(Buffer.from(snappy.uncompressSync(joined) as Buffer)).to.deep.equal(expected);
    expect(Buffer.from(uncompress(joined))).to.deep.equal(expected);
    expect(
      Buffer.from(uncompress(joinedBlocks(snappy.compressSync(Buffer.alloc(0)), snappy.compressSync(b)))),
    ).to.deep.equal(b);
  });
});

describe('the 2.0 receiver of the specs', () => {
  it('reads a request that protobufjs encodes from the declaration, and resolves its references', async () => {
    const { V2Request } = await import('../support/backends/remote-write-v2-receiver.js');
    const body = V2Request.encode({
      symbols: ['', '__name__', 'up'],
      timeseries: [{ labelsRefs: [1, 2], samples: [{ value: 1, timestamp: 5 }] }],
    }).finish();
    const receiver = await startRemoteWriteV2Receiver();
    try {
      const { compressSync } = await import('snappy');
      const answer = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request' },
        body: compressSync(Buffer.from(body)),
      });
      expect(answer.status).to.equal(204);
      expect(answer.headers.get('x-prometheus-remote-write-samples-written')).to.equal('1');
      expect(receiver.v2[0]!.series[0]!.labels).to.deep.equal({ __name__: 'up' });
    } finally {
      await receiver.stop();
    }
  });
});

/** `n` as an id of `digits` hex digits. */
const hexId = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
