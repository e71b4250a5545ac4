import type { Entry } from '../../lib/config/types.js';

/** A valid metrics entry (constant 1 at 10/s, stdout, metrics_text), with `fields` on top. */
export function metricEntry(fields: Partial<Entry> = {}): Entry {
  return {
    id: fields.name ?? 'up',
    signal_type: 'metrics',
    name: 'up',
    rate: 10,
    start_time: { kind: 'now' },
    generator: { type: 'constant', value: 1 },
    encoder: { type: 'metrics_text' },
    sink: { type: 'stdout' },
    labels: {},
    dynamic_labels: [],
    jitter_seed: 0,
    on_sink_error: 'warn',
    metric_type: 'gauge',
    cardinality_spikes: [],
    ...fields,
  };
}

/** The fields that make {@link metricEntry} a seeded histogram entry (exponential observations, three buckets). */
export const histogramEntry: Partial<Entry> = {
  signal_type: 'histogram',
  name: 'latency_seconds',
  generator: undefined,
  distribution: { type: 'exponential', rate: 10 },
  buckets: [0.05, 0.1, 0.5],
  observations_per_tick: 20,
  seed: 4,
  metric_type: 'histogram',
  labels: { svc: 'api' },
};
