import { expect } from 'chai';
import { entryOf, entryProblems, histogram, logs, metric, problems, summary, v2, spike } from '../support/scenarios.js';

const sink = (fields: Record<string, unknown>) => metric({ sink: fields });

/** [what, entry, the one message expected]: every number of the language is bounded, and the message names the limit. */
const beyond: [string, Record<string, unknown>, string][] = [
  [
    'a rate of 1e300',
    metric({ rate: 1e300 }),
    'scenarios[0] (cpu): rate: expected at most 100000000 events per second, got 1e+300',
  ],
  [
    'a rate of 3e15',
    metric({ rate: 3e15 }),
    'scenarios[0] (cpu): rate: expected at most 100000000 events per second, got 3000000000000000',
  ],
  [
    'a rate below one event per 11.6 days',
    metric({ rate: 1e-9 }),
    'scenarios[0] (cpu): rate: expected at least 0.000001 events per second, got 1e-9',
  ],
  [
    'a duration of 9999999999999h',
    metric({ duration: '9999999999999h' }),
    'scenarios[0] (cpu): duration: expected a duration up to 8760h (365 days), got "9999999999999h"',
  ],
  [
    'a phase offset beyond 365 days',
    metric({ phase_offset: '8761h' }),
    'scenarios[0] (cpu): phase_offset: expected a duration up to 8760h (365 days), got "8761h"',
  ],
  [
    'a gap cycle beyond 365 days',
    metric({ gaps: { every: '9000h', for: '1h' } }),
    'scenarios[0] (cpu): gaps.every: expected a duration up to 8760h (365 days), got "9000h"',
  ],
  [
    'a burst multiplier of 1e9',
    metric({ bursts: { every: '10s', for: '1s', multiplier: 1e9 } }),
    'scenarios[0] (cpu): bursts.multiplier: expected at most 1000, got 1000000000',
  ],
  [
    'a burst multiplier of 1e-9',
    metric({ bursts: { every: '10s', for: '1s', multiplier: 1e-9 } }),
    'scenarios[0] (cpu): bursts.multiplier: expected at least 0.001, got 1e-9',
  ],
  [
    'a burst peak beyond the rate limit',
    metric({ rate: 1_000_000, bursts: { every: '10s', for: '1s', multiplier: 1000 } }),
    'scenarios[0] (cpu): bursts.multiplier: rate 1000000 × multiplier 1000 is 1000000000 samples per second at the burst peak; the limit is 100000000',
  ],
  [
    'a spike cardinality of 1e12',
    metric({ cardinality_spikes: [spike({ cardinality: 1e12 })] }),
    'scenarios[0] (cpu): cardinality_spikes[0].cardinality: expected at most 10000000, got 1000000000000',
  ],
  [
    'a dynamic label cardinality past 2^53, which no integer check can judge',
    metric({ dynamic_labels: [{ key: 'pod', cardinality: 2 ** 53 + 2 }] }),
    'scenarios[0] (cpu): dynamic_labels[0].cardinality: expected at most 10000000, got 9007199254740994',
  ],
  [
    'a dynamic label cardinality of 1e8',
    metric({ dynamic_labels: [{ key: 'pod', cardinality: 1e8 }] }),
    'scenarios[0] (cpu): dynamic_labels[0].cardinality: expected at most 10000000, got 100000000',
  ],
  [
    'label sets beyond the series limit',
    metric({
      dynamic_labels: [
        { key: 'pod', cardinality: 10_000 },
        { key: 'node', cardinality: 9999 },
      ],
    }),
    'scenarios[0] (cpu): dynamic_labels: the dynamic labels and cardinality spikes make up to 99990000 label sets × 1 sample per event = 99990000 series; the limit is 10000000',
  ],
  [
    'histogram series beyond the limit of series with running totals',
    histogram({ dynamic_labels: [{ key: 'pod', cardinality: 10_000 }] }),
    'scenarios[0] (latency): dynamic_labels: the dynamic labels and cardinality spikes make up to 10000 label sets × 14 samples per event = 140000 series; the limit is 100000',
  ],
  [
    'series of a counter the otlp encoder writes (it keeps each last point) beyond the limit of series with state',
    metric({
      metric_type: 'counter',
      dynamic_labels: [{ key: 'user', cardinality: 1_000_000 }],
      sink: { type: 'otlp_http', url: 'http://127.0.0.1:4318/v1/metrics' },
    }),
    'scenarios[0] (cpu): dynamic_labels: the dynamic labels and cardinality spikes make up to 1000000 label sets × 1 sample per event = 1000000 series; the limit is 100000 for a counter the otlp encoder writes (it keeps the last point of each series)',
  ],
  [
    'too many dynamic labels',
    metric({ dynamic_labels: Array.from({ length: 17 }, (_, i) => ({ key: `k${i}`, cardinality: 1 })) }),
    'scenarios[0] (cpu): dynamic_labels: expected at most 16 items, got 17',
  ],
  [
    'observations_per_tick of 1e9',
    histogram({ observations_per_tick: 1e9 }),
    'scenarios[0] (latency): observations_per_tick: expected at most 10000, got 1000000000',
  ],
  [
    'observations per second beyond the limit',
    histogram({ rate: 100_000, observations_per_tick: 10_000 }),
    'scenarios[0] (latency): observations_per_tick: rate 100000 × 10000 observations per tick is 1000000000 observations per second; the limit is 100000000',
  ],
  [
    'histogram samples per second beyond the limit',
    histogram({ rate: 10_000_000, observations_per_tick: 1 }),
    'scenarios[0] (latency): rate: rate 10000000 × 14 samples per event (11 buckets, le="+Inf", _sum, _count) is 140000000 samples per second; the limit is 100000000',
  ],
  [
    'more than 256 buckets',
    histogram({ buckets: Array.from({ length: 257 }, (_, i) => i) }),
    'scenarios[0] (latency): buckets: expected at most 256 items, got 257',
  ],
  [
    'more than 64 quantiles',
    summary({ quantiles: Array.from({ length: 65 }, (_, i) => (i + 1) / 100) }),
    'scenarios[0] (latency): quantiles: expected at most 64 items, got 65',
  ],
  [
    'a sequence of more than 10000 values',
    metric({ generator: { type: 'sequence', values: Array.from({ length: 10_001 }, () => 1) } }),
    'scenarios[0] (cpu): generator.values: expected at most 10000 items, got 10001',
  ],
  [
    'a sine period below 1 ms',
    metric({ generator: { type: 'sine', amplitude: 1, period_secs: 1e-300 } }),
    'scenarios[0] (cpu): generator.period_secs: expected at least 0.001, got 1e-300',
  ],
  [
    'a sine period beyond 365 days',
    metric({ generator: { type: 'sine', amplitude: 1, period_secs: 1e12 } }),
    'scenarios[0] (cpu): generator.period_secs: expected at most 31536000, got 1000000000000',
  ],
  [
    'a severity weight of 1e300',
    logs({
      log_generator: { type: 'template', templates: [{ message: 'm' }], severity_weights: { info: 1e300, warn: 1 } },
    }),
    'scenarios[0] (app): log_generator.severity_weights.info: expected at most 1000000, got 1e+300',
  ],
  [
    'more than 1000 templates',
    logs({ log_generator: { type: 'template', templates: Array.from({ length: 1001 }, () => ({ message: 'm' })) } }),
    'scenarios[0] (app): log_generator.templates: expected at most 1000 items, got 1001',
  ],
  [
    'a start_time offset beyond 100 years',
    metric({ start_time: '-40000d' }),
    'scenarios[0] (cpu): start_time: expected an offset up to 36500d (100 years) either way, got "-40000d"',
  ],
  [
    'a start_time past 2200, whose nanoseconds overflow 64 bits in OTLP, InfluxDB and Loki',
    metric({ start_time: '2600-01-01T00:00:00Z' }),
    'scenarios[0] (cpu): start_time: expected an instant from 1678-01-01T00:00:00Z to 2200-01-01T00:00:00Z (timestamps in nanoseconds overflow 64 bits past 2262), got "2600-01-01T00:00:00Z"',
  ],
  [
    'a start_time before 1678',
    metric({ start_time: '0001-01-01T00:00:00Z' }),
    'scenarios[0] (cpu): start_time: expected an instant from 1678-01-01T00:00:00Z to 2200-01-01T00:00:00Z (timestamps in nanoseconds overflow 64 bits past 2262), got "0001-01-01T00:00:00Z"',
  ],
  [
    'retry max_attempts of 1e9',
    sink({ type: 'tcp', address: 'h:1', retry: { max_attempts: 1e9 } }),
    'scenarios[0] (cpu): sink.retry.max_attempts: expected at most 100, got 1000000000',
  ],
  [
    'a retry backoff beyond 1h',
    sink({ type: 'tcp', address: 'h:1', retry: { max_attempts: 3, initial_backoff: '2h' } }),
    'scenarios[0] (cpu): sink.retry.initial_backoff: expected a duration up to 1h, got "2h"',
  ],
  [
    'a batch_size beyond 16 MiB',
    sink({ type: 'http_push', url: 'http://h/push', batch_size: 1e12 }),
    'scenarios[0] (cpu): sink.batch_size: expected at most 16777216, got 1000000000000',
  ],
  [
    'max_streams_per_push beyond 10000',
    logs({ sink: { type: 'logstore', url: 'http://h', max_streams_per_push: 1e6 } }),
    'scenarios[0] (app): sink.max_streams_per_push: expected at most 10000, got 1000000',
  ],
];

