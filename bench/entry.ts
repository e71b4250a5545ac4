import type { EncoderConfig, Entry, SinkConfig } from '../lib/config/types.js';

/** The labels of every benchmark series, beside the rotating `pod`. */
export const BENCH_LABELS = { host: 'bench-1', region: 'eu-west', service: 'api' };

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
