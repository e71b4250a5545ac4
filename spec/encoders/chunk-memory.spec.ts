import { expect } from 'chai';
import { otlpMetrics } from '../../lib/encoders/otlp.js';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { jsonLinesLogs } from '../../lib/encoders/json-lines-logs.js';
import { metricsText } from '../../lib/encoders/metrics-text.js';
import { syslog } from '../../lib/encoders/syslog.js';
import type { EncodedBatch, Labelled, LogBatch, SampleBatch } from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import { seriesOf } from '../../operators/model/series.js';
import { logBatch, sampleBatch } from '../support/batches.js';
import { collectGarbage } from '../support/memory.js';
import { settle } from '../support/clock.js';

/**
 * A batch of `rows` short rows (about 40 bytes of labels each), as a metric entry with a `pod` label writes them;
 * its pod names padded to `podLength` characters.
 */
function podBatch(rows: number, anchor: number, podLength = 0): Labelled<SampleBatch> {
  const pods = Array.from({ length: 50 }, (_, n) =>
    seriesOf({ __name__: 'm', pod: `pod-${n}`.padEnd(podLength, 'x') }),
  );
  return sampleBatch({
    anchor,
    values: Array.from({ length: rows }, (_, i) => i),
    series: Array.from({ length: rows }, (_, i) => pods[i % pods.length]!),
  });
}

/** The memory a chunk's data keeps alive while a sink holds it: its whole buffer, not the view of it. */
function heldBytes(chunk: EncodedBatch): number {
  return typeof chunk.data === 'string' ? chunk.bytes : chunk.data.buffer.byteLength;
}

describe('binary encoders: what a chunk holds', () => {
  // A sink's bound counts `bytes`: a buffer guessed three times too large made a remote_write sink held back
  // by its receiver hold 10 MiB for its 4 MiB (docs/reliability.md, "Receivers that push back").
  const encoders = {
    remote_write: () => remoteWrite({ name: 'm' }),
    otlp: () => otlpMetrics({ name: 'm', metricType: 'gauge' }),
  };
  // Pod names of the first batch, then of the second: the same; longer (rows past the guess grew the buffer, and
  // doubled it); shorter (the guess, from the first batch, too large).
  const podLengths = { 'as long': [6, 6], longer: [6, 16], 'much longer': [6, 30], shorter: [30, 6] };
  for (const [name, make] of Object.entries(encoders)) {
    for (const [change, [first, second]] of Object.entries(podLengths)) {
      it(`${name}: a second batch of rows ${change}: a chunk's buffer is its bytes and a few bytes a row`, () => {
        const encoder = make();
        // Rows many enough that the buffer is one of its own, not cut from Node's pool slab.
        encoder.encode(podBatch(1000, 0, first));
        const chunk = encoder.encode(podBatch(1000, 1000, second));
        expect(chunk.bytes).to.be.above(0);
        expect(heldBytes(chunk)).to.be.at.most(chunk.bytes + 16 * 1000);
      });
    }
    it(`${name}: the first batch, whose rows are guessed: a chunk's buffer is its bytes and a few bytes a row`, () => {
      const chunk = make().encode(podBatch(1000, 0));
      expect(heldBytes(chunk)).to.be.at.most(chunk.bytes + 16 * 1000);
    });

    it(`${name}: a chunk of a few rows keeps a buffer of its own, not a slice of Node's 8 KiB pool`, () => {
      // A held slice kept its whole slab alive, and with it the short-lived buffers cut from it after: 20
      // remote_write sinks held back by their receiver held 15 MiB more (docs/reliability.md).
      const encoder = make();
      encoder.encode(podBatch(20, 0));
      const chunk = encoder.encode(podBatch(20, 1000));
      expect(chunk.bytes).to.be.within(1, 4096);
      expect(heldBytes(chunk)).to.equal(chunk.bytes);
    });
  }
});

describe('remote_write encoder: what a chunk keeps of its batch', () => {
  /** Which of the batch's `index` and `value` columns (8 bytes a row each) outlive the batch while its chunk is held. */
  async function keptColumns(protocol: '1.0' | '2.0'): Promise<{ index: boolean; value: boolean }> {
    const encoder = remoteWrite({ name: 'm', remoteWriteProtocol: protocol });
    let batch: Labelled<SampleBatch> | undefined = podBatch(1000, 0);
    const index = new WeakRef(batch.index);
    const value = new WeakRef(batch.value);
    // Held, as a sink held back by its receiver holds it.
    const chunk = encoder.encode(batch);
    batch = undefined;
    // A WeakRef holds its target until the current job ends.
    await settle();
    collectGarbage();
    expect(chunk.bytes).to.be.above(0);
    return { index: index.deref() !== undefined, value: value.deref() !== undefined };
  }

  it('for a 1.0 sink, none of its columns beyond those its frames share: nothing rewrites its records', async () => {
    // Before, every chunk kept the whole batch for a 2.0 request it would never be part of: 16 bytes a row, 28 MiB
    // across 20 held-back sinks (docs/reliability.md, "What a held-back sink really holds").
    expect(await keptColumns('1.0')).to.deep.equal({ index: false, value: false });
  });

  it('for a 2.0 sink, the columns its rows are written from, not the slot index', async () => {
    expect(await keptColumns('2.0')).to.deep.equal({ index: false, value: true });
  });
});

