import { perSeries } from '../per-object.js';
import { show } from '../language/problems.js';
import type { MetricType } from '../language/types.js';
import {
  carryingExemplars,
  ExemplarRowsBuilder,
  exemplarsOnRows,
  type EncodedBatch,
  type ExemplarRows,
  type Labelled,
  type SampleBatch,
} from '../../operators/model/batch.js';
import { escapeLabelValue, seriesOf, type Series } from '../../operators/model/series.js';
import { familyName, unitOf } from '../protocols/metric-units.js';
import type { MetricMeta, TextMetricEncoder } from './encoder.js';
import { sampleName } from './metrics-text.js';
import { textValueFormat } from './number.js';
import { sampleLines } from './sample-lines.js';

export interface OpenMetricsOptions extends MetricMeta {
  /**
   * Exact number of decimals of sample values (not of `_created`, a time, nor of exemplars); absent means the shortest
   * round-trip form.
   */
  readonly precision?: number;
}

/** The end of an OpenMetrics exposition: once, after every family (see the kind's `trailer`). */
export const OPENMETRICS_EOF = '# EOF\n';

/** `# TYPE` of each metric_type. */
const FAMILY_TYPE: Record<MetricType, string> = {
  gauge: 'gauge',
  counter: 'counter',
  histogram: 'histogram',
  summary: 'summary',
  untyped: 'unknown',
};

/** The suffix of a series' creation time sample. */
const CREATED = '_created';

/**
 * OpenMetrics text: the family's `# TYPE`, `# HELP` (when the entry has `help`) and `# UNIT`
 * (when its name ends with a base unit, `_seconds`) before its first sample, then one line
 * `name{labels} value timestamp` per sample, timestamps in seconds (`1704067200.25`). A
 * counter's family is its name without `_total` and its samples are `<family>_total`. The
 * header rides at the start of the first chunk (in its first record); `# EOF` is not written
 * here but once per stream by the stream sinks (the kind's `trailer`), because a stream holds
 * many chunks and often several entries.
 *
 * A counter's, histogram's or summary's event ends with its `<family>_created` sample: the series' creation
 * time in seconds, the entry start (as OTLP's start time). Exemplars go where OpenMetrics allows them, after
 * a counter's `_total` and a histogram's `_bucket` samples: ` # {trace_id="…",span_id="…"} value timestamp`;
 * the others' (a gauge's, a summary's, a histogram's `_sum` and `_count`) are left out. A histogram `withoutSum`
 * has no `_sum` and no `_count` rows: OpenMetrics allows no sum beside a negative bucket bound, nor a negative one,
 * and a `_count` only beside a `_sum`.
 */
export function openMetrics({ name, metricType, help, precision, withoutSum }: OpenMetricsOptions): TextMetricEncoder {
  const counter = metricType === 'counter';
  const family = familyName(name, metricType);
  const value = textValueFormat(precision);
  const mayCarry = EXEMPLARS_ON[metricType ?? 'untyped'];
  const written = metricType === 'histogram' && withoutSum ? notSumOrCount : undefined;
  const lines = sampleLines({
    lead: (series) => `${sampleName(counter && series.suffix !== CREATED ? `${family}_total` : family, series)} `,
    middle: () => '',
    // Whole milliseconds (timestampAt): their quotient prints as the exact decimal.
    stamp: (ms) => ` ${ms / 1000}\n`,
    value,
    // `_created` is a time to the millisecond: `precision` is of sample values.
    timeValued: (series) => series.suffix === CREATED,
    ...(mayCarry && { exemplar: { open: ' # {trace_id="', between: '",span_id="', close: '"} ' } }),
  });
  const withCreated = metricType === 'counter' || metricType === 'histogram' || metricType === 'summary';
  /** The `_created` series of an event's label set; one object per interned set, as the label operator keeps them. */
  const createdOf = perSeries(
    (series: Series): Series =>
      series.transient
        ? Object.freeze({ ...seriesOf(series.labels, CREATED), transient: true })
        : seriesOf(series.labels, CREATED),
  );
  // The layout of the last batch's events: an entry's events of one number of rows have the same rows in order.
  let layout: RowLayout | undefined;
  let header: string | undefined = familyHeader(family, metricType, help);
  return {
    encode(rows: Labelled<SampleBatch>) {
      let batch = rows;
      if (withCreated) {
        const events = rows.events ?? rows.size;
        const width = events > 0 ? rows.size / events : 0;
        if (layout?.rows !== width) layout = rowLayout(rows.series, width, written);
        batch = openMetricsRows(rows, layout, createdOf, mayCarry);
      }
      const chunk = lines.encode(batch);
      if (header === undefined || batch.size === 0) return chunk;
      const prefixed = withPrefix(chunk, header);
      header = undefined;
      return prefixed;
    },
  };
}

