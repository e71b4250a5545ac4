import type { Encoder } from '../../operators/encode.js';
import { check, OBJECT, STRING, type Rule } from '../../operators/internal/arguments.js';
import type { MetricType } from '../language/types.js';
import type { RemoteWriteProtocol } from '../protocols/remote-write-v2.js';
import {
  byteLength,
  type EncodedBatch,
  type Labelled,
  type LogBatch,
  type SampleBatch,
  type TickBatch,
} from '../../operators/model/batch.js';

export type { Encoder };

const METRIC_NAME: Rule = { ...STRING, expected: 'a metric name (a string)' };

/**
 * Throws unless the options of `encoder` (metricsText, jsonLines) name the metric: a harness calling
 * `metricsText('up')` would otherwise write `undefined` as every sample's name. The scenario language checks the
 * name's pattern; the encoder writes what it is given.
 */
export function checkMetricOptions(encoder: string, options: { readonly name: string }): void {
  check(encoder, 'options', options, OBJECT);
  check(encoder, 'name', options.name, METRIC_NAME);
}

/** What a metric encoder knows of its metric. */
export interface MetricMeta {
  readonly name: string;
  /** The entry's `metric_type`, for encoders that send it (remote write metadata). */
  readonly metricType?: MetricType;
  readonly help?: string;
  /** The unit of the values (UCUM, as OTLP's `Metric.unit`: `ms`, `s`), for encoders that send it. */
  readonly unit?: string;
  /** Whether the values are whole counts, which OTLP then writes as integers (`as_int`). */
  readonly integer?: boolean;
  /**
   * A histogram with a negative bucket bound, or whose sum can go below 0: OpenMetrics allows it no `_sum` (a
   * counter), and a `_count` only beside a `_sum`, so the openmetrics encoder writes neither.
   */
  readonly withoutSum?: boolean;
  /**
   * The protocol of the remote_write sink the chunks go to, for the remote_write encoder: a 2.0 sink writes its
   * requests from the chunks' rows, so their 1.0 records are written only if it falls back to 1.0.
   */
  readonly remoteWriteProtocol?: RemoteWriteProtocol;
}

/** Encoder of metric samples (a `metrics` entry). */
export type MetricEncoder = Encoder<Labelled<SampleBatch>>;

/** A metric encoder that writes text lines, as UTF-8 bytes. */
export type TextMetricEncoder = Encoder<Labelled<SampleBatch>, Buffer>;

/**
 * The chunk of a line encoder: `data` holds one line per row of `batch`, line `i` ending at
 * `ends[i]` (code units of a string, bytes of a byte array), stamped with the time of row `i`.
 */
export function encodedLines<D extends string | Uint8Array>(
  batch: Labelled<TickBatch> & Pick<LogBatch, 'context'>,
  data: D,
  ends: number[],
): EncodedBatch<D> {
  const perEvent = batch.events ? batch.size / batch.events : 1;
  const { anchor, offset, series, context } = batch;
  return {
    size: batch.events ?? batch.size,
    data,
    bytes: byteLength(data),
    frames: { ends, separator: 1, perEvent, series, anchor, offset, ...(context && { context }) },
  };
}
