import type { AppendedChunk } from '../../../operators/model/batch.js';
import type { Codec } from '../../language/combinators.js';
import type { SignalFamily } from '../../language/types.js';
import type { Feature } from '../../features.js';
import type { MetricEncoder, MetricMeta } from '../encoder.js';
import type { LogEncoder } from '../log-lines.js';
import type { TraceEncoder } from '../spans.js';

/**
 * Everything svc knows about one encoder kind; the registry (./index.ts) lists them and
 * validation, POST /events and createMetricEncoder/createLogEncoder/createTraceEncoder ask it.
 */
export interface EncoderKind<Type extends string = string, Config extends { type: Type } = { type: Type }> {
  readonly type: Type;
  /** Other tools' names of this kind (`prometheus_text`), accepted as `type` and shown as {@link type}. */
  readonly aliases?: readonly string[];
  /** Fields, defaults and validation of `encoder: {type: <Type>, ...}`. */
  readonly codec: Codec<Config>;
  /** The build feature it needs (spec: `remote-write`, `otlp`): its optional packages must be installed. */
  readonly feature?: Feature;
  /** The signals it encodes; one factory per family below. */
  readonly carries: readonly SignalFamily[];
  /**
   * Whether it writes native histograms (the rows of a histogram entry's `native`); the chain hands the others only
   * the classic rows, and validation refuses them a native-only histogram.
   */
  readonly nativeHistograms?: boolean;
  /**
   * Why its times cannot go before 1970 (OTLP's are unsigned nanoseconds), as the end of a sentence; validation refuses
   * an entry whose `start_time` is earlier ({@link startTimeRefusal}). Absent: it writes earlier times as they are.
   */
  readonly timesFrom1970?: string;
  /** Label names it cannot write, and why (the backend refuses them): validation refuses them on an entry. */
  readonly reservedLabels?: Readonly<Record<string, string>>;
  /**
   * What is wrong with a sink's settings for this encoding (influx_lp: a `url` asking for another timestamp
   * precision), as the path in the sink and the message; validation and POST /events refuse it. Absent: nothing.
   */
  readonly sinkIssue?: (sink: Readonly<Record<string, unknown>>) => { path: string[]; message: string } | undefined;
  /** The only sinks it works with (an encoder of one protocol); absent: any sink. */
  readonly sinks?: readonly string[];
  /** Its encoder of metric samples (metrics, histogram and summary entries) of the metric `meta`. */
  readonly metrics?: (config: Config, meta: MetricMeta) => MetricEncoder;
  readonly logs?: (config: Config) => LogEncoder;
  /** Its encoder of spans (traces entries). */
  readonly traces?: (config: Config) => TraceEncoder;
  /**
   * Text a stream of this encoding must end with, once (openmetrics `# EOF`): the stream sinks
   * (`file`, `stdout`) write it when the last entry writing to the stream closes.
   */
  readonly trailer?: string;
  /**
   * A chunk of this encoding as it is appended to a file whose last line (before its trailer) is `last` (an event of
   * POST /events; the first chunk of a `file` sink appending, a scenario svc-server starts again from --state), or
   * why it cannot be, as the end of a sentence: openmetrics leaves out its family's metadata after a line of that
   * family, and refuses to follow a line that is not OpenMetrics, saying it is `cut` short (no line feed ends it) when
   * it is. Absent: the chunk as it is.
   */
  readonly appended?: AppendedChunk;
  /**
   * Each chunk is one document (zipkin_json: one JSON array of its spans): a chunk cut short is read by no reader, so
   * a `file` sink whose write failed midway counts that chunk dropped whole, not the records of it that landed.
   */
  readonly wholeChunks?: boolean;
  /**
   * How the records a batching sink sends as one request body join (zipkin_json: one JSON array of their spans),
   * given as runs: the bytes of consecutive whole records of one chunk each. An encoder with a `join` lets the sink
   * cut a chunk between records to keep requests within its size; absent: chunks go whole, one after another.
   */
  readonly join?: (runs: readonly Uint8Array[]) => Uint8Array;
}

/** Declares an encoder kind, keeping its type and config precise for the registry's union. */
export function defineEncoder<const Type extends string, Config extends { type: Type }>(
  kind: EncoderKind<Type, Config>,
): EncoderKind<Type, Config> {
  return kind;
}
