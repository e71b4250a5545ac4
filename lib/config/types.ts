/**
 * The validated, normalised form of a scenario file: what `lib/config` hands to `lib/compile`.
 * Durations are milliseconds, defaults are applied, every optional list is present. The words
 * an entry is made of are lib/language/types.ts; the sink and encoder configurations are derived
 * from the codecs of their kinds (lib/sinks/kinds, lib/encoders/kinds).
 */
import type { TraceGeneratorConfig } from '../language/traces.js';
import type { EncoderConfig } from '../encoders/kinds/index.js';
import type { SinkConfig } from '../sinks/kinds/index.js';
import type {
  DynamicLabel,
  GeneratorConfig,
  LogGeneratorConfig,
  MetricType,
  OnSinkError,
  SignalType,
  StartTime,
} from '../language/types.js';
import type {
  After,
  While,
  ExemplarsConfig,
  TraceContextConfig,
  BurstWindow,
  CardinalitySpike,
  DistributionConfig,
  Expectations,
  NativeConfig,
  OneShotWindow,
  Window,
} from '../language/fields.js';

import type { MetricOverride, SpanMetricsConfig } from './entry-fields.js';
import type { SpanMetricsOptions, SpanMetricsUnit } from '../../operators/span-metrics.js';

export type { MetricOverride } from './entry-fields.js';
export type { SinkConfig, SinkType } from '../sinks/kinds/index.js';
export type { EncoderConfig, EncoderType } from '../encoders/kinds/index.js';

/** One entry after defaults were applied. */
export interface Entry {
  readonly id: string;
  readonly signal_type: SignalType;
  /** Absent only on a `pack` entry. */
  readonly name?: string;
  readonly rate: number;
  /** Milliseconds; absent means run until stopped. */
  readonly duration?: number;
  readonly start_time: StartTime;
  readonly generator?: GeneratorConfig;
  readonly log_generator?: LogGeneratorConfig;
  readonly trace_generator?: TraceGeneratorConfig;
  readonly distribution?: DistributionConfig;
  /** A histogram's classic bucket bounds; absent on a native-only histogram. */
  readonly buckets?: readonly number[];
  /** A histogram's native histogram, its defaults applied. */
  readonly native?: Required<NativeConfig>;
  readonly quantiles?: readonly number[];
  readonly observations_per_tick?: number;
  readonly seed?: number;
  readonly encoder: EncoderConfig;
  readonly sink: SinkConfig;
  readonly labels: Readonly<Record<string, string>>;
  /**
   * On a `csv_replay` entry, the labels `--label` set (they are in `labels` too): they win over a replayed
   * column's header labels as well, as the flag wins over every label of the file (lib/compile/replays.ts).
   * Set by svc itself, not a field of the file: left out of the package's declarations.
   * @internal
   */
  readonly flag_labels?: Readonly<Record<string, string>>;
  readonly dynamic_labels: readonly DynamicLabel[];
  readonly jitter?: number;
  readonly jitter_seed: number;
  readonly on_sink_error: OnSinkError;
  readonly metric_type: MetricType;
  readonly help?: string;
  readonly gaps?: Window;
  /** One-shot silences, as written (operators/gaps.ts merges them); absent when none. */
  readonly gap_windows?: readonly OneShotWindow[];
  readonly bursts?: BurstWindow;
  readonly cardinality_spikes: readonly CardinalitySpike[];
  readonly phase_offset?: number;
  readonly clock_group?: string;
  readonly after?: After;
  readonly while?: While;
  readonly exemplars?: ExemplarsConfig;
  readonly trace_context?: TraceContextConfig;
  /** A traces entry's span metrics, as configured (lib/compile makes the entries that write them). */
  readonly span_metrics?: SpanMetricsConfig;
  /** Set on an entry lib/compile made to write a traces entry's span metrics: what it writes. */
  readonly span_metrics_of?: SpanMetricsSource;
  readonly pack?: string;
  /** Only with `pack`: changes to single metrics of the pack, by metric name. */
  readonly overrides?: Readonly<Record<string, MetricOverride>>;
}

/** What an entry made for `span_metrics` writes: one family of the metrics of the traces entry `from`. */
export interface SpanMetricsSource extends Omit<SpanMetricsOptions, 'unit'> {
  readonly from: string;
  readonly unit: SpanMetricsUnit;
}

export interface ScenarioFile {
  readonly version: 2;
  readonly kind: 'runnable' | 'composable';
  /** Catalog metadata: the name `@name` finds the file by (default: its file name). */
  readonly name?: string;
  readonly description?: string;
  readonly category?: string;
  readonly tags?: readonly string[];
  /** Set when the document was a single flat entry (messages then name it `entry`). */
  readonly flat?: true;
  /** Alert expectations, checked by `svc test` (lib/alert-test); `svc run` ignores them. */
  readonly expect?: Expectations;
  readonly scenarios: readonly Entry[];
}

/** One metric of a pack: what an entry with `pack` expands into, one entry per metric. */
export interface PackMetric {
  readonly name: string;
  /** Tells apart metrics of one name: `overrides.<name>.<id>`, expanded id `<entry id>.<name>.<id>`. */
  readonly id?: string;
  /** `constant 0` when the pack file gives none. */
  readonly generator: GeneratorConfig;
  readonly labels: Readonly<Record<string, string>>;
  /** The noise of an operational alias in `generator`; an entry's own `jitter` replaces it. */
  readonly jitter?: number;
  readonly jitter_seed?: number;
  readonly metric_type?: MetricType;
  readonly help?: string;
}

/** A pack file: `version: 2`, `kind: composable`, a `name`, and the `metrics` it stands for. */
export interface PackFile {
  readonly version: 2;
  readonly kind: 'composable';
  readonly name: string;
  readonly description: string;
  readonly category?: string;
  readonly tags?: readonly string[];
  /** Labels on every metric of the pack; a metric's own labels win. */
  readonly shared_labels: Readonly<Record<string, string>>;
  readonly metrics: readonly PackMetric[];
}
