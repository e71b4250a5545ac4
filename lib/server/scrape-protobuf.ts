import type { Type, Writer } from 'protobufjs';
import { exemplarLabels, type Exemplar } from '../../operators/model/batch.js';
import { countDeltas, type NativeHistogram } from '../../operators/model/native-histogram.js';
import { seriesOf, type Series } from '../../operators/model/series.js';
import type { MetricType } from '../language/types.js';
import { metricFamilyType, newWriter } from '../protocols/metric-family.js';
import { familyName, unitOf } from '../protocols/metric-units.js';
import { wellFormed } from '../protocols/bytes.js';
import {
  eachRow,
  latestFamilies,
  Pace,
  unsliced,
  type LatestFamily,
  type LatestRow,
  type ScrapeBuffer,
  type Steps,
} from './scrape.js';

/** client_model's `MetricType` numbers. */
const TYPE_NUMBER: Record<MetricType, number> = { counter: 0, gauge: 1, summary: 2, untyped: 3, histogram: 4 };

interface LabelPair {
  readonly name: string;
  readonly value: string;
}

/** How a row is folded into its metric's message, `at` the value of the label `by` on the row, if it has it. */
type Fold = (message: Record<string, unknown>, row: LatestRow, at: string | undefined) => void;

/**
 * The protobuf exposition of the latest state of every series of every entry ({@link latestFamilies}): one
 * length-delimited `io.prometheus.client.MetricFamily` per family, what Prometheus reads from a scrape answered as
 * `application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited`. Unlike the text
 * exposition it carries native histograms and exemplars:
 *
 * - a histogram family: one `Metric` per label set, its classic buckets (each with its latest exemplar), `_sum` and
 *   `_count`, its native histogram (the latest exemplar of the native series in `exemplars`), and its start as
 *   `created_timestamp`; a summary family likewise, with its quantiles;
 * - any other family (counter, gauge, untyped, and the `untyped` family of entries whose types differ): one family
 *   per sample name, a counter's start as `created_timestamp` and its latest exemplar on its `Counter`. Native
 *   histograms have no untyped form.
 *
 * Every family carries the base unit its name ends with, as OpenMetrics' `# UNIT` does. Empty (no bytes) when no
 * entry has a sample.
 */
