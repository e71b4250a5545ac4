import { expect } from 'chai';
import fc from 'fast-check';
import { metricsText } from '../../lib/encoders/metrics-text.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';

const T0 = Date.UTC(2024, 0, 1); // 1704067200000

describe('metricsText', () => {
  it('writes one line per sample: name{labels} value timestamp_ms', () => {
    const series = seriesOf({ method: 'GET', app: 'api' });
    const out = metricsText({ name: 'http_requests' })
      .encode(sampleBatch({ anchor: T0, offsets: [0, 250], values: [1, 0.5], series }))
      .data.toString();
    expect(out).to.equal(
      'http_requests{app="api",method="GET"} 1 1704067200000\n' +
        'http_requests{app="api",method="GET"} 0.5 1704067200250\n',
    );
  });

  it('writes no braces when the series has no labels', () => {
    const out = metricsText({ name: 'up' })
      .encode(sampleBatch({ anchor: T0, values: [1] }))
      .data.toString();
    expect(out).to.equal('up 1 1704067200000\n');
  });

  it('writes label values escaped as Series.key gives them', () => {
    const series = seriesOf({ msg: 'a "b"\nc\\d' });
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ values: [2], series }))
      .data.toString();
    expect(out).to.equal('m{msg="a \\"b\\"\\nc\\\\d"} 2 0\n');
  });

  it('switches prefix with the series of each tick', () => {
    const a = seriesOf({ pod: 'a' });
    const b = seriesOf({ pod: 'b' });
    const bare = seriesOf({});
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ values: [1, 2, 3, 4], series: [a, b, b, bare] }))
      .data.toString();
    expect(out).to.equal('m{pod="a"} 1 0\nm{pod="b"} 2 1\nm{pod="b"} 3 2\nm 4 3\n');
  });

  it("writes each series' own labels whatever order the series come in, repeating or not", () => {
    const [a, b, c] = ['a', 'b', 'c'].map((pod) => seriesOf({ pod }));
    const order = [a, b, a, c, a, b, b, c, a, c, c, b];
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ values: order.map((_, i) => i), series: order }))
      .data.toString();
    expect(out.split('\n').slice(0, -1)).to.deep.equal(order.map((s, i) => `m{${s!.key}} ${i} ${i}`));
  });

  it('writes runs of identical lines whole, each ending where its line ends, and ends a run at any change', () => {
    const [a, b] = ['a', 'b'].map((pod) => seriesOf({ pod }));
    const n = 2000;
    // The millisecond changes every 300 lines, the value every 350, the series every 500; one NaN.
    const offsets = Array.from({ length: n }, (_, i) => Math.floor(i / 300) + (i % 3) / 10);
    const values = Array.from({ length: n }, (_, i) => (i === 1234 ? NaN : Math.floor(i / 350) % 2));
    const series = Array.from({ length: n }, (_, i) => (Math.floor(i / 500) % 2 ? b! : a!));
    const chunk = metricsText({ name: 'm' }).encode(sampleBatch({ anchor: T0, offsets, values, series }));
    const lines = offsets.map((o, i) => `m{${series[i]!.key}} ${values[i]} ${T0 + Math.floor(o)}\n`);
    expect(chunk.data.toString()).to.equal(lines.join(''));
    let end = 0;
    expect(chunk.frames.ends).to.deep.equal(lines.map((line) => (end += line.length)));
  });

  it('writes +Inf, -Inf and NaN', () => {
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ values: [Infinity, -Infinity, NaN] }))
      .data.toString();
    expect(out).to.equal('m +Inf 0\nm -Inf 1\nm NaN 2\n');
  });

  it('writes values in the shortest round-trip form', () => {
    const values = [0, -0, 1, -3, 0.1, 1 / 3, 1e21, 5e-324, 123456789.125];
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ values, offsets: values.map(() => 0) }))
      .data.toString();
    expect(
      out
        .split('\n')
        .slice(0, -1)
        .map((l) => l.split(' ')[1]),
    ).to.deep.equal(['0', '0', '1', '-3', '0.1', '0.3333333333333333', '1e+21', '5e-324', '123456789.125']);
  });

  it('writes whole numbers as String does, at every size and sign', () => {
    const values = [0, -0, 1, 7, 10, 4096, 2 ** 31, Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 1e300, -1, -7, -(2 ** 40)];
    const out = metricsText({ name: 'm' }).encode(sampleBatch({ values })).data.toString();
    expect(
      out
        .split('\n')
        .slice(0, -1)
        .map((l) => l.split(' ')[1]),
    ).to.deep.equal(values.map(String));
  });

  it('round-trips every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        const line = metricsText({ name: 'm' })
          .encode(sampleBatch({ values: [v] }))
          .data.toString();
        expect(Number(line.split(' ')[1])).to.equal(v === 0 ? 0 : v);
      }),
    );
  });

  it('prints exactly `precision` decimals', () => {
    const enc = metricsText({ name: 'm', precision: 2 });
    const out = enc
      .encode(sampleBatch({ values: [1, 0.125, -2.5, 1 / 3, Infinity, NaN], offsets: [0, 0, 0, 0, 0, 0] }))
      .data.toString();
    expect(out).to.equal('m 1.00 0\nm 0.13 0\nm -2.50 0\nm 0.33 0\nm +Inf 0\nm NaN 0\n');
    expect(
      metricsText({ name: 'm', precision: 0 })
        .encode(sampleBatch({ values: [2.5] }))
        .data.toString(),
    ).to.equal('m 3 0\n');
  });

  it('rejects a precision toFixed cannot honour', () => {
    expect(() => metricsText({ name: 'm', precision: 1.5 })).to.throw(RangeError, /precision/);
    expect(() => metricsText({ name: 'm', precision: 101 })).to.throw(RangeError, /precision/);
  });

  it('floors fractional offsets to the millisecond and shares milliseconds', () => {
    const out = metricsText({ name: 'm' })
      .encode(sampleBatch({ anchor: T0, offsets: [0, 0.4, 0.999, 1, 1.5], values: [1, 2, 3, 4, 5] }))
      .data.toString();
    expect(
      out
        .split('\n')
        .slice(0, -1)
        .map((l) => l.split(' ')[2]),
    ).to.deep.equal(['1704067200000', '1704067200000', '1704067200000', '1704067200001', '1704067200001']);
  });

  it('keeps timestamps right across batches, whether the millisecond changes or not', () => {
    const enc = metricsText({ name: 'm' });
    expect(enc.encode(sampleBatch({ anchor: T0, offsets: [5, 5], values: [1, 2] })).data.toString()).to.equal(
      'm 1 1704067200005\nm 2 1704067200005\n',
    );
    expect(enc.encode(sampleBatch({ anchor: T0, offsets: [5.5, 6], values: [3, 4] })).data.toString()).to.equal(
      'm 3 1704067200005\nm 4 1704067200006\n',
    );
    // Another anchor (another entry sharing nothing but the encoder type) must not reuse a stale stamp.
    expect(enc.encode(sampleBatch({ anchor: T0 + 1000, offsets: [6], values: [5] })).data.toString()).to.equal(
      'm 5 1704067201006\n',
    );
  });

  it('encodes a batch the same however the stream was cut into batches', () => {
    const labels = [seriesOf({ a: '1' }), seriesOf({ a: '2' }), seriesOf({})];
    const tick = fc.record({ offset: fc.double({ min: 0, max: 50, noNaN: true }), value: fc.double(), s: fc.nat(2) });
    fc.assert(
      fc.property(fc.array(tick, { minLength: 1, maxLength: 40 }), fc.nat(40), (ticks, cut) => {
        ticks.sort((x, y) => x.offset - y.offset);
        const batch = (t: typeof ticks) =>
          sampleBatch({
            anchor: T0,
            offsets: t.map((x) => x.offset),
            values: t.map((x) => x.value),
            series: t.map((x) => labels[x.s]!),
          });
        const whole = metricsText({ name: 'm' }).encode(batch(ticks)).data.toString();
        const split = metricsText({ name: 'm' });
        const at = Math.min(cut, ticks.length);
        expect(
          split.encode(batch(ticks.slice(0, at))).data.toString() +
            split.encode(batch(ticks.slice(at))).data.toString(),
        ).to.equal(whole);
      }),
    );
  });

  it('encodes an empty batch as the empty string', () => {
    expect(
      metricsText({ name: 'm' })
        .encode(sampleBatch({ values: [] }))
        .data.toString(),
    ).to.equal('');
  });

  it('refuses options without a metric name, naming the field, instead of writing "undefined" as the name', () => {
    const untyped = (value: unknown): any => value;
    expect(() => metricsText(untyped('up'))).to.throw(TypeError, 'metricsText: options must be an object, got "up"');
    expect(() => metricsText(untyped(undefined))).to.throw(
      TypeError,
      'metricsText: options must be an object, got undefined',
    );
    expect(() => metricsText(untyped({ metric: 'up' }))).to.throw(
      TypeError,
      'metricsText: name must be a metric name (a string), got undefined',
    );
  });
});