/** The rows of each metric type that OpenMetrics lets carry an exemplar; none: no row. */
const EXEMPLARS_ON: Record<MetricType, ((series: Series) => boolean) | undefined> = {
  counter: () => true,
  histogram: (series) => series.suffix === '_bucket',
  gauge: undefined,
  summary: undefined,
  untyped: undefined,
};

/** The rows of a histogram without a sum: its buckets. */
const notSumOrCount = (series: Series): boolean => series.suffix !== '_sum' && series.suffix !== '_count';

/**
 * Which of an event's `rows` rows are written (`keptRows`, `kept` of them), and where each goes among them (`place`,
 * -1: not written).
 */
interface RowLayout {
  readonly rows: number;
  readonly keptRows: Int32Array;
  readonly place: Int32Array;
  readonly kept: number;
}

/** The layout of events of `rows` rows, the first event's rows the first of `series`: those `written`, all without it. */
function rowLayout(
  series: readonly Series[],
  rows: number,
  written: ((series: Series) => boolean) | undefined,
): RowLayout {
  const keptRows = new Int32Array(rows);
  const place = new Int32Array(rows);
  let kept = 0;
  for (let r = 0; r < rows; r++) {
    const keep = !written || written(series[r]!);
    place[r] = keep ? kept : -1;
    if (keep) keptRows[kept++] = r;
  }
  return { rows, keptRows, place, kept };
}

/**
 * The rows to write of a batch whose events have a creation time: each event's rows (as `layout` says), then its
 * `_created` row (its label set's, the value the entry start in seconds, the event's time), and the exemplars of the
 * rows that may carry one.
 */
function openMetricsRows(
  batch: Labelled<SampleBatch>,
  { rows, keptRows, place, kept }: RowLayout,
  createdOf: (series: Series) => Series,
  mayCarry: ((series: Series) => boolean) | undefined,
): Labelled<SampleBatch> {
  const events = batch.events ?? batch.size;
  const size = (kept + 1) * events;
  const index = new Float64Array(size);
  const offset = new Float64Array(size);
  const value = new Float64Array(size);
  const series = new Array<Series>(size);
  const createdAt = Math.floor(batch.anchor) / 1000;
  const exemplars = batch.exemplars && mayCarry && carriedExemplars(batch, rows, kept, place, mayCarry);
  // The batch's columns read once, not a property load a row.
  const { index: fromIndex, offset: fromOffset, value: fromValue, series: fromSeries } = batch;
  for (let e = 0, first = 0, to = 0; e < events; e++, first += rows) {
    for (let k = 0; k < kept; k++, to++) {
      const from = first + keptRows[k]!;
      index[to] = fromIndex[from]!;
      offset[to] = fromOffset[from]!;
      value[to] = fromValue[from]!;
      series[to] = fromSeries[from]!;
    }
    // The last row (written or not) has the event's label set: a counter's sample, a histogram's or summary's `_count`.
    index[to] = fromIndex[first]!;
    offset[to] = fromOffset[first]!;
    value[to] = createdAt;
    series[to++] = createdOf(fromSeries[first + rows - 1]!);
  }
  const rowBatch: Labelled<SampleBatch> = { size, anchor: batch.anchor, index, offset, value, series, events };
  return exemplars ? carryingExemplars(rowBatch, exemplars) : rowBatch;
}

/**
 * The exemplars of the rows that may carry one, at their places among the written rows with `_created` (`kept` + 1
 * an event, row r of an event at `place[r]`); undefined when none is left. When every one is kept (a histogram's
 * exemplars on `_bucket` rows), only the rows are new: the other columns are shared.
 */
function carriedExemplars(
  batch: Labelled<SampleBatch>,
  rows: number,
  kept: number,
  place: Int32Array,
  mayCarry: (series: Series) => boolean,
): ExemplarRows | undefined {
  const column = batch.exemplars!;
  // Read once: a load from the batch, whose shape differs with the operators before, is megamorphic.
  const { series } = batch;
  const moved = new Int32Array(column.rows.length);
  let carries = 0;
  for (let k = 0; k < column.rows.length; k++) {
    const row = column.rows[k]!;
    if (!mayCarry(series[row]!)) continue;
    // Integer division: a row number is an int32, and a double's floor and remainder cost more.
    const event = (row / rows) | 0;
    moved[carries++] = event * (kept + 1) + place[row - event * rows]!;
  }
  if (carries === column.rows.length) return exemplarsOnRows(column, moved);
  const carried = new ExemplarRowsBuilder(carries);
  for (let k = 0, m = 0; k < column.rows.length; k++)
    if (mayCarry(series[column.rows[k]!]!)) carried.addFrom(moved[m++]!, column, k);
  return carried.build();
}