export function* protobufSteps(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): Steps<Buffer> {
  const MetricFamily = metricFamilyType();
  const Metric = MetricFamily.root.lookupType('io.prometheus.client.Metric');
  const out = newWriter();
  const pace = new Pace();
  for (const latest of latestFamilies(buffers, onConflict)) {
    const { name, type, help } = latest.family;
    const unit = unitOf(familyName(name, type));
    for (const [sampleName, metrics] of yield* encodedMetrics(latest, Metric, pace)) {
      // What MetricFamily.encodeDelimited writes: the fields in the order of their numbers, the Metrics (field 4)
      // as they were encoded, a step at a time.
      MetricFamily.encode(
        { name: sampleName, ...(help !== undefined && { help: wellFormed(help) }), type: TYPE_NUMBER[type] },
        out.fork(),
      );
      out.raw(metrics);
      if (unit) MetricFamily.encode({ unit }, out);
      out.ldelim();
    }
  }
  const bytes = out.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** {@link protobufSteps} at once. */
export function aggregateProtobuf(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): Uint8Array {
  return unsliced(protobufSteps(buffers, onConflict));
}

/** The key of `MetricFamily.metric`: field 4, wire type 2 (length-delimited). */
const METRIC_TAG = (4 << 3) | 2;

/**
 * The `Metric`s of one family, each as the field 4 of its `MetricFamily`, with the name of the `MetricFamily` they
 * go to: a histogram's or a summary's under the family's name; a counter's, gauge's or untyped sample's under its
 * sample name. Each row is encoded as it is read (of a histogram, its label set's once all its rows are read), so
 * the build keeps bytes rather than objects of every series.
 *
 * Prometheus reads a whole histogram family as native or as classic by its first `Metric`, so when entries sharing
 * a name differ (one with `native`, one without), the histograms with a native part and those without go to two
 * families of that name: in one, the classic ones were read as native histograms without buckets, their buckets
 * lost (or the native ones as classic).
 */
function* encodedMetrics(latest: LatestFamily, Metric: Type, pace: Pace): Steps<[string, Uint8Array][]> {
  const { name, type } = latest.family;
  const encode = (writer: Writer, metric: object) => Metric.encode(metric, writer.uint32(METRIC_TAG).fork()).ldelim();
  if (type === 'histogram' || type === 'summary') {
    const byKind = new Map<boolean, Writer>();
    for (const { label, message } of yield* gathered(latest, type, pace)) {
      if (pace.due()) yield;
      const native = message.schema !== undefined;
      let writer = byKind.get(native);
      if (!writer) byKind.set(native, (writer = newWriter()));
      encode(writer, { label, [type]: message });
    }
    return [...byKind.values()].map((writer) => [name, writer.finish(true)]);
  }
  const bySample = new Map<string, Writer>();
  yield* eachRow(latest, pace, (row) => {
    if (row.native) return;
    const sampleName = name + (row.series.suffix ?? '');
    let writer = bySample.get(sampleName);
    if (!writer) bySample.set(sampleName, (writer = newWriter()));
    encode(writer, { label: labelPairs(row.series), [type]: simpleValue(type, row) });
  });
  return [...bySample].map(([sampleName, writer]) => [sampleName, writer.finish(true)]);
}

/** The `Gauge`, `Counter` or `Untyped` message of a row; a counter's with its start and latest exemplar. */
function simpleValue(type: 'counter' | 'gauge' | 'untyped', { value, exemplar, created }: LatestRow): object {
  if (type !== 'counter') return { value };
  return {
    value,
    createdTimestamp: timestampMessage(created),
    ...(exemplar && { exemplar: exemplarMessage(exemplar) }),
  };
}

/**
 * What tells the rows of one histogram or summary apart, the list they go to, how each row is folded in, and each
 * row's label set without `by`, by the row's: a row keeps its series from tick to tick, so a scrape rebuilds only
 * the label sets it has not met (rebuilt at every scrape, they took half its CPU time: docs/performance.md).
 */
const COMPOSITE: Record<
  'histogram' | 'summary',
  { by: string; list: string; fold: Fold; bases: WeakMap<Series, Series> }
> = {
  histogram: { by: 'le', list: 'bucket', fold: foldHistogram, bases: new WeakMap() },
  summary: { by: 'quantile', list: 'quantile', fold: foldSummary, bases: new WeakMap() },
};

/**
 * The `Metric`s of a histogram's or summary's rows: one per label set without the label that tells a bucket's or a
 * quantile's rows apart, each with its `Histogram` or `Summary` message.
 */
function* gathered(
  latest: LatestFamily,
  kind: 'histogram' | 'summary',
  pace: Pace,
): Steps<{ base: Series; label: LabelPair[]; message: Record<string, unknown> }[]> {
  const { by, list, fold, bases } = COMPOSITE[kind];
  const metrics = new Map<string, { base: Series; label: LabelPair[]; message: Record<string, unknown> }>();
  yield* eachRow(latest, pace, (row) => {
    const at = row.series.labels[by];
    let base = at === undefined ? row.series : bases.get(row.series);
    if (!base) {
      base = withoutLabel(row.series, by);
      // The rows of one label set share one base: a histogram's buckets hold one object, not one each.
      bases.set(row.series, (base = metrics.get(base.key)?.base ?? base));
    }
    let metric = metrics.get(base.key);
    if (!metric) {
      const message = { createdTimestamp: timestampMessage(row.created), [list]: [] };
      metrics.set(base.key, (metric = { base, label: labelPairs(base), message }));
    }
    fold(metric.message, row, at);
  });
  return [...metrics.values()];
}

/** Folds a histogram's row into its `Histogram`: a bucket, the sum, the count, or the native histogram. */
function foldHistogram(message: Record<string, unknown>, { series, value, native, exemplar }: LatestRow, le?: string) {
  if (native) Object.assign(message, nativeFields(native), exemplar && { exemplars: [exemplarMessage(exemplar)] });
  else if (le !== undefined) {
    const bound = le === '+Inf' ? Infinity : Number(le);
    (message.bucket as object[]).push({
      cumulativeCount: value,
      upperBound: bound,
      ...(exemplar && { exemplar: exemplarMessage(exemplar) }),
    });
  } else if (series.suffix === '_sum') message.sampleSum = value;
  else if (series.suffix === '_count') message.sampleCount = value;
}

/** Folds a summary's row into its `Summary`: a quantile, the sum or the count (a summary's exemplar has no place). */
function foldSummary(message: Record<string, unknown>, { series, value }: LatestRow, quantile?: string) {
  if (quantile !== undefined) (message.quantile as object[]).push({ quantile: Number(quantile), value });
  else if (series.suffix === '_sum') message.sampleSum = value;
  else if (series.suffix === '_count') message.sampleCount = value;
}

/** The native fields of a `Histogram`, with the count and sum of the same observations. */
function nativeFields(h: NativeHistogram) {
  // client_model: a native histogram with nothing that tells it from a classic one (no span, no zero bucket) takes a
  // no-op span, or it would be read as a classic histogram.
  const unmarked = !h.positiveSpans.length && !h.negativeSpans.length && h.zeroThreshold === 0 && h.zeroCount === 0;
  return {
    sampleCount: h.count,
    sampleSum: h.sum,
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    zeroCount: h.zeroCount,
    negativeSpan: h.negativeSpans,
    negativeDelta: countDeltas(h.negativeCounts),
    positiveSpan: unmarked ? [{ offset: 0, length: 0 }] : h.positiveSpans,
    positiveDelta: countDeltas(h.positiveCounts),
  };
}

/** client_model's `Exemplar`: the trace and span it was observed in, as labels. */
function exemplarMessage(exemplar: Exemplar) {
  return { label: exemplarLabels(exemplar), value: exemplar.value, timestamp: timestampMessage(exemplar.timestamp) };
}

/** A `google.protobuf.Timestamp` of epoch milliseconds. */
function timestampMessage(ms: number) {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

function labelPairs({ labels }: Series): LabelPair[] {
  return Object.entries(labels).map(([name, value]) => ({ name, value: wellFormed(value) }));
}

/** The label set of `series` without the label `name` (the sorted order kept). */
function withoutLabel(series: Series, name: string): Series {
  const { [name]: _dropped, ...rest } = series.labels;
  return seriesOf(rest);
}
