import { expect } from 'chai';
import { createMetricEncoder } from '../../lib/encoders/index.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch, textOf } from '../support/batches.js';

describe('createMetricEncoder', () => {
  const batch = sampleBatch({ values: [0.25] });

  it('builds metrics_text with its precision', () => {
    expect(textOf(createMetricEncoder({ type: 'metrics_text', precision: 1 }, { name: 'm' }).encode(batch))).to.equal(
      'm 0.3 0\n',
    );
  });

  it('builds json_lines', () => {
    expect(textOf(createMetricEncoder({ type: 'json_lines' }, { name: 'm' }).encode(batch))).to.equal(
      '{"name":"m","value":0.25,"labels":{},"timestamp":"1970-01-01T00:00:00.000Z"}\n',
    );
  });

  it('measures the chunk once, in UTF-8 bytes, for every sink to read', () => {
    const labelled = sampleBatch({ values: [1, 2], series: seriesOf({ city: 'Zürich' }) });
    for (const type of ['metrics_text', 'json_lines'] as const) {
      const encoded = createMetricEncoder({ type }, { name: 'm' }).encode(labelled);
      const text = textOf(encoded);
      expect(encoded.bytes, type).to.equal(Buffer.byteLength(text)).and.to.be.greaterThan(text.length);
    }
  });

  it('refuses syslog, a log encoder', () => {
    expect(() => createMetricEncoder({ type: 'syslog' }, { name: 'm' })).to.throw(
      Error,
      'encoder "syslog" encodes logs only, not metrics (use metrics_text or json_lines or influx_lp or openmetrics)',
    );
  });

  it('builds the binary encoders of the protocol sinks', () => {
    for (const type of ['remote_write', 'otlp'] as const) {
      const chunk = createMetricEncoder({ type }, { name: 'm' }).encode(sampleBatch({ values: [1] }));
      expect(chunk.data, type).to.be.instanceOf(Uint8Array);
    }
  });
});
