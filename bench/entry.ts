import type { EncoderConfig, Entry, SinkConfig } from '../lib/config/types.js';

/** The labels of every benchmark series, beside the rotating `pod`. */
export const BENCH_LABELS = { host: 'bench-1', region: 'eu-west', service: 'api' };

/**
 * The benchmarks' histogram entry, as a scenario file writes it: 11 buckets, 10 exponential observations a tick, at the
 * highest rate the limits let through (14 samples and 10 observations an event).
 */
export const BENCH_HISTOGRAM = {
  signal_type: 'histogram',
  name: 'bench_latency',
  rate: 5e6,
  distribution: { type: 'exponential', rate: 10 },
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  observations_per_tick: 10,
} as const;

/** The exemplar benchmarks' entry: the histogram entry in OpenMetrics, which writes exemplars. */
const BENCH_OPENMETRICS_HISTOGRAM = { ...BENCH_HISTOGRAM, encoder: { type: 'openmetrics' } } as const;

/** The sides the exemplar benchmarks compare: the entry's `exemplars` off, on every event, on one in ten. */
export const EXEMPLAR_SIDES = { off: undefined, every: { every: 1 }, tenth: { every: 10 } } as const;
export type ExemplarSide = keyof typeof EXEMPLAR_SIDES;

/** The exemplar benchmarks' entry on `side`: with its `exemplars`, none when off. */
export function exemplarEntry(side: ExemplarSide) {
  const exemplars = EXEMPLAR_SIDES[side];
  return { ...BENCH_OPENMETRICS_HISTOGRAM, ...(exemplars && { exemplars }) };
}

/**
 * The benchmarks' workload: a gauge counting up by one a tick (a step generator) over `series`
 * pods, at an unbounded rate for `seconds`, into `sink` through `encoder`.
 */
export function benchGauge(options: {
  name: string;
  sink: SinkConfig;
  encoder: EncoderConfig;
  seconds: number;
  series: number;
}): Entry {
  return {
    id: options.name,
    signal_type: 'metrics',
    name: options.name,
    rate: 1e9,
    duration: options.seconds * 1000,
    start_time: { kind: 'now' },
    generator: { type: 'step', start: 0, step_size: 1 },
    encoder: options.encoder,
    sink: options.sink,
    labels: BENCH_LABELS,
    dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: options.series }],
    jitter_seed: 0,
    on_sink_error: 'fail',
    metric_type: 'gauge',
    cardinality_spikes: [],
  };
}
