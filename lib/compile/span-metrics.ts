/**
 * `span_metrics` of a traces entry → the two entries that write them, right after it: `<id>.calls`
 * (a counter) and `<id>.duration` (a histogram), named and labelled as the OpenTelemetry span
 * metrics connector names them, in OTLP's words for the `otlp` encoder and as Prometheus
 * translates them for the others. They start with the traces entry (its start time, phase offset,
 * clock group, `after`), run as long, and write every `interval` what its spans added up to
 * (lib/runtime/chain/signal.ts, operators/span-metrics.ts).
 */
import { defaultEncoder, fitSink } from '../config/entry.js';
import type { Entry, SinkConfig } from '../config/types.js';
import { SPAN_METRICS_BUCKETS } from '../../operators/span-metrics.js';

/** The connector's defaults: its namespace and its flush interval. */
export const SPAN_METRICS_NAMESPACE = 'traces.span.metrics';
export const SPAN_METRICS_INTERVAL_MS = 15_000;

/** Each entry, followed by the entries of its span metrics when it has some. */
export function withSpanMetrics(entries: readonly Entry[]): { entries: Entry[]; sources: number[] } {
  const out: Entry[] = [];
  const sources: number[] = [];
  entries.forEach((entry, i) => {
    out.push(entry);
    sources.push(i);
    for (const made of spanMetricsEntries(entry)) {
      out.push(made);
      sources.push(i);
    }
  });
  return { entries: out, sources };
}

function spanMetricsEntries(traces: Entry): Entry[] {
  const config = traces.span_metrics;
  if (!config) return [];
  // Validation checked that the sink carries metrics and fits the encoder.
  const sink = fitSink(
    'metrics',
    (config.sink ?? { ...traces.sink, signal_type: undefined }) as SinkConfig,
  ) as SinkConfig;
  const encoder = config.encoder ?? { type: defaultEncoder('metrics', sink.type) };
  const naming = encoder.type === 'otlp' ? 'otlp' : 'prometheus';
  const unit = config.unit ?? 'ms';
  const namespace = config.namespace ?? SPAN_METRICS_NAMESPACE;
  const prefix = naming === 'otlp' ? (namespace ? `${namespace}.` : '') : namespace.replace(/[^a-zA-Z0-9_:]/g, '_');
  const name = (family: string, suffix: string) =>
    naming === 'otlp' ? `${prefix}${family}` : `${prefix ? `${prefix}_` : ''}${family}${suffix}`;
  const buckets = config.buckets ?? SPAN_METRICS_BUCKETS;
  const shared = {
    rate: 1000 / (config.interval ?? SPAN_METRICS_INTERVAL_MS),
    duration: traces.duration,
    start_time: traces.start_time,
    encoder,
    sink,
    labels: {},
    dynamic_labels: [],
    jitter_seed: 0,
    on_sink_error: traces.on_sink_error,
    cardinality_spikes: [],
    ...(traces.phase_offset !== undefined && { phase_offset: traces.phase_offset }),
    ...(traces.clock_group !== undefined && { clock_group: traces.clock_group }),
    ...(traces.after && { after: traces.after }),
  };
  const source = { from: traces.id, unit, buckets, exemplars: config.exemplars ?? false, naming } as const;
  return [
    {
      ...shared,
      id: `${traces.id}.calls`,
      signal_type: 'metrics',
      name: name('calls', '_total'),
      metric_type: 'counter',
      span_metrics_of: { ...source, family: 'calls' },
    },
    {
      ...shared,
      id: `${traces.id}.duration`,
      signal_type: 'histogram',
      name: name('duration', unit === 'ms' ? '_milliseconds' : '_seconds'),
      metric_type: 'histogram',
      buckets: buckets.map((bound) => (unit === 'ms' ? bound * 1000 : bound)),
      span_metrics_of: { ...source, family: 'duration' },
    },
  ];
}