describe('limits: every number of the scenario language is bounded', () => {
  for (const [what, entry, message] of beyond) {
    it(`refuses ${what}, naming the limit`, () => expect(entryProblems(entry)).to.deep.equal([message]));
  }

  it('refuses an after delay beyond 365 days', () => {
    expect(
      problems(v2([metric(), metric({ id: 'b', after: { ref: 'cpu', op: '>', value: 1, delay: '9000h' } })])),
    ).to.deep.equal(['scenarios[1] (b): after.delay: expected a duration up to 8760h (365 days), got "9000h"']);
  });

  it('accepts the limits themselves', () => {
    expect(entryOf(metric({ rate: 1_000_000, duration: '8760h' }))).to.include({
      rate: 1_000_000,
      duration: 365 * 86_400_000,
    });
    expect(entryOf(metric({ rate: 0.000001 })).rate).to.equal(0.000001);
    expect(entryOf(metric({ start_time: '2200-01-01T00:00:00Z' })).start_time).to.deep.equal({
      kind: 'absolute',
      epochMs: Date.UTC(2200, 0, 1),
    });
    expect(entryOf(metric({ start_time: '1678-01-01T00:00:00Z' })).start_time).to.deep.equal({
      kind: 'absolute',
      epochMs: Date.UTC(1678, 0, 1),
    });
    expect(
      entryOf(metric({ rate: 1000, bursts: { every: '10s', for: '1s', multiplier: 1000 } })).bursts!.multiplier,
    ).to.equal(1000);
    expect(entryOf(histogram({ rate: 100, observations_per_tick: 10_000 })).observations_per_tick).to.equal(10_000);
    expect(
      entryOf(metric({ cardinality_spikes: [spike({ cardinality: 99_999 })] })).cardinality_spikes[0]!.cardinality,
    ).to.equal(99_999);
  });

  it('counts label sets as the runtime makes them: rotating labels repeat with the lcm of their cardinalities', () => {
    // 1000 and 200 rotate together with period lcm(1000, 200) = 1000: 1000 label sets, not 200 000.
    expect(
      entryOf(
        metric({
          dynamic_labels: [
            { key: 'pod', cardinality: 1000 },
            { key: 'node', cardinality: 200 },
          ],
        }),
      ).dynamic_labels,
    ).to.have.length(2);
    // A spike adds the label sets of its window: lcm(10, 7) = 70 inside, 10 outside.
    expect(
      entryProblems(
        histogram({
          observations_per_tick: 1,
          dynamic_labels: [{ key: 'pod', cardinality: 10_000 }],
          cardinality_spikes: [spike({ cardinality: 7 })],
        }),
      ),
    ).to.deep.equal([
      'scenarios[0] (latency): dynamic_labels: the dynamic labels and cardinality spikes make up to 80000 label sets × 14 samples per event = 1120000 series; the limit is 100000',
    ]);
  });
});