describe('sample-line encoders: what they keep of a batch once it is written', () => {
  it("none of the batch's buffer (nor the view its values were written through) once its chunk is dropped", async () => {
    const encoder = metricsText({ name: 'm' });
    // Values that are no integers: written through the view of the buffer (writeShortestAt). Rows many enough that the
    // buffer is one of its own, not cut from Node's pool slab.
    const batch = sampleBatch({
      values: Array.from({ length: 1000 }, (_, i) => i + 0.25),
      series: Array.from({ length: 1000 }, () => seriesOf({ pod: 'p' })),
    });
    expect(await bufferCollected(() => encoder.encode(batch)), "the batch's buffer is collected").to.equal(true);
  });
});

/** Whether the buffer of the chunk `encode` returns is collected once the chunk is dropped. */
async function bufferCollected(encode: () => EncodedBatch): Promise<boolean> {
  let chunk: EncodedBatch | undefined = encode();
  expect(chunk.data).to.be.instanceOf(Uint8Array);
  const buffer = new WeakRef((chunk.data as Uint8Array).buffer);
  chunk = undefined;
  // A WeakRef holds its target until the current job ends.
  await settle();
  collectGarbage();
  return buffer.deref() === undefined;
}

describe('log line encoders: what they keep of a batch once it is written', () => {
  const encoders = { json_lines: () => jsonLinesLogs(), syslog: () => syslog({ hostname: 'h' }) };
  // Records many enough that the buffer they are written into is one of its own, not cut from Node's pool slab.
  const records = () =>
    logBatch(Array.from({ length: 100 }, (_, i) => ({ severity: 'info', message: `m ${i}`, fields: { n: `${i}` } })));
  for (const [name, make] of Object.entries(encoders)) {
    it(`${name}: none of the columns its chunk does not share (severity, message, fields), not even until the next batch`, async () => {
      const encoder = make();
      let batch: Labelled<LogBatch> | undefined = records();
      const columns = {
        severity: new WeakRef(batch.severity),
        message: new WeakRef(batch.message),
        fields: new WeakRef(batch.fields),
      };
      // Held, as a sink held back by its receiver holds it.
      const chunk = encoder.encode(batch);
      batch = undefined;
      // A WeakRef holds its target until the current job ends.
      await settle();
      collectGarbage();
      expect(chunk.bytes).to.be.above(0);
      expect(
        Object.entries(columns)
          .filter(([, column]) => column.deref() !== undefined)
          .map(([column]) => column),
      ).to.deep.equal([]);
    });

    it(`${name}: none of the buffer its lines were written into once its chunk is dropped, not even until the next batch`, async () => {
      const encoder = make();
      expect(await bufferCollected(() => encoder.encode(records())), "the batch's buffer is collected").to.equal(true);
    });
  }
});

describe('OTLP histogram and summary encoders: what they keep of a batch once it is written', () => {
  const le = (bound: string) => seriesOf({ le: bound }, '_bucket');
  const native: NativeHistogram = {
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    count: 2,
    sum: 3,
    positiveSpans: [{ offset: 0, length: 1 }],
    positiveCounts: [2],
    negativeSpans: [],
    negativeCounts: [],
  };
  // The rows of one event of each; delta, whose previous point of a series outlives its batch. The encoder reads the
  // columns into one object a batch (PointColumns): it must not outlive the batch either.
  const kinds = {
    'explicit histogram': {
      metricType: 'histogram',
      rows: [le('1'), le('+Inf'), seriesOf({}, '_sum'), seriesOf({}, '_count')],
      values: [1, 2, 3, 2],
    },
    'exponential histogram': { metricType: 'histogram', rows: [seriesOf({})], values: [2], native },
    summary: {
      metricType: 'summary',
      rows: [seriesOf({ quantile: '0.5' }), seriesOf({}, '_sum'), seriesOf({}, '_count')],
      values: [1, 3, 2],
    },
  } as const;
  for (const [name, kind] of Object.entries(kinds))
    it(`${name}: none of the columns of the batch (its points are copied), not even until the next batch`, async () => {
      const encoder = otlpMetrics({ name: 'm', metricType: kind.metricType, temporality: 'delta' });
      const events = 100;
      let batch: Labelled<SampleBatch> | undefined = {
        ...sampleBatch({
          values: Array.from({ length: events }, () => kind.values).flat(),
          offsets: Array.from({ length: events }, (_, e) => kind.rows.map(() => e)).flat(),
          series: Array.from({ length: events }, () => kind.rows).flat(),
        }),
        events,
        ...('native' in kind && { native: new Array(events).fill(kind.native) }),
      };
      const columns = {
        offset: new WeakRef(batch.offset),
        value: new WeakRef(batch.value),
        series: new WeakRef(batch.series),
        ...(batch.native && { native: new WeakRef(batch.native) }),
      };
      // Held, as a sink held back by its receiver holds it.
      const chunk = encoder.encode(batch);
      batch = undefined;
      // A WeakRef holds its target until the current job ends.
      await settle();
      collectGarbage();
      expect(chunk.size).to.equal(events);
      expect(
        Object.entries(columns)
          .filter(([, column]) => column.deref() !== undefined)
          .map(([column]) => column),
      ).to.deep.equal([]);
    });
});
