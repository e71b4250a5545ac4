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
import type { Labelled, SampleBatch } from '../../operators/model/batch.js';
import { seriesOf, type Series } from '../../operators/model/series.js';
import {
  SPAN_METRICS_BUCKETS,
  SPAN_METRICS_DIMENSIONS,
  type SpanMetricsOptions,
  type SpanMetricsUnit,
} from '../../operators/span-metrics.js';

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
  const name = (family: Family) => {
    const otlp = namespace ? `${namespace}.${family}` : family;
    return naming === 'otlp' ? otlp : prometheusName(otlp, family, unit);
  };
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
      name: name('calls'),
      metric_type: 'counter',
      // Exemplars go on the duration buckets only, as the connector puts them: the calls carry none.
      span_metrics_of: { ...source, exemplars: false, family: 'calls' },
    },
    {
      ...shared,
      id: `${traces.id}.duration`,
      signal_type: 'histogram',
      name: name('duration'),
      metric_type: 'histogram',
      buckets: buckets.map((bound) => (unit === 'ms' ? bound * 1000 : bound)),
      span_metrics_of: { ...source, family: 'duration' },
    },
  ];
}

type Family = SpanMetricsOptions['family'];

/**
 * A span metric's OTLP name (`traces.span.metrics.calls`) as a collector's Prometheus exporter translates it: each
 * character a Prometheus name cannot hold becomes `_`, then the unit of the duration and a counter's `_total` follow
 * (`traces_span_metrics_calls_total`, `traces_span_metrics_duration_milliseconds`).
 */
function prometheusName(otlp: string, family: Family, unit: SpanMetricsUnit): string {
  const suffix = family === 'calls' ? '_total' : unit === 'ms' ? '_milliseconds' : '_seconds';
  return `${otlp.replace(/[^a-zA-Z0-9_:]/g, '_')}${suffix}`;
}

/** An entry's name and rows as a Prometheus exposition shows them. */
export interface PrometheusFace {
  /** The entry's metric name there (undefined: it has none, a traces entry). */
  readonly name: string | undefined;
  readonly rows: (batch: Labelled<SampleBatch>) => Labelled<SampleBatch>;
}

/**
 * How a span metrics entry written in OTLP's words (its sink's encoder is `otlp`) shows in a Prometheus exposition
 * (svc-server's scrape): named and labelled as a collector's Prometheus exporter translates them
 * (`traces_span_metrics_calls_total{service_name="…"}`), since Prometheus refuses a whole scrape for one dotted name.
 * Any other entry shows as it is: its name and labels are Prometheus' already.
 */
export function prometheusFace(entry: Entry): PrometheusFace {
  const source = entry.span_metrics_of;
  if (source?.naming !== 'otlp' || entry.name === undefined) return { name: entry.name, rows: (batch) => batch };
  const [otlp, prometheus] = [SPAN_METRICS_DIMENSIONS.otlp, SPAN_METRICS_DIMENSIONS.prometheus];
  // A row's series is made once per dimension set (operators/span-metrics.ts): each is translated once.
  const translated = new Map<Series, Series>();
  const translate = (series: Series): Series => {
    let face = translated.get(series);
    if (!face) {
      const labels = Object.fromEntries(
        Object.entries(series.labels).map(([key, value]) => {
          const at = otlp.indexOf(key);
          return [at < 0 ? key : prometheus[at]!, value];
        }),
      );
      face = seriesOf(labels, series.suffix);
      translated.set(series, face);
    }
    return face;
  };
  return {
    name: prometheusName(entry.name, source.family, source.unit),
    rows: (batch) => ({ ...batch, series: batch.series.map(translate) }),
  };
}
