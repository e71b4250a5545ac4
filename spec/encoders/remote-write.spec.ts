import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import { expect } from 'chai';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { writeRequestMessages } from '../../lib/protocols/remote-write.js';
import { v1Records } from '../../lib/protocols/remote-write-v2.js';
import { exemplarRows, recordOf, type EncodedBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { collectGarbage } from '../support/memory.js';

const T0 = Date.UTC(2024, 0, 1); // 1704067200000

interface Decoded {
  timeseries: {
    labels: { name: string; value: string }[];
    samples: { value: number; timestamp: { toString(): string } }[];
  }[];
  metadata: { type: number; metricFamilyName: string; help: string; unit: string }[];
}

function decode(bytes: Uint8Array): Decoded {
  const { WriteRequest } = writeRequestMessages();
  return WriteRequest.toObject(WriteRequest.decode(bytes), { defaults: true, arrays: true }) as unknown as Decoded;
}

/** Each time series as `name{labels…} value @timestamp`, labels in their wire order. */
function rows(bytes: Uint8Array): string[] {
  return decode(bytes).timeseries.map(
    (ts) =>
      `${ts.labels.map((l) => `${l.name}=${l.value}`).join(',')} ${ts.samples.map((s) => `${s.value}@${s.timestamp.toString()}`).join(' ')}`,
  );
}

describe('remoteWrite encoder', () => {
  it("keeps each series' bytes in memory of their own, not in the slabs of the short-lived buffers made around them", () => {
    const used = () => {
      collectGarbage();
      const { heapUsed, external } = process.memoryUsage();
      // Buffers' memory is outside the heap.
      return heapUsed + external;
    };
    const encoder = remoteWrite({ name: 'request_duration_seconds' });
    const series = Array.from({ length: 20_000 }, (_, n) => seriesOf({ pod: `pod-${n}`, zone: 'eu-west-1a' }));
    used();
    const before = used();
    // One series a batch, as a histogram entry of many label sets meets them, and between batches the small
    // short-lived buffers a server makes (a sink's request, a log line), cut from the same pool slabs.
    let encoded = 0;
    for (const [n, one] of series.entries()) {
      encoded += encoder.encode(sampleBatch({ anchor: T0 + n, values: [n], series: one })).bytes;
      Buffer.from(`request ${n}`.padEnd(1000));
    }
    const kept = used() - before;
    // Before, the kept series pinned every slab they were cut from, with the garbage around them: 55 MB here
    // (the 20 MB of those buffers, and more), 8 MB now.
    expect(kept).to.be.below(10 * encoded);
    // The bytes are kept as long as their series lives.
    expect(series).to.have.length(20_000);
  });

  it('writes one TimeSeries per sample: labels sorted by name with __name__, the value, the millisecond timestamp', () => {
    const series = seriesOf({ zone: 'b', app: 'api' });
    const chunk = remoteWrite({ name: 'queue_depth' }).encode(
      sampleBatch({ anchor: T0, offsets: [0, 250.7], values: [1, -0.5], series }),
    );
    expect(rows(chunk.data as Uint8Array)).to.deep.equal([
      '__name__=queue_depth,app=api,zone=b 1@1704067200000',
      '__name__=queue_depth,app=api,zone=b -0.5@1704067200250',
    ]);
    expect(chunk.size).to.equal(2);
  });

  it('writes a lone surrogate in a label value or the help as U+FFFD, as the 2.0 symbols and text do: UTF-8, not CESU-8', () => {
    const encoder = remoteWrite({ name: 'up', help: 'half \ud800' });
    const chunk = encoder.encode(sampleBatch({ anchor: T0, values: [1], series: seriesOf({ k: 'a\udc00b' }) }));
    const bytes = Buffer.concat([chunk.preamble!, chunk.data]);
    // protobufjs' own UTF-8 writes a lone surrogate as ED B0 80 (ED A0 80 for \ud800), which no UTF-8 reader takes.
    expect(bytes.includes(Buffer.from([0xed, 0xb0, 0x80]))).to.equal(false);
    expect(bytes.includes(Buffer.from([0xed, 0xa0, 0x80]))).to.equal(false);
    expect(rows(chunk.data)).to.deep.equal([`__name__=up,k=a\ufffdb 1@${T0}`]);
    expect(decode(chunk.preamble!).metadata[0]!.help).to.equal('half \ufffd');
  });

  it('sorts by byte order, as the protocol requires: a capitalised label name comes before __name__', () => {
    const chunk = remoteWrite({ name: 'm' }).encode(
      sampleBatch({ values: [1], series: seriesOf({ Host: 'a', env: 'p' }) }),
    );
    expect(rows(chunk.data as Uint8Array)).to.deep.equal(['Host=a,__name__=m,env=p 1@0']);
  });

  it('writes any timestamp, whatever its varint length: the epoch, today, before 1970, one series through all of them', () => {
    const encoder = remoteWrite({ name: 'm' });
    const series = seriesOf({ pod: 'a' });
    const times = [0, 5, T0, -1_000, T0 + 1];
    const out = times.map(
      (anchor) => rows(encoder.encode(sampleBatch({ anchor, values: [anchor], series })).data as Uint8Array)[0],
    );
    expect(out).to.deep.equal(times.map((t) => `__name__=m,pod=a ${t}@${t}`));
  });

  it('grows its buffer for rows longer than it guessed', () => {
    const series = seriesOf({ long: 'x'.repeat(500) });
    const chunk = remoteWrite({ name: 'm' }).encode(sampleBatch({ values: [1, 2, 3], series }));
    expect(rows(chunk.data as Uint8Array).map((row) => row.slice(-3))).to.deep.equal(['1@0', '2@1', '3@2']);
  });

  it('carries NaN and infinities as doubles', () => {
    const chunk = remoteWrite({ name: 'm' }).encode(sampleBatch({ values: [Infinity, -Infinity, NaN] }));
    expect(decode(chunk.data as Uint8Array).timeseries.map((ts) => ts.samples[0]!.value)).to.deep.equal([
      Infinity,
      -Infinity,
      NaN,
    ]);
  });

  it('frames every row as a record that is a WriteRequest of its own, so a sink may cut requests at any row', () => {
    const a = seriesOf({ pod: 'a' });
    const b = seriesOf({ pod: 'b' });
    const chunk = remoteWrite({ name: 'm' }).encode(
      sampleBatch({ anchor: T0, values: [1, 2, 3], series: [a, b, a] }),
    ) as EncodedBatch<Uint8Array>;
    expect(chunk.frames.ends).to.have.length(3);
    expect(chunk.frames.separator).to.equal(0);
    expect(chunk.frames.ends[2]).to.equal(chunk.data.byteLength);
    expect([0, 1, 2].map((i) => rows(recordOf(chunk, i))[0])).to.deep.equal(rows(chunk.data));
    expect(chunk.frames.series).to.deep.equal([a, b, a]);
  });

  it('names each row of a histogram series set by its suffix and keeps the set as one event', () => {
    const base = { svc: 'api' };
    const set = [
      seriesOf({ ...base, le: '0.1' }, '_bucket'),
      seriesOf({ ...base, le: '+Inf' }, '_bucket'),
      seriesOf(base, '_sum'),
      seriesOf(base, '_count'),
    ];
    const batch = {
      ...sampleBatch({ anchor: T0, offsets: [0, 0, 0, 0], values: [3, 5, 0.4, 5], series: set }),
      events: 1,
    };
    const chunk = remoteWrite({ name: 'latency_seconds', metricType: 'histogram' }).encode(batch);
    expect(rows(chunk.data as Uint8Array)).to.deep.equal([
      '__name__=latency_seconds_bucket,le=0.1,svc=api 3@1704067200000',
      '__name__=latency_seconds_bucket,le=+Inf,svc=api 5@1704067200000',
      '__name__=latency_seconds_sum,svc=api 0.4@1704067200000',
      '__name__=latency_seconds_count,svc=api 5@1704067200000',
    ]);
    expect([chunk.size, chunk.frames.perEvent]).to.deep.equal([1, 4]);
  });

  it('hands the metric metadata (type from metric_type, help) as the preamble, one object for every chunk', () => {
    const encoder = remoteWrite({ name: 'jobs_total', metricType: 'counter', help: 'Jobs done.' });
    const first = encoder.encode(sampleBatch({ values: [1] }));
    const second = encoder.encode(sampleBatch({ values: [2] }));
    expect(second.preamble).to.equal(first.preamble);
    expect(decode(first.preamble as Uint8Array)).to.deep.equal({
      timeseries: [],
      metadata: [{ type: 1, metricFamilyName: 'jobs_total', help: 'Jobs done.', unit: '' }],
    });
    const types = (['gauge', 'histogram', 'summary', 'untyped'] as const).map(
      (metricType) =>
        decode(remoteWrite({ name: 'm', metricType }).encode(sampleBatch({ values: [1] })).preamble as Uint8Array)
          .metadata[0]!.type,
    );
    expect(types).to.deep.equal([2, 3, 5, 0]);
  });

  it("hands the base unit the family name ends with in the metadata, a counter's name read without _total", () => {
    const unitOf = (name: string, metricType: 'counter' | 'gauge' | 'histogram') =>
      decode(remoteWrite({ name, metricType }).encode(sampleBatch({ values: [1] })).preamble as Uint8Array).metadata[0]!
        .unit;
    expect([
      unitOf('cpu_seconds_total', 'counter'),
      unitOf('request_duration_seconds', 'histogram'),
      unitOf('heap_bytes', 'gauge'),
      unitOf('requests_total', 'counter'),
      unitOf('seconds', 'gauge'),
    ]).to.deep.equal(['seconds', 'seconds', 'bytes', '', '']);
  });

  it('gives a chunk without rows no records', () => {
    const chunk = remoteWrite({ name: 'm' }).encode(sampleBatch({ values: [] }));
    expect([chunk.size, chunk.frames.ends.length, (chunk.data as Uint8Array).byteLength]).to.deep.equal([0, 0, 0]);
  });
});

describe('remoteWrite encoder: native histograms and exemplars', () => {
  const native: NativeHistogram = {
    schema: 0,
    zeroThreshold: 0.001,
    zeroCount: 1,
    count: 9,
    sum: 20.5,
    positiveSpans: [
      { offset: -1, length: 2 },
      { offset: 3, length: 1 },
    ],
    positiveCounts: [2, 5, 1],
    negativeSpans: [{ offset: 0, length: 1 }],
    negativeCounts: [0],
  };

  it('writes a native row as the series without suffix holding one integer histogram, counts as deltas', () => {
    const batch = {
      ...sampleBatch({ anchor: T0, values: [9, 9], series: [seriesOf({ job: 'a' }), seriesOf({ job: 'a' })] }),
      native: [native, undefined],
    };
    const chunk = remoteWrite({ name: 'lat' }).encode(batch);
    const { WriteRequest } = writeRequestMessages();
    const decoded = WriteRequest.toObject(WriteRequest.decode(chunk.data as Uint8Array), {
      longs: Number,
      arrays: true,
      defaults: true,
    }) as { timeseries: { labels: unknown[]; samples: unknown[]; histograms: Record<string, unknown>[] }[] };
    const [histogramRow, plainRow] = decoded.timeseries;
    expect(histogramRow!.samples).to.deep.equal([]);
    expect(histogramRow!.labels).to.deep.equal([
      { name: '__name__', value: 'lat' },
      { name: 'job', value: 'a' },
    ]);
    expect(histogramRow!.histograms).to.deep.equal([
      {
        countInt: 9,
        sum: 20.5,
        schema: 0,
        zeroThreshold: 0.001,
        zeroCountInt: 1,
        negativeSpans: [{ offset: 0, length: 1 }],
        negativeDeltas: [0],
        positiveSpans: [
          { offset: -1, length: 2 },
          { offset: 3, length: 1 },
        ],
        positiveDeltas: [2, 3, -4],
        timestamp: T0,
      },
    ]);
    expect(plainRow!.samples).to.have.length(1);
    // Each row is a record of its own: the frames cut the chunk where the decoder finds them.
    expect(chunk.frames.ends).to.have.length(2);
    expect(rows((chunk.data as Uint8Array).subarray(chunk.frames.ends[0]!))).to.deep.equal([
      `__name__=lat,job=a 9@${T0 + 1}`,
    ]);
  });

  it('adds a row’s exemplar to its series, with trace_id and span_id labels, and keeps its sample', () => {
    const exemplar = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), value: 0.3, timestamp: T0 + 5 };
    const chunk = remoteWrite({ name: 'm' }).encode({
      ...sampleBatch({ anchor: T0, values: [4] }),
      exemplars: exemplarRows([exemplar]),
    });
    const { WriteRequest } = writeRequestMessages();
    const decoded = WriteRequest.toObject(WriteRequest.decode(chunk.data as Uint8Array), {
      longs: Number,
      arrays: true,
    }) as { timeseries: { samples: unknown[]; exemplars: unknown[] }[] };
    expect(decoded.timeseries[0]!.samples).to.deep.equal([{ value: 4, timestamp: T0 }]);
    expect(decoded.timeseries[0]!.exemplars).to.deep.equal([
      {
        labels: [
          { name: 'trace_id', value: exemplar.traceId },
          { name: 'span_id', value: exemplar.spanId },
        ],
        value: 0.3,
        timestamp: T0 + 5,
      },
    ]);
  });

  it('for a 2.0 sink measures its records without writing them, and writes any run of them from its rows as 1.0 does', () => {
    const exemplar = { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), value: 0.3, timestamp: T0 + 5 };
    const batch = {
      ...sampleBatch({
        anchor: 0,
        values: [9, 4, 1, 2],
        offsets: [T0, T0, 5, T0 + 1],
        series: [seriesOf({ job: 'a' }), seriesOf({ job: 'b' }), seriesOf({ job: 'c' }), seriesOf({ job: 'a' })],
      }),
      native: [native, undefined, undefined, undefined],
      exemplars: exemplarRows([undefined, exemplar, undefined, exemplar]),
    };
    const v1 = remoteWrite({ name: 'lat', metricType: 'histogram' }).encode(batch);
    const v2 = remoteWrite({ name: 'lat', metricType: 'histogram', remoteWriteProtocol: '2.0' }).encode(batch);
    expect(v2.data).to.have.length(0);
    expect(v2.bytes).to.equal(v1.bytes).and.to.equal(v1.data.length);
    expect(v2.frames.ends).to.deep.equal(v1.frames.ends);
    expect(v2.preamble).to.deep.equal(v1.preamble);
    const { ends } = v1.frames;
    for (const [from, to] of [
      [0, 4],
      [0, 1],
      [1, 3],
      [2, 4],
      [3, 4],
    ] as const) {
      const records = Buffer.from(v1.data.subarray(from === 0 ? 0 : ends[from - 1], ends[to - 1]));
      expect(Buffer.from(v1Records(v2, from, to)), `records ${from} to ${to}`).to.deep.equal(records);
      expect(Buffer.from(v1Records(v1, from, to))).to.deep.equal(records);
    }
  });
});
