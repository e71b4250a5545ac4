import { expect } from 'chai';
import fc from 'fast-check';
import { jsonLines } from '../../lib/encoders/json-lines.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';

const T0 = Date.UTC(2024, 0, 1);

describe('jsonLines (metrics)', () => {
  it('writes name, value, labels, timestamp in that order, one object per line', () => {
    const series = seriesOf({ zone: 'eu', app: 'api' });
    const out = jsonLines({ name: 'cpu' })
      .encode(sampleBatch({ anchor: T0, offsets: [0, 1234.9], values: [1, 0.5], series }))
      .data.toString();
    expect(out).to.equal(
      '{"name":"cpu","value":1,"labels":{"app":"api","zone":"eu"},"timestamp":"2024-01-01T00:00:00.000Z"}\n' +
        '{"name":"cpu","value":0.5,"labels":{"app":"api","zone":"eu"},"timestamp":"2024-01-01T00:00:01.234Z"}\n',
    );
  });

  it('writes an empty labels object for an unlabelled series', () => {
    const out = jsonLines({ name: 'up' })
      .encode(sampleBatch({ anchor: T0, values: [1] }))
      .data.toString();
    expect(out).to.equal('{"name":"up","value":1,"labels":{},"timestamp":"2024-01-01T00:00:00.000Z"}\n');
  });

  it('writes raw label values JSON-escaped, not text-format escaped', () => {
    const labels = { msg: 'a "b"\nc\\d', uni: 'é\u0001' };
    const out = jsonLines({ name: 'm' })
      .encode(sampleBatch({ values: [1], series: seriesOf(labels) }))
      .data.toString();
    expect(JSON.parse(out).labels).to.deep.equal(labels);
    expect(out).to.contain('"labels":{"msg":"a \\"b\\"\\nc\\\\d","uni":"é\\u0001"}');
  });

  it('writes NaN, +Inf and -Inf as strings', () => {
    const out = jsonLines({ name: 'm' })
      .encode(sampleBatch({ values: [NaN, Infinity, -Infinity], offsets: [0, 0, 0] }))
      .data.toString();
    const values = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).value);
    expect(values).to.deep.equal(['NaN', '+Inf', '-Inf']);
  });

  it('prints exactly `precision` decimals, still as JSON numbers', () => {
    const out = jsonLines({ name: 'm', precision: 3 })
      .encode(sampleBatch({ values: [2, 1 / 3] }))
      .data.toString();
    expect(out).to.contain('"value":2.000,').and.to.contain('"value":0.333,');
    expect(() =>
      out
        .trimEnd()
        .split('\n')
        .forEach((l) => JSON.parse(l)),
    ).not.to.throw();
  });

  it('emits valid JSON whose fields read back, for any value, name and labels (an empty label value is no label)', () => {
    const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,6}$/);
    fc.assert(
      fc.property(
        fc.string(),
        fc.dictionary(labelName, fc.string()),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: 0, max: 4e12 }),
        (name, labels, value, ms) => {
          const line = jsonLines({ name })
            .encode(sampleBatch({ anchor: ms, values: [value], series: seriesOf(labels) }))
            .data.toString();
          expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).to.equal(true);
          const parsed = JSON.parse(line);
          expect(Object.keys(parsed)).to.deep.equal(['name', 'value', 'labels', 'timestamp']);
          const written = Object.fromEntries(Object.entries(labels).filter(([, v]) => v !== ''));
          expect(parsed).to.deep.equal({
            name,
            value: value === 0 ? 0 : value,
            labels: written,
            timestamp: new Date(ms).toISOString(),
          });
          expect(Object.keys(parsed.labels)).to.deep.equal(Object.keys(written).sort());
        },
      ),
    );
  });

  it('keeps timestamps right across batches', () => {
    const enc = jsonLines({ name: 'm' });
    const stamps = (offsets: number[]) =>
      enc
        .encode(sampleBatch({ anchor: T0, offsets, values: offsets.map(() => 1) }))
        .data.toString()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).timestamp);
    expect(stamps([7, 7.9])).to.deep.equal(['2024-01-01T00:00:00.007Z', '2024-01-01T00:00:00.007Z']);
    expect(stamps([7.95, 8, 60_000])).to.deep.equal([
      '2024-01-01T00:00:00.007Z',
      '2024-01-01T00:00:00.008Z',
      '2024-01-01T00:01:00.000Z',
    ]);
  });

  it('refuses options without a metric name, naming the field, instead of writing "undefined" as the name', () => {
    const untyped = (value: unknown): any => value;
    expect(() => jsonLines(untyped('up'))).to.throw(TypeError, 'jsonLines: options must be an object, got "up"');
    expect(() => jsonLines(untyped(undefined))).to.throw(
      TypeError,
      'jsonLines: options must be an object, got undefined',
    );
    expect(() => jsonLines(untyped({ metric: 'up' }))).to.throw(
      TypeError,
      'jsonLines: name must be a metric name (a string), got undefined',
    );
  });
});
