import { expect } from 'chai';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import { seriesOf } from '../../../operators/model/series.js';
import { metricsText } from '../../../lib/encoders/metrics-text.js';
import { lokiPushes } from '../../../lib/sinks/framing/loki-push.js';
import { chunk, sampleBatch } from '../../support/batches.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');
const encoder = metricsText({ name: 'm' });
const a = seriesOf({ pod: 'a', team: 'x' });
const b = seriesOf({ pod: 'b', team: 'x' });
const c = seriesOf({ pod: 'c', team: 'x' });

/** A chunk of metrics_text lines for values 0, 1, 2, … with the given series, 1 ms apart. */
function linesChunk(series: (typeof a)[], first = 0): EncodedBatch {
  const batch = sampleBatch({
    values: series.map((_, i) => first + i),
    anchor: JAN_1,
    offsets: series.map((_, i) => first + i),
    series,
  });
  return encoder.encode(batch);
}

interface Body {
  streams: { stream: Record<string, string>; values: [string, string][] }[];
}
const parse = (body: string) => JSON.parse(body) as Body;

describe('lokiPushes (logstore push bodies)', () => {
  it('puts every line in the stream of its label set, stamped with its event time in ns', () => {
    const [push, ...more] = lokiPushes(128)([linesChunk([a, b, a])]);
    expect(more).to.deep.equal([]);
    expect(parse(push!.body)).to.deep.equal({
      streams: [
        {
          stream: { pod: 'a', team: 'x' },
          values: [
            [`${JAN_1}000000`, `m{pod="a",team="x"} 0 ${JAN_1}`],
            [`${JAN_1 + 2}000000`, `m{pod="a",team="x"} 2 ${JAN_1 + 2}`],
          ],
        },
        { stream: { pod: 'b', team: 'x' }, values: [[`${JAN_1 + 1}000000`, `m{pod="b",team="x"} 1 ${JAN_1 + 1}`]] },
      ],
    });
    expect(push).to.include({ streams: 2, size: 3, bytes: Buffer.byteLength(push!.body) });
  });

  it('groups across the chunks of one batch', () => {
    const [push] = lokiPushes(128)([linesChunk([a]), linesChunk([a, b], 1)]);
    const streams = parse(push!.body).streams;
    expect(streams.map((s) => [s.stream.pod, s.values.length])).to.deep.equal([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('splits a flush with more streams than max_streams_per_push into several pushes', () => {
    const pushes = lokiPushes(2)([linesChunk([a, b, c, a, b, c])]);
    expect(pushes.map((p) => p.streams)).to.deep.equal([2, 1]);
    const all = pushes.flatMap((p) => parse(p.body).streams);
    expect(all.map((s) => s.stream.pod)).to.deep.equal(['a', 'b', 'c']);
    expect(all.flatMap((s) => s.values)).to.have.length(6);
    expect(pushes.reduce((n, p) => n + p.size, 0)).to.equal(6);
  });

  it('keeps the lines of a multi-line event together, with its labels and time', () => {
    const data = 'a-line-1\na-line-2\nb-line-1\nb-line-2\n';
    const [push] = lokiPushes(128)([chunk(data, 2, { series: [a, a, b, b], times: [JAN_1, JAN_1, JAN_1, JAN_1] })]);
    const streams = parse(push!.body).streams;
    expect(streams[0]).to.deep.equal({
      stream: { pod: 'a', team: 'x' },
      values: [
        [`${JAN_1}000000`, 'a-line-1'],
        [`${JAN_1}000000`, 'a-line-2'],
      ],
    });
    expect(streams[1]!.values.map((v) => v[1])).to.deep.equal(['b-line-1', 'b-line-2']);
  });

  it('escapes lines and label values as JSON', () => {
    const odd = seriesOf({ msg: 'say "hi"\\n' });
    const [push] = lokiPushes(128)([chunk('tab\there "quoted" é\n', 1, { series: [odd], times: [JAN_1] })]);
    expect(parse(push!.body).streams[0]).to.deep.equal({
      stream: { msg: 'say "hi"\\n' },
      values: [[`${JAN_1}000000`, 'tab\there "quoted" é']],
    });
  });

  it('stamps ticks 100 ns apart (10 million events/s) with their own times: an epoch time in ms as a double keeps only about 244 ns', () => {
    const n = 20;
    const data = 'same\n'.repeat(n);
    const frames = {
      ends: Array.from({ length: n }, (_, i) => 5 * (i + 1)),
      separator: 1,
      perEvent: 1,
      series: Array.from({ length: n }, () => a),
      anchor: JAN_1,
      offset: Float64Array.from({ length: n }, (_, i) => 0.9999 + i * 1e-4),
    };
    const [push] = lokiPushes(128)([{ size: n, data, bytes: data.length, frames }]);
    const times = parse(push!.body).streams[0]!.values.map((v) => v[0]);
    // Loki keeps one of two entries of a stream with the same time and line: each must have its own time.
    expect(times).to.deep.equal(
      Array.from({ length: n }, (_, i) => {
        const ns = 999_900 + i * 100;
        return `${JAN_1 + Math.floor(ns / 1e6)}${String(ns % 1e6).padStart(6, '0')}`;
      }),
    );
  });

  it('stamps a time before 1970 with its own nanoseconds, counted back towards 0 (as influx_lp writes them)', () => {
    const data = 'old\n';
    const frames = { ends: [4], separator: 1, perEvent: 1, series: [a], anchor: -2, offset: Float64Array.of(0.5) };
    const [push] = lokiPushes(128)([{ size: 1, data, bytes: data.length, frames }]);
    // 1.5 ms before the epoch; the millisecond and nanosecond digits side by side made -2500000.
    expect(parse(push!.body).streams[0]!.values).to.deep.equal([['-1500000', 'old']]);
  });

  it('takes records from the frames, not from line feeds: a record spanning lines stays one value of its stream', () => {
    const trace = 'Error: boom\n    at run (job.js:1:1)';
    const data = `${trace}\nnext\n`;
    const frames = {
      ends: [trace.length + 1, data.length],
      separator: 1,
      perEvent: 1,
      series: [a, b],
      anchor: JAN_1,
      offset: Float64Array.of(0, 1),
    };
    const [push] = lokiPushes(128)([{ size: 2, data, bytes: data.length, frames }]);
    expect(parse(push!.body).streams).to.deep.equal([
      { stream: { pod: 'a', team: 'x' }, values: [[`${JAN_1}000000`, trace]] },
      { stream: { pod: 'b', team: 'x' }, values: [[`${JAN_1 + 1}000000`, 'next']] },
    ]);
    expect(push!.size).to.equal(2);
  });
});
