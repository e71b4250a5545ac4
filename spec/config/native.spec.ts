import { expect } from 'chai';
import { entryOf, entryProblems, histogram, metric, summary } from '../support/scenarios.js';

const REMOTE_WRITE = { sink: { type: 'remote_write', url: 'http://prom:9090/api/v1/write' } };

describe('entry: native histograms', () => {
  it("takes client_golang's defaults: schema 3, zero threshold 2^-128, at most 160 buckets", () => {
    expect(entryOf(histogram({ native: {}, ...REMOTE_WRITE })).native).to.deep.equal({
      schema: 3,
      zero_threshold: 2 ** -128,
      max_buckets: 160,
    });
  });

  it('keeps the values given', () => {
    const native = { schema: -4, zero_threshold: 0, max_buckets: 4096 };
    expect(entryOf(histogram({ native, ...REMOTE_WRITE })).native).to.deep.equal(native);
  });

  it('without buckets is native only; with buckets writes both', () => {
    expect(entryOf(histogram({ native: {}, ...REMOTE_WRITE }))).not.to.have.property('buckets');
    expect(entryOf(histogram({ native: {}, buckets: [1, 2] })).buckets).to.deep.equal([1, 2]);
    expect(entryOf(histogram())).not.to.have.property('native');
  });

  it('refuses a native-only histogram to an encoder that does not write native histograms, naming both', () => {
    for (const encoder of ['metrics_text', 'openmetrics', 'json_lines']) {
      expect(entryProblems(histogram({ native: {}, encoder: { type: encoder } }))).to.deep.equal([
        `scenarios[0] (latency): native: the ${encoder} encoder does not write native histograms (remote_write and otlp do); give buckets too, and it writes the classic ones`,
      ]);
    }
  });

  it('bounds every number and names the field', () => {
    expect(
      entryProblems(histogram({ native: { schema: 9, zero_threshold: -1, max_buckets: 0 }, ...REMOTE_WRITE })),
    ).to.deep.equal([
      'scenarios[0] (latency): native.schema: expected at most 8, got 9',
      'scenarios[0] (latency): native.zero_threshold: expected a number greater than or equal to 0, got -1',
      'scenarios[0] (latency): native.max_buckets: expected an integer greater than 0, got 0',
    ]);
    expect(entryProblems(histogram({ native: { schema: -5, max_buckets: 4097 }, ...REMOTE_WRITE }))).to.deep.equal([
      'scenarios[0] (latency): native.schema: expected at least -4, got -5',
      'scenarios[0] (latency): native.max_buckets: expected at most 4096, got 4097',
    ]);
    expect(entryProblems(histogram({ native: { schema: 1.5 }, ...REMOTE_WRITE }))).to.deep.equal([
      'scenarios[0] (latency): native.schema: expected an integer, got 1.5',
    ]);
    expect(entryProblems(histogram({ native: { factor: 1.1 }, ...REMOTE_WRITE }))[0]).to.match(
      /^scenarios\[0\] \(latency\): native\.factor: unknown field/,
    );
  });

  it('refuses native on other entries', () => {
    expect(entryProblems(summary({ native: {} }))).to.deep.equal([
      'scenarios[0] (latency): native: not allowed on a summary entry (only on histogram entries)',
    ]);
    expect(entryProblems(metric({ native: {} }))).to.deep.equal([
      'scenarios[0] (cpu): native: not allowed on a metrics entry (only on histogram entries)',
    ]);
  });

  it('bounds the native buckets an entry keeps: label sets × max_buckets', () => {
    const entry = histogram({
      native: { max_buckets: 4096 },
      dynamic_labels: [{ key: 'pod', cardinality: 5000 }],
      ...REMOTE_WRITE,
    });
    expect(entryProblems(entry)).to.deep.equal([
      'scenarios[0] (latency): native.max_buckets: up to 5000 label sets × max_buckets 4096 is more than 16000000 native buckets to keep; the limit is 16000000',
    ]);
  });

  it('counts the native row among the series of a histogram', () => {
    const entry = histogram({ native: {}, buckets: [1], dynamic_labels: [{ key: 'pod', cardinality: 20_000 }] });
    // 1 bucket, le="+Inf", _sum, _count and the native histogram: 5 rows.
    expect(entryOf(entry).native).to.have.property('max_buckets', 160);
    expect(entryProblems({ ...entry, dynamic_labels: [{ key: 'pod', cardinality: 20_001 }] })).to.deep.equal([
      'scenarios[0] (latency): dynamic_labels: the dynamic labels and cardinality spikes make up to 20001 label sets × 5 samples per event = 100005 series; the limit is 100000',
    ]);
  });
});