/** The family's metadata lines; HELP escaped as OpenMetrics escapes it, as a label value. */
function familyHeader(family: string, metricType: MetricType = 'untyped', help: string | undefined): string {
  const unit = unitOf(family);
  return (
    `# TYPE ${family} ${FAMILY_TYPE[metricType]}\n` +
    (help === undefined ? '' : `# HELP ${family} ${escapeLabelValue(help)}\n`) +
    (unit === undefined ? '' : `# UNIT ${family} ${unit}\n`)
  );
}

/**
 * A line of OpenMetrics text: a comment (`# TYPE`, `# HELP`…) or a sample, its metric name first, then its labels or
 * its value (a number, `+Inf`, `NaN`): an influx_lp line without tags (`deploys value=1 …`) is none.
 */
const OPENMETRICS_LINE = /^(?:#|[a-zA-Z_:][a-zA-Z0-9_:]*(?:\{| [-+]?(?:[0-9.]|inf|nan)))/i;

/** The family a metadata line (`# TYPE <family> …`, `# HELP`, `# UNIT`) describes. */
const METADATA_FAMILY = /^# (?:TYPE|HELP|UNIT) (\S+)/;

/** The metric name a sample line begins with. */
const SAMPLE_NAME = /^[^{ ]+/;

/**
 * An openmetrics `chunk` as it is appended to a file whose last line before its `# EOF` is `last` (the kind's
 * `appended`): without its family's metadata when `last` is of that family (its metadata, or a sample with one of the
 * chunk's sample names), as OpenMetrics wants the metadata once, before the family's samples; whole after another
 * family's line, as the start of a new family. A line that is no OpenMetrics (another encoder's: `{"time":…}`) is
 * refused: an OpenMetrics reader would stop there; `cut` short (no line feed ends it), it is what a kill in the middle
 * of a write left, no other encoder's, and the refusal says so. The earlier lines of the file are not read: a family that is not
 * the last but appears earlier gets its metadata again, which strict parsers refuse ("Clashing name").
 */
export function appendedAfter(chunk: EncodedBatch, last: string, cut: boolean): EncodedBatch | string {
  if (last === '') return chunk;
  if (!OPENMETRICS_LINE.test(last))
    return cut
      ? `its last line is cut short (${show(last)}, no line break ends it: svc killed in the middle of a write?), where an OpenMetrics reader would stop`
      : `its last line is not OpenMetrics (${show(last)}): the file holds another encoder's lines, where an OpenMetrics reader would stop`;
  // The encoder's chunks are Buffers (TextMetricEncoder); its metadata lines come first.
  const data = chunk.data as Buffer;
  const lines = data.toString().split('\n');
  const samples = lines.findIndex((line) => !line.startsWith('#'));
  const family = METADATA_FAMILY.exec(lines[0]!)?.[1];
  if (samples <= 0 || family === undefined) return chunk;
  const lastName = SAMPLE_NAME.exec(last)?.[0];
  const sameFamily = last.startsWith('#')
    ? METADATA_FAMILY.exec(last)?.[1] === family
    : lines.slice(samples).some((line) => SAMPLE_NAME.exec(line)?.[0] === lastName);
  return sameFamily ? withoutPrefix(chunk, Buffer.byteLength(`${lines.slice(0, samples).join('\n')}\n`)) : chunk;
}

/** `chunk` with `text` before its first record. */
function withPrefix(chunk: EncodedBatch<Buffer>, text: string): EncodedBatch<Buffer> {
  const data = Buffer.concat([Buffer.from(text), chunk.data]);
  const added = data.length - chunk.data.length;
  const ends = chunk.frames.ends.map((end) => end + added);
  return { ...chunk, data, bytes: data.length, frames: { ...chunk.frames, ends } };
}

/** `chunk` without its first `length` bytes, the start of its first record ({@link withPrefix}'s `text`). */
function withoutPrefix(chunk: EncodedBatch, length: number): EncodedBatch {
  const data = (chunk.data as Buffer).subarray(length);
  const ends = chunk.frames.ends.map((end) => end - length);
  return { ...chunk, data, bytes: data.length, frames: { ...chunk.frames, ends } };
}
