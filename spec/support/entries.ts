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
